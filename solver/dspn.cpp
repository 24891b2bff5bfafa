#include "solver/dspn.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "gspn/marking_store.hpp"
#include "gspn/vanishing.hpp"
#include "solver/transient.hpp"

namespace mmt::solver {

namespace {

using gspn::TransitionId;

/// Where a firing leads: each tangible marking (by state of the graph) with its
/// probability, and the expected firings of each immediate transition on the way.
struct Firing {
  TransitionId transition = 0;
  double rate = 0;  ///< exponential: the rate in the marking; deterministic: 0
  std::vector<std::pair<std::uint32_t, double>> to;
  std::vector<std::pair<TransitionId, double>> immediate;
};

/// Every timed firing of a tangible marking.
struct Row {
  std::vector<Firing> exponential;
  std::optional<Firing> deterministic;
  /// Σ of the exponential rates into other markings (self-loops change nothing).
  double exitRate = 0;
};

/// The delay of a deterministic transition, or nothing for an exponential one.
struct Delays {
  std::vector<double> constant;  ///< by transition: τ, or 0 when exponential
  std::string unsupported;       ///< the first transition with another kind of delay
};

Delays delaysOf(const gspn::Net& net) {
  Delays out;
  out.constant.assign(net.transitionCount(), 0);
  for (TransitionId t : net.timedTransitions()) {
    const auto& delay = net.transition(t).declaredDelay;
    if (!delay || (delay->kind() == gspn::DistributionKind::Exponential && delay->offset() == 0))
      continue;
    if (delay->variance() == 0)
      out.constant[t] = delay->mean();
    else if (out.unsupported.empty())
      out.unsupported = net.transition(t).name;
  }
  return out;
}

class Builder {
 public:
  Builder(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
          const DspnSettings& settings, DspnSolution& out)
      : net_(net),
        graph_(graph),
        settings_(settings),
        out_(out),
        delays_(delaysOf(net)),
        index_(net.placeCount()),
        eliminator_(net, 10'000'000) {
    std::vector<gspn::Tokens> m(net.placeCount());
    for (std::uint32_t s = 0; s < graph.stateCount(); ++s) {
      graph.markings.decode(s, m);
      index_.insert(m);
    }
  }

  const Delays& delays() const { return delays_; }

  /// The timed firings of every state; false (with out_ filled) when two deterministic
  /// transitions are enabled together.
  bool collectRows() {
    rows_.resize(graph_.stateCount());
    std::vector<gspn::Tokens> m(net_.placeCount()), next(net_.placeCount());
    for (std::uint32_t s = 0; s < graph_.stateCount(); ++s) {
      graph_.markings.decode(s, m);
      Row& row = rows_[s];
      for (TransitionId t : net_.timedTransitions()) {
        if (!net_.isEnabled(t, m)) continue;
        Firing f;
        f.transition = t;
        if (delays_.constant[t] > 0) {
          const auto& tr = net_.transition(t);
          if (row.deterministic ||
              (tr.servers != gspn::ServerSemantics::Single && net_.enablingDegree(t, m) > 1)) {
            out_.status = DspnSolution::Status::Concurrent;
            out_.first =
                row.deterministic ? net_.transition(row.deterministic->transition).name : tr.name;
            out_.second = tr.name;
            out_.marking = "{" + net_.describe(m) + "}";
            return false;
          }
        } else {
          f.rate = net_.rate(t, m);
          if (f.rate == 0) continue;
        }
        net_.fire(t, m, next);
        if (!eliminator_.isVanishingAfter(t, next)) {  // m is tangible
          f.to.emplace_back(stateOf(next), 1.0);
        } else {
          if (eliminator_.resolve(next) != gspn::VanishingEliminator::Status::Ok)
            throw std::runtime_error(eliminator_.error());
          for (std::uint32_t e = 0; e < eliminator_.exits().size(); ++e)
            f.to.emplace_back(stateOf(eliminator_.exits()[e]), eliminator_.exitProbability()[e]);
          f.immediate = eliminator_.firings();
        }
        if (delays_.constant[t] > 0) {
          row.deterministic = std::move(f);
          continue;
        }
        for (const auto& [j, p] : f.to)
          if (j != s) row.exitRate += f.rate * p;
        row.exponential.push_back(std::move(f));
      }
    }
    return true;
  }

  /// The EMC's row of state s (entered with a fresh clock): its successors with their
  /// probabilities, and the expected time in each marking per visit. Nothing when
  /// interrupted.
  bool embeddedRow(std::uint32_t s, std::map<std::uint32_t, double>& next,
                   std::map<std::uint32_t, double>& time, std::map<std::uint32_t, double>& fires) {
    const Row& row = rows_[s];
    if (!row.deterministic) {
      if (!(row.exitRate > 0)) {
        std::vector<gspn::Tokens> m(net_.placeCount());
        graph_.markings.decode(s, m);
        out_.status = DspnSolution::Status::Deadlock;
        out_.message =
            "deadlock: the reachable marking {" + net_.describe(m) + "} enables no transition";
        return false;
      }
      for (const Firing& f : row.exponential)
        for (const auto& [j, p] : f.to)
          if (j != s) next[j] += f.rate * p / row.exitRate;
      time[s] += 1 / row.exitRate;
      return true;
    }
    const TransitionId d = row.deterministic->transition;
    const Subordinated& sub = subordinated(d);
    const double tau = delays_.constant[d];
    TransientSettings transient;
    transient.times = {tau};
    transient.epsilon = settings_.epsilon;
    transient.run.interrupt = settings_.run.interrupt;
    const std::vector<std::pair<std::uint32_t, double>> start{{std::uint32_t(sub.local[s]), 1.0}};
    const TransientResult at = solveTransient(sub.q, start, transient);
    transient.cumulative = true;
    const TransientResult average = solveTransient(sub.q, start, transient);
    out_.iterations += at.iterations + average.iterations;
    ++out_.subordinatedSolves;
    if (at.status == Status::Interrupted || average.status == Status::Interrupted) {
      out_.status = DspnSolution::Status::Interrupted;
      out_.message = "interrupted";
      return false;
    }
    const Eigen::VectorXd& omega = at.distributions[0];
    const Eigen::VectorXd psi = average.distributions[0] * tau;
    for (std::size_t c = 0; c < sub.states.size(); ++c) {
      const std::uint32_t k = sub.states[c];
      const Row& inside = rows_[k];
      if (omega[Eigen::Index(c)] > 0) {
        fires[k] += omega[Eigen::Index(c)];
        for (const auto& [j, p] : inside.deterministic->to) next[j] += omega[Eigen::Index(c)] * p;
      }
      if (!(psi[Eigen::Index(c)] > 0)) continue;
      time[k] += psi[Eigen::Index(c)];
      for (const Firing& f : inside.exponential)
        for (const auto& [j, p] : f.to)
          if (sub.local[j] < 0) next[j] += psi[Eigen::Index(c)] * f.rate * p;
    }
    return true;
  }

  const std::vector<Row>& rows() const { return rows_; }

 private:
  /// The subordinated CTMC of deterministic transition d: the markings where d is enabled,
  /// the exponential firings among them, killed where a firing disables d.
  struct Subordinated {
    std::vector<std::uint32_t> states;
    std::vector<std::int64_t> local;  ///< by state: position in `states`, or -1
    Generator q;
  };

  const Subordinated& subordinated(TransitionId d) {
    auto found = subordinated_.find(d);
    if (found != subordinated_.end()) return found->second;
    Subordinated sub;
    sub.local.assign(graph_.stateCount(), -1);
    for (std::uint32_t s = 0; s < graph_.stateCount(); ++s)
      if (rows_[s].deterministic && rows_[s].deterministic->transition == d) {
        sub.local[s] = std::int64_t(sub.states.size());
        sub.states.push_back(s);
      }
    std::vector<std::tuple<int, int, double>> entries;
    std::vector<double> exitRate(sub.states.size());
    for (std::size_t c = 0; c < sub.states.size(); ++c) {
      const std::uint32_t k = sub.states[c];
      exitRate[c] = rows_[k].exitRate;
      for (const Firing& f : rows_[k].exponential)
        for (const auto& [j, p] : f.to)
          if (j != k && sub.local[j] >= 0)
            entries.emplace_back(int(c), int(sub.local[j]), f.rate * p);
    }
    sub.q = generatorFromEntries(sub.states.size(), std::move(entries), std::move(exitRate));
    return subordinated_.emplace(d, std::move(sub)).first->second;
  }

  std::uint32_t stateOf(gspn::MarkingView m) {
    const auto [id, fresh] = index_.insert(m);
    if (fresh) throw std::logic_error("dspn: a marking outside the tangible reachability graph");
    return id;
  }

  const gspn::Net& net_;
  const gspn::TangibleReachabilityGraph& graph_;
  const DspnSettings& settings_;
  DspnSolution& out_;
  Delays delays_;
  gspn::MarkingStore index_;
  gspn::VanishingEliminator eliminator_;
  std::vector<Row> rows_;
  std::map<TransitionId, Subordinated> subordinated_;
};

/// The embedded Markov chain (EMC) over the markings met from the initial ones, each
/// entered with a fresh clock (Lindemann 1998, §2.3): per met marking, its successors'
/// probabilities, the expected time spent in each marking, and the expected firings of
/// its deterministic transition by marking.
struct EmbeddedChain {
  std::vector<std::int64_t> at;  ///< by state of the graph: its position in `met`, or -1
  std::vector<std::uint32_t> met;
  std::vector<std::map<std::uint32_t, double>> next, time, fires;
};

/// Explores the EMC breadth-first from the initial markings; false (out says why) on a
/// marking the builder refuses.
bool exploreEmbedded(Builder& builder, const gspn::TangibleReachabilityGraph& graph,
                     EmbeddedChain& chain) {
  chain.at.assign(graph.stateCount(), -1);
  auto meet = [&](std::uint32_t s) {
    if (chain.at[s] >= 0) return;
    chain.at[s] = std::int64_t(chain.met.size());
    chain.met.push_back(s);
  };
  for (const auto& [s, p] : graph.initial) meet(s);
  for (std::size_t head = 0; head < chain.met.size(); ++head) {
    std::map<std::uint32_t, double> row, spent, fired;
    if (!builder.embeddedRow(chain.met[head], row, spent, fired)) return false;
    for (const auto& [j, p] : row) meet(j);
    chain.next.push_back(std::move(row));
    chain.time.push_back(std::move(spent));
    chain.fires.push_back(std::move(fired));
  }
  return true;
}

/// The positions in `chain.met` of the EMC's one bottom strongly connected component, or
/// nothing (out says how many there are) when there are several.
std::optional<std::vector<std::size_t>> recurrentStates(const EmbeddedChain& chain,
                                                        DspnSolution& out) {
  const std::size_t m = chain.met.size();
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph g(m);
  for (std::size_t a = 0; a < m; ++a)
    for (const auto& [j, p] : chain.next[a])
      if (p > 0) boost::add_edge(a, std::size_t(chain.at[j]), g);
  std::vector<std::size_t> component(m);
  const std::size_t count = boost::strong_components(g, component.data());
  std::vector<char> leaves(count, 0);
  for (std::size_t a = 0; a < m; ++a)
    for (const auto& [j, p] : chain.next[a])
      if (p > 0 && component[std::size_t(chain.at[j])] != component[a]) leaves[component[a]] = 1;
  std::vector<std::size_t> bottoms;
  for (std::size_t c = 0; c < count; ++c)
    if (!leaves[c]) bottoms.push_back(c);
  if (bottoms.size() != 1) {
    out.status = DspnSolution::Status::MultipleBottomComponents;
    out.message = std::to_string(bottoms.size()) +
                  " bottom components in the embedded chain: the long-run behaviour depends on "
                  "the initial choices";
    return std::nullopt;
  }
  std::vector<std::size_t> recurrent;
  for (std::size_t a = 0; a < m; ++a)
    if (component[a] == bottoms[0]) recurrent.push_back(a);
  return recurrent;
}

/// The EMC restricted to its recurrent states as the CTMC P − I, whose stationary
/// distribution is P's.
Generator embeddedGenerator(const EmbeddedChain& chain, const std::vector<std::size_t>& recurrent) {
  std::vector<std::int64_t> local(chain.met.size(), -1);
  for (std::size_t r = 0; r < recurrent.size(); ++r) local[recurrent[r]] = std::int64_t(r);
  std::vector<std::tuple<int, int, double>> entries;
  std::vector<double> leave(recurrent.size(), 0.0);
  for (std::size_t r = 0; r < recurrent.size(); ++r)
    for (const auto& [j, p] : chain.next[recurrent[r]]) {
      const std::int64_t c = local[std::size_t(chain.at[j])];
      if (c < 0 || std::size_t(c) == r) continue;
      entries.emplace_back(int(r), int(c), p);
      leave[r] += p;
    }
  return generatorFromEntries(recurrent.size(), std::move(entries), std::move(leave));
}

/// π from the EMC's ν weighed by the time spent in each marking between embedding
/// instants, and every transition's throughput per unit of time (Lindemann 1998, §2.3).
void weighByTime(const gspn::Net& net, const Builder& builder, const EmbeddedChain& chain,
                 const std::vector<std::size_t>& recurrent, DspnSolution& out) {
  const std::size_t n = chain.at.size();
  out.pi = Eigen::VectorXd::Zero(Eigen::Index(n));
  std::vector<double> deterministicFires(n, 0);
  double cycle = 0;
  for (std::size_t r = 0; r < recurrent.size(); ++r) {
    const double nu = out.embedded.pi[Eigen::Index(r)];
    for (const auto& [k, c] : chain.time[recurrent[r]]) {
      out.pi[k] += nu * c;
      cycle += nu * c;
    }
    for (const auto& [k, f] : chain.fires[recurrent[r]]) deterministicFires[k] += nu * f;
  }
  out.pi /= cycle;
  out.throughput.assign(net.transitionCount(), 0);
  for (std::uint32_t k = 0; k < n; ++k) {
    const Row& row = builder.rows()[k];
    const double pk = out.pi[k];
    for (const Firing& f : row.exponential) {
      out.throughput[f.transition] += pk * f.rate;
      for (const auto& [u, c] : f.immediate) out.throughput[u] += pk * f.rate * c;
    }
    if (row.deterministic && deterministicFires[k] > 0) {
      const double frequency = deterministicFires[k] / cycle;
      out.throughput[row.deterministic->transition] += frequency;
      for (const auto& [u, c] : row.deterministic->immediate) out.throughput[u] += frequency * c;
    }
  }
}

/// False, with out's message, when the net is outside what the EMC method solves: a delay
/// neither exponential nor constant, or two deterministic firings enabled together.
bool supported(Builder& builder, DspnSolution& out) {
  if (!builder.delays().unsupported.empty()) {
    out.status = DspnSolution::Status::Unsupported;
    out.message = "'" + builder.delays().unsupported +
                  "' has a delay that is neither exponential nor constant";
    return false;
  }
  for (double tau : builder.delays().constant) out.deterministicTransitions += tau > 0;
  if (builder.collectRows()) return true;
  out.message = "'" + out.first + "' and '" + out.second +
                "' are deterministic and enabled together in the marking " + out.marking;
  if (out.first == out.second)
    out.message = "'" + out.first + "' is deterministic and enabled twice at once (" +
                  "several servers) in the marking " + out.marking;
  return false;
}

}  // namespace

DspnSolution solveDspn(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
                       const DspnSettings& settings) {
  const auto started = std::chrono::steady_clock::now();
  DspnSolution out;
  Builder builder(net, graph, settings, out);
  if (!supported(builder, out)) return out;
  EmbeddedChain chain;
  if (!exploreEmbedded(builder, graph, chain)) return out;
  const auto recurrent = recurrentStates(chain, out);
  if (!recurrent) return out;
  out.embeddedStates = recurrent->size();
  out.embedded = solveSteadyState(embeddedGenerator(chain, *recurrent), settings.embedded);
  if (out.embedded.status != Status::Converged) {
    out.status = out.embedded.status == Status::Interrupted ? DspnSolution::Status::Interrupted
                                                            : DspnSolution::Status::NotConverged;
    out.message = "the embedded chain's solver did not converge (residual " +
                  std::to_string(out.embedded.residual) + ")";
    return out;
  }
  weighByTime(net, builder, chain, *recurrent, out);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

DspnMeasures::DspnMeasures(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
                           const DspnSolution& solution)
    : solution_(solution), underPi_(net, graph, everyState(graph), solution.pi) {}

}  // namespace mmt::solver
