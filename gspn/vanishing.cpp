#include "gspn/vanishing.hpp"

#include <Eigen/Sparse>
#include <Eigen/SparseLU>
#include <algorithm>
#include <set>

namespace mmt::gspn {

VanishingEliminator::VanishingEliminator(const Net& net, std::uint64_t limit,
                                         const std::atomic<bool>* interrupt, bool everyOrder)
    : net_(net),
      limit_(limit),
      interrupt_(interrupt),
      byPriority_(net.immediateTransitions()),
      local_(net.placeCount()),
      exits_(net.placeCount()),
      firingAccumulator_(net.transitionCount(), 0.0),
      scratch_(net.placeCount()) {
  std::stable_sort(byPriority_.begin(), byPriority_.end(), [&](TransitionId a, TransitionId b) {
    return net.transition(a).priority > net.transition(b).priority;
  });
  if (!everyOrder && byPriority_.size() > 1) commuting_.emplace(net);
  // An immediate transition reads the places of its input and inhibitor arcs, or, with a
  // guard or marking-dependent arcs, any place; a transition changes only the places of its
  // input and output arcs.
  std::vector<std::vector<TransitionId>> readers(net.placeCount());
  std::vector<TransitionId> readsAny;
  for (TransitionId u : net.immediateTransitions()) {
    if (net.hasMarkingDependentEnabling(u)) {
      readsAny.push_back(u);
      continue;
    }
    for (const auto& arcs : {net.inputs(u), net.inhibitors(u)})
      for (const Arc& a : arcs) readers[a.place].push_back(u);
  }
  std::vector<TransitionId> list;
  mayEnableStart_.push_back(0);
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    list = readsAny;
    for (const auto& arcs : {net.inputs(t), net.outputs(t)})
      for (const Arc& a : arcs)
        for (TransitionId u : readers[a.place]) list.push_back(u);
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    mayEnable_.insert(mayEnable_.end(), list.begin(), list.end());
    mayEnableStart_.push_back(static_cast<std::uint32_t>(mayEnable_.size()));
  }
}

bool VanishingEliminator::isVanishing(MarkingView m) const {
  for (TransitionId t : byPriority_)
    if (net_.isEnabled(t, m)) return true;
  return false;
}

VanishingEliminator::Status VanishingEliminator::resolve(MarkingView v0) {
  bool cyclic = false;
  const Status s = resolveFrom(v0, commuting_ ? &*commuting_ : nullptr, cyclic);
  return cyclic ? resolveFrom(v0, nullptr, cyclic) : s;
}

VanishingEliminator::Status VanishingEliminator::resolveFrom(MarkingView v0,
                                                             CommutingImmediates* commuting,
                                                             bool& cyclic) {
  local_.clear();
  exits_.clear();
  edges_.clear();
  error_.clear();
  const std::uint64_t v0Hash = counting_ ? hashMarking(v0) : 0;
  if (counting_) count(v0Hash);
  double v0Weight = 0;
  if (resolveAtOnce(v0, v0Weight)) return Status::Ok;
  local_.insert(v0, counting_ ? v0Hash : hashMarking(v0));

  // Breadth-first over the vanishing markings reachable from v0; edges come out grouped
  // by their source, in source order.
  bool reduced = false;
  for (std::uint32_t v = 0; v < local_.size(); ++v) {
    if ((v & 0xffff) == 0xffff && interrupt_ && interrupt_->load(std::memory_order_relaxed)) {
      error_ = "interrupted while resolving the vanishing markings after one firing";
      return Status::Interrupted;
    }
    // v0's enabled transitions are those resolveAtOnce found.
    double totalWeight = v == 0 ? v0Weight : enableTopPriority(local_[v]);
    if (commuting && commuting->keepOneProcess(local_[v], enabled_)) {
      reduced = true;
      totalWeight = 0;
      for (const auto& [t, weight] : enabled_) totalWeight += weight;
    }
    for (auto [t, weight] : enabled_) {
      net_.fire(t, local_[v], scratch_);
      const double p = weight / totalWeight;
      if (isVanishing(scratch_)) {
        auto [w, inserted] = local_.insert(scratch_);
        if (inserted) {
          if (counting_) count(local_.hashOf(w));
          if (local_.size() > limit_) {
            error_ = "more than " + std::to_string(limit_) +
                     " vanishing markings follow one timed firing: immediate transitions "
                     "that create tokens without bound, or many that interact and fire in "
                     "many orders; e.g. " +
                     net_.describe(scratch_);
            return Status::TooManyVanishing;
          }
        }
        edges_.push_back({v, w, false, p, t});
      } else {
        auto [e, inserted] = exits_.insert(scratch_);
        edges_.push_back({v, e, true, p, t});
      }
    }
  }

  switch (solveVisits(reduced)) {
    case Visits::Solved:
      break;
    case Visits::Trap:
      return Status::TimelessTrap;
    case Visits::Cyclic:
      cyclic = true;
      return Status::Ok;
  }

  exitProbability_.assign(exits_.size(), 0.0);
  for (TransitionId t : firedTransitions_) firingAccumulator_[t] = 0.0;
  firedTransitions_.clear();
  for (const Edge& e : edges_) {
    const double flow = visits_[e.from] * e.probability;
    if (e.toExit) exitProbability_[e.to] += flow;
    if (firingAccumulator_[e.transition] == 0.0) firedTransitions_.push_back(e.transition);
    firingAccumulator_[e.transition] += flow;
  }
  firings_.clear();
  for (TransitionId t : firedTransitions_) firings_.emplace_back(t, firingAccumulator_[t]);
  return Status::Ok;
}

void VanishingEliminator::compact() {
  const auto middle = fingerprints_.begin() + static_cast<std::ptrdiff_t>(sorted_);
  std::sort(middle, fingerprints_.end());
  std::inplace_merge(fingerprints_.begin(), middle, fingerprints_.end());
  fingerprints_.erase(std::unique(fingerprints_.begin(), fingerprints_.end()), fingerprints_.end());
  sorted_ = fingerprints_.size();
}

std::uint64_t VanishingEliminator::distinctVanishing(const std::vector<VanishingEliminator*>& all) {
  std::vector<std::pair<const std::uint64_t*, const std::uint64_t*>> lists;
  for (VanishingEliminator* e : all) {
    e->compact();
    if (!e->fingerprints_.empty())
      lists.emplace_back(e->fingerprints_.data(), e->fingerprints_.data() + e->sorted_);
  }
  // A merge of the sorted lists: each step takes the smallest head and counts it once.
  std::uint64_t count = 0;
  while (!lists.empty()) {
    std::uint64_t smallest = *lists[0].first;
    for (const auto& [head, end] : lists) smallest = std::min(smallest, *head);
    ++count;
    for (auto& [head, end] : lists)
      if (*head == smallest) ++head;
    std::erase_if(lists, [](const auto& list) { return list.first == list.second; });
  }
  return count;
}

double VanishingEliminator::enableTopPriority(MarkingView m) {
  enabled_.clear();
  double largest = 0;
  std::uint32_t level = 0;
  for (TransitionId t : byPriority_) {
    const Transition& tr = net_.transition(t);
    if (!enabled_.empty() && tr.priority < level) break;
    if (!net_.isEnabled(t, m)) continue;
    level = tr.priority;
    enabled_.emplace_back(t, tr.weight);
    largest = std::max(largest, tr.weight);
  }
  // Weights relative to the largest enabled one, so that their sum stays finite (two
  // weights of 1e308 would add up to infinity and lose all probability).
  double totalWeight = 0;
  for (auto& [t, weight] : enabled_) totalWeight += (weight /= largest);
  return totalWeight;
}

bool VanishingEliminator::resolveAtOnce(MarkingView v0, double& totalWeight) {
  totalWeight = enableTopPriority(v0);
  if (enabled_.size() != 1) return false;  // a choice
  const TransitionId only = enabled_[0].first;
  net_.fire(only, v0, scratch_);
  if (isVanishing(scratch_)) return false;
  exits_.insert(scratch_);
  exitProbability_.assign(1, 1.0);
  firings_.assign(1, {only, 1.0});
  return true;
}

VanishingEliminator::Visits VanishingEliminator::solveVisits(bool cyclicFails) {
  const std::size_t n = local_.size();
  visits_.assign(n, 0.0);

  // Kahn's algorithm: a topological order exists iff the vanishing graph is acyclic. The
  // arrays are members, reused: a resolution is a few markings, and exploration runs
  // millions of them (the ring, K = 8, N = 22: 9.5 M).
  std::vector<std::uint32_t>& indegree = indegree_;
  indegree.assign(n, 0);
  for (const Edge& e : edges_)
    if (!e.toExit) ++indegree[e.to];
  std::vector<std::uint32_t>& start = start_;  // edges_ are grouped by source
  start.assign(n + 1, 0);
  for (const Edge& e : edges_) ++start[e.from + 1];
  for (std::size_t v = 0; v < n; ++v) start[v + 1] += start[v];

  std::vector<std::uint32_t>& order = order_;
  order.clear();
  for (std::uint32_t v = 0; v < n; ++v)
    if (indegree[v] == 0) order.push_back(v);
  for (std::size_t i = 0; i < order.size(); ++i)
    for (std::uint32_t k = start[order[i]]; k < start[order[i] + 1]; ++k)
      if (!edges_[k].toExit && --indegree[edges_[k].to] == 0) order.push_back(edges_[k].to);

  if (order.size() == n) {
    visits_[0] = 1.0;
    for (std::uint32_t v : order)
      for (std::uint32_t k = start[v]; k < start[v + 1]; ++k)
        if (!edges_[k].toExit) visits_[edges_[k].to] += visits_[v] * edges_[k].probability;
    return Visits::Solved;
  }
  if (cyclicFails) return Visits::Cyclic;

  // Cyclic: every vanishing marking must be able to reach a tangible one, else the chain
  // can stay in zero time forever.
  std::vector<char> reachesExit(n, 0);
  std::vector<std::vector<std::uint32_t>> predecessors(n);
  std::vector<std::uint32_t> frontier;
  for (const Edge& e : edges_) {
    if (e.toExit) {
      if (!reachesExit[e.from]) frontier.push_back(e.from);
      reachesExit[e.from] = 1;
    } else {
      predecessors[e.to].push_back(e.from);
    }
  }
  while (!frontier.empty()) {
    std::uint32_t v = frontier.back();
    frontier.pop_back();
    for (std::uint32_t u : predecessors[v])
      if (!reachesExit[u]) {
        reachesExit[u] = 1;
        frontier.push_back(u);
      }
  }
  if (std::find(reachesExit.begin(), reachesExit.end(), 0) != reachesExit.end()) {
    reportTrap(reachesExit);
    return Visits::Trap;
  }

  // (I − P)^T nᵀ = e_{v0}
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(edges_.size() + n);
  for (std::uint32_t v = 0; v < n; ++v) triplets.emplace_back(v, v, 1.0);
  for (const Edge& e : edges_)
    if (!e.toExit) triplets.emplace_back(e.to, e.from, -e.probability);
  Eigen::SparseMatrix<double> a(n, n);
  a.setFromTriplets(triplets.begin(), triplets.end());
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
  lu.compute(a);
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n);
  rhs[0] = 1.0;
  Eigen::VectorXd x = lu.solve(rhs);
  if (lu.info() != Eigen::Success) {
    error_ = "the vanishing markings after " + net_.describe(local_[0]) +
             " form a singular system (numerically a timeless trap)";
    return Visits::Trap;
  }
  for (std::size_t v = 0; v < n; ++v) visits_[v] = std::max(0.0, x[v]);
  return Visits::Solved;
}

void VanishingEliminator::reportTrap(const std::vector<char>& reachesExit) {
  std::set<std::string> names;
  std::uint32_t witness = 0;
  for (const Edge& e : edges_)
    if (!e.toExit && !reachesExit[e.from] && !reachesExit[e.to]) {
      names.insert(net_.transition(e.transition).name);
      witness = e.from;
    }
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  error_ = "timeless trap: immediate transitions {" + list +
           "} can fire forever without time passing, e.g. from marking {" +
           net_.describe(local_[witness]) + "}";
}

}  // namespace mmt::gspn
