#include "meanfield/hybrid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "gspn/invariants.hpp"

namespace mmt::meanfield {
namespace {

/// Immediate firings along one path of a resolution before it is called endless.
constexpr std::size_t kMostImmediateFirings = 10'000;
/// Counts below 1 met in one vanishing marking: 2^n availabilities to weigh.
constexpr std::size_t kMostUncertainCounts = 12;

using Delta = std::vector<std::pair<std::uint32_t, double>>;

void addTo(Delta& delta, std::uint32_t at, double change) {
  for (auto& [i, d] : delta)
    if (i == at) {
      d += change;
      return;
    }
  delta.emplace_back(at, change);
}

double changeAt(const Delta& delta, std::uint32_t at) {
  for (const auto& [i, d] : delta)
    if (i == at) return d;
  return 0;
}

/// Steps `digits` (each below its limit) to the next tuple; false after the last.
template <typename Limit>
bool advance(std::vector<std::uint32_t>& digits, Limit&& limit) {
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (++digits[i] < limit(i)) return true;
    digits[i] = 0;
  }
  return false;
}

}  // namespace

/// One way an immediate class may fire in a vanishing marking: which replica takes each
/// slot (one followed through the resolution, or one of those counted), its weight, and
/// the counts it needs a replica of that may hold none (below 1; any, before x is known).
struct Hybrid::Choice {
  std::uint32_t transitionClass = 0;
  struct Slot {
    bool focus = false;   ///< a followed replica (index into the focus), or a counted one
    std::uint32_t index;  ///< focus index, or local state
  };
  std::vector<Slot> slots;
  std::vector<std::uint32_t> states;  ///< the local state in each slot
  double weight = 1;
  std::uint32_t priority = 1;
  std::vector<std::uint32_t> uncertain;  ///< components of x
  bool guardUnknown = false;             ///< its guard reads counts not yet known
};

void Hybrid::classify() {
  const PopulationModel& m = model_;
  // The net the counts move: the fixed places, and per class one place per position
  // holding every replica's tokens there; one transition per class.
  gspn::NetBuilder b("counts");
  std::vector<std::vector<gspn::PlaceId>> position(m.replicas.size());
  for (std::size_t i = 0; i < m.fixedPlaces.size(); ++i) b.addPlace("f" + std::to_string(i));
  for (std::uint32_t f = 0; f < m.replicas.size(); ++f)
    for (std::size_t q = 0; q < m.replicas[f].names.size(); ++q)
      position[f].push_back(b.addPlace("r" + std::to_string(f) + "." + std::to_string(q)));
  for (std::size_t ci = 0; ci < m.classes.size(); ++ci) {
    const TransitionClass& c = m.classes[ci];
    const gspn::TransitionId t = b.addTimed("c" + std::to_string(ci), 1.0);
    const auto place = [&](const Location& at) {
      return at.slot ? position[c.slots[at.index]][at.position] : gspn::PlaceId(at.index);
    };
    for (const ClassArc& a : c.inputs) b.addInput(t, place(a.at), a.multiplicity);
    for (const ClassArc& a : c.outputs) b.addOutput(t, place(a.at), a.multiplicity);
  }
  const gspn::PSemiflows semiflows = gspn::computePSemiflows(b.freeze());

  // A local state is small when a semiflow that weighs no replica's initial tokens (its
  // sum is the fixed part's, whatever N) weighs it.
  where_.assign(m.replicas.size(), {});
  for (std::uint32_t f = 0; f < m.replicas.size(); ++f)
    where_[f].assign(m.replicas[f].localStates.size(), {});
  const auto weightOf = [&](const std::vector<std::uint64_t>& y, std::uint32_t f,
                            const std::vector<gspn::Tokens>& tokens) {
    double w = 0;
    for (std::size_t q = 0; q < tokens.size(); ++q) w += double(y[position[f][q]]) * tokens[q];
    return w;
  };
  for (const std::vector<std::uint64_t>& y : semiflows.flows) {
    bool fixedSum = true;
    for (std::uint32_t f = 0; f < m.replicas.size(); ++f)
      fixedSum = fixedSum && weightOf(y, f, m.replicas[f].localStates.front()) == 0;
    if (!fixedSum) continue;
    for (std::uint32_t f = 0; f < m.replicas.size(); ++f)
      for (std::uint32_t s = 0; s < m.replicas[f].localStates.size(); ++s)
        if (weightOf(y, f, m.replicas[f].localStates[s]) > 0) where_[f][s].small = true;
  }
  auto next = std::uint32_t(m.fixedPlaces.size());
  counts_ = 0;
  for (std::uint32_t f = 0; f < m.replicas.size(); ++f)
    for (Where& w : where_[f]) w.index = w.small ? next++ : std::uint32_t(counts_++);
  // Each semiflow bounds the discrete part: its fixed places and small counts weigh at most
  // the semiflow's sum, the large counts' share being ≥ 0.
  for (const std::vector<std::uint64_t>& y : semiflows.flows) {
    Bound bound{std::vector<double>(next, 0.0), 0};
    for (std::size_t i = 0; i < m.fixedPlaces.size(); ++i) {
      bound.weights[i] = double(y[i]);
      bound.bound += double(y[i]) * m.fixedInitial[i];
    }
    for (std::uint32_t f = 0; f < m.replicas.size(); ++f) {
      bound.bound +=
          double(m.replicas[f].count) * weightOf(y, f, m.replicas[f].localStates.front());
      for (std::uint32_t s = 0; s < where_[f].size(); ++s)
        if (where_[f][s].small)
          bound.weights[where_[f][s].index] = weightOf(y, f, m.replicas[f].localStates[s]);
    }
    bounds_.push_back(std::move(bound));
  }
}

bool Hybrid::admissible(const std::vector<gspn::Tokens>& d) const {
  for (const Bound& b : bounds_) {
    double sum = 0;
    for (std::size_t i = 0; i < d.size(); ++i) sum += b.weights[i] * d[i];
    if (sum > b.bound + 1e-9 * std::max(1.0, b.bound)) return false;
  }
  return true;
}

Hybrid::Hybrid(const PopulationModel& model, const Limits& limits)
    : model_(model), limits_(limits) {
  if (std::none_of(model.classes.begin(), model.classes.end(),
                   [](const TransitionClass& c) { return !c.immediate(); }))
    throw UnsupportedModel(model.name, "the net has no timed transition: nothing moves in time");
  stateIndex_.resize(model.replicas.size());
  for (std::uint32_t f = 0; f < model.replicas.size(); ++f)
    for (std::uint32_t s = 0; s < model.replicas[f].localStates.size(); ++s)
      stateIndex_[f][model.replicas[f].localStates[s]] = s;
  classify();

  // The discrete part's tangible values, breadth first from the initial marking's
  // resolution; every event from each; the directions they move y in.
  std::set<std::vector<double>> moves;  // (from, to, then pairs of count and change)
  const auto move = [&](std::uint32_t from, const Outcome& o) {
    std::vector<double> key{double(from), double(o.discrete)};
    Delta sorted = o.counts;
    std::sort(sorted.begin(), sorted.end());
    for (const auto& [i, d] : sorted)
      if (d != 0) key.insert(key.end(), {double(i), d});
    moves.insert(std::move(key));
  };
  Vanishing start;
  start.discrete.assign(discreteSize(), 0);
  std::copy(model.fixedInitial.begin(), model.fixedInitial.end(), start.discrete.begin());
  std::vector<Outcome> outcomes;
  std::size_t branches = 0;
  resolveAll(start, outcomes, branches);
  for (std::size_t from = 0; from < discrete_.size(); ++from)
    for (std::uint32_t ci = 0; ci < model.classes.size(); ++ci) {
      const TransitionClass& c = model.classes[ci];
      if (c.immediate()) continue;
      std::vector<std::uint32_t> states(c.slots.size(), 0);  // each assignment of local states
      do {
        if (enabled(c, discrete_[from], states, nullptr) == Enabled::No) continue;
        bool present = true;  // a small state's replicas are counted in the discrete part
        for (std::uint32_t s = 0; s < c.slots.size(); ++s) {
          const Where& w = where_[c.slots[s]][states[s]];
          present = present && (!w.small || discrete_[from][w.index] > 0);
        }
        if (!present) continue;
        Event e{std::uint32_t(from), ci, states, false, {}};
        const Vanishing v = fired(discrete_[from], c, states);
        outcomes.clear();
        branches = 0;
        e.countDependent = resolveAll(v, outcomes, branches);
        for (const Outcome& o : outcomes) move(std::uint32_t(from), o);
        if (!e.countDependent) {
          branches = 0;
          resolve(v, 1.0, Eigen::VectorXd::Zero(Eigen::Index(counts_)), e.outcomes, branches);
        }
        events_.push_back(std::move(e));
      } while (advance(
          states, [&](std::size_t s) { return model.replicas[c.slots[s]].localStates.size(); }));
    }
  groupRates();
  const auto values = Eigen::Index(discrete_.size());
  const auto dimension = values + Eigen::Index(counts_);

  // y₀: the initial marking resolved with every replica in its initial local state.
  Eigen::VectorXd x0 = Eigen::VectorXd::Zero(Eigen::Index(counts_));
  for (std::uint32_t f = 0; f < model.replicas.size(); ++f)
    x0[where_[f][0].index] = double(model.replicas[f].count);
  outcomes.clear();
  branches = 0;
  resolve(start, 1.0, x0, outcomes, branches);
  initial_ = Eigen::VectorXd::Zero(dimension);
  initial_.tail(Eigen::Index(counts_)) = x0;
  for (const Outcome& o : outcomes) {
    initial_[o.discrete] += o.probability;
    for (const auto& [i, d] : o.counts) initial_[values + i] += o.probability * d;
  }

  Eigen::MatrixXd v = Eigen::MatrixXd::Zero(dimension, Eigen::Index(moves.size()));
  Eigen::Index column = 0;
  for (const std::vector<double>& m : moves) {
    v(Eigen::Index(m[0]), column) -= 1;
    v(Eigen::Index(m[1]), column) += 1;
    for (std::size_t i = 2; i + 1 < m.size(); i += 2)
      v(values + Eigen::Index(m[i]), column) += m[i + 1];
    ++column;
  }
  basis_ = fluid::rangeBasis(v);

  // The rates' range: constant rates, and each member's rate at y₀.
  slowest_ = std::numeric_limits<double>::infinity();
  const auto rate = [&](double r) {
    if (!(r > 0) || !std::isfinite(r)) return;
    fastest_ = std::max(fastest_, r);
    slowest_ = std::min(slowest_, r);
  };
  for (const TransitionClass& c : model.classes)
    if (!c.immediate() && c.rateExpression.empty()) rate(c.rate);
  for (const Event& e : events_) {
    const TransitionClass& c = model.classes[e.transitionClass];
    if (!c.rateExpression.empty() && enabled(c, discrete_[e.from], e.states, &x0) == Enabled::Yes)
      rate(memberRate(c, discrete_[e.from], e.states, x0));
  }
  if (!(fastest_ > 0)) fastest_ = slowest_ = 1;
}

std::size_t Hybrid::discreteSize() const {
  std::size_t n = model_.fixedPlaces.size();
  for (const std::vector<Where>& w : where_)
    n += std::size_t(std::count_if(w.begin(), w.end(), [](const Where& x) { return x.small; }));
  return n;
}

std::uint32_t Hybrid::indexOf(const std::vector<gspn::Tokens>& d) {
  const auto [it, fresh] = discreteIndex_.try_emplace(d, std::uint32_t(discrete_.size()));
  if (fresh) {
    if (discrete_.size() >= limits_.fixedStates)
      throw UnsupportedModel(model_.name,
                             "the part of the net that is not replicated (with the replicas "
                             "in states a few of them hold) has more than " +
                                 std::to_string(limits_.fixedStates) +
                                 " tangible markings, more than the mean-field approximation "
                                 "keeps as probabilities");
    discrete_.push_back(d);
  }
  return it->second;
}

double Hybrid::seen(std::uint32_t f, std::uint32_t state, const std::vector<gspn::Tokens>& d,
                    const Eigen::VectorXd& x, const TransitionClass& c,
                    const std::vector<std::uint32_t>& slotStates) const {
  const Where& w = where_[f][state];
  double n = w.small ? double(d[w.index]) : x[w.index];
  for (std::uint32_t s = 0; s < c.slots.size(); ++s)
    if (c.slots[s] == f && slotStates[s] == state) n = std::max(n, 1.0);
  return std::max(n, 0.0);
}

Hybrid::Enabled Hybrid::enabled(const TransitionClass& c, const std::vector<gspn::Tokens>& d,
                                const std::vector<std::uint32_t>& states,
                                const Eigen::VectorXd* x) const {
  const auto tokens = [&](const Location& at) -> gspn::Tokens {
    if (!at.slot) return d[at.index];
    return model_.replicas[c.slots[at.index]].localStates[states[at.index]][at.position];
  };
  for (const ClassArc& a : c.inputs)
    if (tokens(a.at) < a.multiplicity) return Enabled::No;
  for (const ClassArc& a : c.inhibitors)
    if (tokens(a.at) >= a.multiplicity) return Enabled::No;
  if (c.guard.empty()) return Enabled::Yes;
  if (!x && !c.guard.sums.empty()) return Enabled::Maybe;
  const Eigen::VectorXd none;
  return value(c.guard, d, states, c, x ? *x : none) != 0 ? Enabled::Yes : Enabled::No;
}

double Hybrid::value(const PopulationExpression& e, const std::vector<gspn::Tokens>& d,
                     const std::vector<std::uint32_t>& slotStates, const TransitionClass& c,
                     const Eigen::VectorXd& x) const {
  const auto tokens = [&](std::uint32_t code, const std::vector<std::uint32_t>& classes,
                          const std::vector<std::uint32_t>& states) -> double {
    if (code < kSlotCode) return d[code];
    const std::uint32_t slot = (code - kSlotCode) / kPositions;
    return model_.replicas[classes[slot]]
        .localStates[states[slot]][(code - kSlotCode) % kPositions];
  };
  return e.code.evaluate([&](std::uint32_t code) -> double {
    if (code < kSumCode) return tokens(code, c.slots, slotStates);
    // Σ over tuples of distinct replicas: over tuples of local states, one per slot, the
    // replicas in them (fewer by those already taken for an earlier slot) times the term.
    const OrbitSum& sum = e.sums[code - kSumCode];
    std::vector<std::uint32_t> states(sum.classes.size(), 0);
    double total = 0;
    do {
      double weight = 1;
      for (std::size_t i = 0; i < states.size() && weight > 0; ++i) {
        double taken = 0;
        for (std::size_t j = 0; j < i; ++j)
          taken += sum.classes[j] == sum.classes[i] && states[j] == states[i];
        weight *= std::max(0.0, seen(sum.classes[i], states[i], d, x, c, slotStates) - taken);
      }
      if (weight > 0)
        total += weight *
                 sum.term.evaluate([&](std::uint32_t t) { return tokens(t, sum.classes, states); });
    } while (advance(
        states, [&](std::size_t i) { return model_.replicas[sum.classes[i]].localStates.size(); }));
    return total;
  });
}

double Hybrid::memberRate(const TransitionClass& c, const std::vector<gspn::Tokens>& d,
                          const std::vector<std::uint32_t>& states,
                          const Eigen::VectorXd& x) const {
  if (!c.rateExpression.empty()) return value(c.rateExpression, d, states, c, x);
  if (c.servers == gspn::ServerSemantics::Single) return c.rate;
  // The enabling degree: how many times the member could fire in a row.
  double degree = c.inputs.empty() ? 1 : std::numeric_limits<double>::infinity();
  for (const ClassArc& a : c.inputs) {
    const double tokens =
        a.at.slot
            ? model_.replicas[c.slots[a.at.index]].localStates[states[a.at.index]][a.at.position]
            : d[a.at.index];
    degree = std::min(degree, std::floor(tokens / a.multiplicity));
  }
  if (c.servers == gspn::ServerSemantics::KServer) degree = std::min(degree, double(c.serverCount));
  return c.rate * degree;
}

double Hybrid::eventRate(const Event& e, const Eigen::VectorXd& x) const {
  const TransitionClass& c = model_.classes[e.transitionClass];
  const std::vector<gspn::Tokens>& d = discrete_[e.from];
  double replicas = c.perAssignment;
  for (std::uint32_t s = 0; s < c.slots.size() && replicas > 0; ++s) {
    const Where& w = where_[c.slots[s]][e.states[s]];
    replicas *= std::max(0.0, w.small ? double(d[w.index]) : x[w.index]);
  }
  if (!(replicas > 0)) return 0;
  if (enabled(c, d, e.states, &x) != Enabled::Yes) return 0;
  const double r = memberRate(c, d, e.states, x);
  if (!(r >= 0) || !std::isfinite(r))
    throw UnsupportedModel(c.name, "the rate of " + c.name + " is " + std::to_string(r) +
                                       " where it is enabled, read on the replicas' counts");
  return replicas * r;
}

std::uint32_t Hybrid::nextState(std::uint32_t f, std::uint32_t state, const TransitionClass& c,
                                std::uint32_t slot) const {
  std::vector<gspn::Tokens> tokens = model_.replicas[f].localStates[state];
  for (const ClassArc& a : c.inputs)
    if (a.at.slot && a.at.index == slot) tokens[a.at.position] -= a.multiplicity;
  for (const ClassArc& a : c.outputs)
    if (a.at.slot && a.at.index == slot) tokens[a.at.position] += a.multiplicity;
  const auto it = stateIndex_[f].find(tokens);
  if (it == stateIndex_[f].end())
    throw std::logic_error("mean-field: a local state the exploration of " +
                           model_.replicas[f].label + " did not find");
  return it->second;
}

void Hybrid::moveReplica(Vanishing& v, std::uint32_t f, std::uint32_t from,
                         std::uint32_t to) const {
  const Where& a = where_[f][from];
  const Where& b = where_[f][to];
  if (a.small)
    --v.discrete[a.index];
  else
    addTo(v.counts, a.index, -1);
  if (b.small)
    ++v.discrete[b.index];
  else
    addTo(v.counts, b.index, 1);
}

Hybrid::Vanishing Hybrid::fired(const std::vector<gspn::Tokens>& from, const TransitionClass& c,
                                const std::vector<std::uint32_t>& states) const {
  Vanishing v;
  v.discrete = from;
  for (const ClassArc& a : c.inputs)
    if (!a.at.slot) v.discrete[a.at.index] -= a.multiplicity;
  for (const ClassArc& a : c.outputs)
    if (!a.at.slot) v.discrete[a.at.index] += a.multiplicity;
  for (std::uint32_t s = 0; s < c.slots.size(); ++s) {
    const std::uint32_t f = c.slots[s], to = nextState(f, states[s], c, s);
    moveReplica(v, f, states[s], to);
    v.focus.push_back({f, to});
  }
  return v;
}

std::vector<Hybrid::Choice> Hybrid::choices(const Vanishing& v, const Eigen::VectorXd* x) const {
  std::vector<Choice> out;
  for (std::uint32_t ci = 0; ci < model_.classes.size(); ++ci) {
    const TransitionClass& c = model_.classes[ci];
    if (!c.immediate()) continue;
    // The candidates of each slot: the followed replicas of its class, then the counted
    // ones (their number: the discrete part's, or x with this resolution's moves, less the
    // followed replicas, which are counted among them; unknown before x is).
    struct Candidate {
      Choice::Slot slot;
      double count;
      bool uncertain;
    };
    std::vector<std::vector<Candidate>> candidates(c.slots.size());
    bool none = false;
    for (std::uint32_t s = 0; s < c.slots.size() && !none; ++s) {
      const std::uint32_t f = c.slots[s];
      for (std::uint32_t i = 0; i < v.focus.size(); ++i)
        if (v.focus[i].replicas == f) candidates[s].push_back({{true, i}, 1.0, false});
      for (std::uint32_t state = 0; state < where_[f].size(); ++state) {
        const Where& w = where_[f][state];
        double n = w.small ? double(v.discrete[w.index])
                           : (x ? (*x)[w.index] + changeAt(v.counts, w.index) : 1.0);
        if (w.small || x)
          for (const Focus& g : v.focus) n -= g.replicas == f && g.state == state;
        if (!(n > 1e-12)) continue;
        candidates[s].push_back({{false, state}, n, !w.small && (!x || n < 1)});
      }
      none = candidates[s].empty();
    }
    if (none) continue;
    std::vector<std::uint32_t> pick(c.slots.size(), 0);
    do {
      Choice choice;
      choice.transitionClass = ci;
      choice.weight = c.weight * c.perAssignment;
      choice.priority = c.priority;
      for (std::uint32_t s = 0; s < c.slots.size(); ++s) {
        const Candidate& k = candidates[s][pick[s]];
        choice.slots.push_back(k.slot);
        choice.states.push_back(k.slot.focus ? v.focus[k.slot.index].state : k.slot.index);
        if (k.slot.focus) continue;
        if (k.uncertain) choice.uncertain.push_back(where_[c.slots[s]][k.slot.index].index);
        choice.weight *= std::max(k.count, 1.0);
      }
      const Enabled e = enabled(c, v.discrete, choice.states, x);
      if (e == Enabled::No) continue;
      choice.guardUnknown = e == Enabled::Maybe;
      out.push_back(std::move(choice));
    } while (advance(pick, [&](std::size_t s) { return candidates[s].size(); }));
  }
  return out;
}

Hybrid::Vanishing Hybrid::fire(const Vanishing& v, const Choice& choice) const {
  const TransitionClass& c = model_.classes[choice.transitionClass];
  Vanishing next = v;
  if (++next.depth > kMostImmediateFirings)
    throw UnsupportedModel(c.name, "immediate transitions fire without end (" + c.name +
                                       " among them): a loop of immediate transitions");
  for (const ClassArc& a : c.inputs)
    if (!a.at.slot) next.discrete[a.at.index] -= a.multiplicity;
  for (const ClassArc& a : c.outputs)
    if (!a.at.slot) next.discrete[a.at.index] += a.multiplicity;
  for (std::uint32_t s = 0; s < c.slots.size(); ++s) {
    const std::uint32_t f = c.slots[s];
    const std::uint32_t from = choice.states[s], to = nextState(f, from, c, s);
    moveReplica(next, f, from, to);
    if (choice.slots[s].focus)
      next.focus[choice.slots[s].index].state = to;
    else
      next.focus.push_back({f, to});
  }
  const auto fired = std::find_if(next.fired.begin(), next.fired.end(), [&](const auto& kv) {
    return kv.first == choice.transitionClass;
  });
  if (fired == next.fired.end())
    next.fired.emplace_back(choice.transitionClass, 1);
  else
    ++fired->second;
  return next;
}

void Hybrid::resolve(const Vanishing& v, double probability, const Eigen::VectorXd& x,
                     std::vector<Outcome>& out, std::size_t& branches) const {
  if (++branches > limits_.resolutionBranches)
    throw UnsupportedModel(model_.name, "a resolution of immediate transitions takes more than " +
                                            std::to_string(limits_.resolutionBranches) +
                                            " branches");
  const std::vector<Choice> all = choices(v, &x);
  // The counts below 1 these choices need, each holding a replica with probability x_ℓ.
  std::vector<std::uint32_t> uncertain;
  for (const Choice& c : all)
    uncertain.insert(uncertain.end(), c.uncertain.begin(), c.uncertain.end());
  std::sort(uncertain.begin(), uncertain.end());
  uncertain.erase(std::unique(uncertain.begin(), uncertain.end()), uncertain.end());
  if (uncertain.size() > kMostUncertainCounts)
    throw UnsupportedModel(model_.name, "a vanishing marking waits on " +
                                            std::to_string(uncertain.size()) +
                                            " counts of replicas below 1 at once");
  std::vector<double> present(uncertain.size());
  for (std::size_t i = 0; i < uncertain.size(); ++i) {
    const std::uint32_t at = uncertain[i];
    double n = x[at] + changeAt(v.counts, at);
    for (const Focus& g : v.focus)
      n -= !where_[g.replicas][g.state].small && where_[g.replicas][g.state].index == at;
    present[i] = std::clamp(n, 0.0, 1.0);
  }
  for (std::size_t scenario = 0; scenario < (std::size_t(1) << uncertain.size()); ++scenario) {
    double p = probability;
    for (std::size_t i = 0; i < uncertain.size(); ++i)
      p *= (scenario >> i & 1) ? present[i] : 1 - present[i];
    if (!(p > 0)) continue;
    const auto available = [&](const Choice& c) {
      return std::all_of(c.uncertain.begin(), c.uncertain.end(), [&](std::uint32_t at) {
        const auto i = std::lower_bound(uncertain.begin(), uncertain.end(), at) - uncertain.begin();
        return (scenario >> i & 1) != 0;
      });
    };
    std::uint32_t top = 0;
    double total = 0;
    for (const Choice& c : all)
      if (available(c)) top = std::max(top, c.priority);
    for (const Choice& c : all)
      if (available(c) && c.priority == top) total += c.weight;
    if (!(total > 0)) {
      const auto it = discreteIndex_.find(v.discrete);
      if (it == discreteIndex_.end())
        throw UnsupportedModel(
            model_.name,
            "the mean field reaches a marking of the part that is not replicated "
            "that the net cannot reach: that part and the replicas' counts are "
            "tied more closely than counts taken apart from it can follow; solve "
            "the model exactly or simulate it");
      out.push_back({it->second, p, v.counts, v.fired});
      continue;
    }
    for (const Choice& c : all)
      if (available(c) && c.priority == top)
        resolve(fire(v, c), p * c.weight / total, x, out, branches);
  }
}

bool Hybrid::resolveAll(const Vanishing& v, std::vector<Outcome>& out, std::size_t& branches) {
  if (++branches > limits_.resolutionBranches)
    throw UnsupportedModel(model_.name, "a resolution of immediate transitions takes more than " +
                                            std::to_string(limits_.resolutionBranches) +
                                            " branches");
  // A value no P-semiflow allows is no marking of the net (a large count, assumed there,
  // that cannot be).
  if (!admissible(v.discrete)) return false;
  const std::vector<Choice> all = choices(v, nullptr);
  // What fires whatever the counts bars every lower priority and the tangible end; what
  // needs a replica from the counts, or reads them in its guard, may or may not fire.
  std::uint32_t certainTop = 0;
  bool certain = false, dependent = false;
  for (const Choice& c : all) {
    const bool sure = c.uncertain.empty() && !c.guardUnknown;
    dependent = dependent || !sure;
    if (sure) {
      certainTop = std::max(certainTop, c.priority);
      certain = true;
    }
  }
  if (!certain) out.push_back({indexOf(v.discrete), 1.0, v.counts, v.fired});
  for (const Choice& c : all)
    if (!certain || c.priority >= certainTop)
      dependent = resolveAll(fire(v, c), out, branches) || dependent;
  return dependent;
}

const std::vector<Hybrid::Outcome>& Hybrid::outcomesOf(const Event& e, const Eigen::VectorXd& x,
                                                       std::vector<Outcome>& scratch) const {
  if (!e.countDependent) return e.outcomes;
  scratch.clear();
  std::size_t branches = 0;
  resolve(fired(discrete_[e.from], model_.classes[e.transitionClass], e.states), 1.0, x, scratch,
          branches);
  return scratch;
}

void Hybrid::groupRates() {
  // Per class, the components of a discrete value its rate reads: the fixed places of its
  // arcs, expressions and orbit sums' terms, and the small counts of the classes of
  // replicas it reads.
  std::vector<std::vector<std::uint32_t>> reads(model_.classes.size());
  for (std::size_t ci = 0; ci < model_.classes.size(); ++ci) {
    const TransitionClass& c = model_.classes[ci];
    std::set<std::uint32_t> read;
    std::set<std::uint32_t> classes(c.slots.begin(), c.slots.end());
    for (const auto* arcs : {&c.inputs, &c.inhibitors})
      for (const ClassArc& a : *arcs)
        if (!a.at.slot) read.insert(a.at.index);
    for (const PopulationExpression* e : {&c.rateExpression, &c.guard}) {
      const auto fixed = [&](const gspn::Expression& x) {
        for (const gspn::Expression::Instruction& in : x.code())
          if (in.op == gspn::Expression::Op::Tokens && in.index < kSlotCode) read.insert(in.index);
      };
      fixed(e->code);
      for (const OrbitSum& sum : e->sums) {
        fixed(sum.term);
        classes.insert(sum.classes.begin(), sum.classes.end());
      }
    }
    for (std::uint32_t f : classes)
      for (const Where& w : where_[f])
        if (w.small) read.insert(w.index);
    reads[ci].assign(read.begin(), read.end());
  }
  std::map<std::vector<std::uint32_t>, std::uint32_t> groups;
  for (std::uint32_t i = 0; i < events_.size(); ++i) {
    Event& e = events_[i];
    std::vector<std::uint32_t> key{e.transitionClass};
    key.insert(key.end(), e.states.begin(), e.states.end());
    for (std::uint32_t at : reads[e.transitionClass]) key.push_back(discrete_[e.from][at]);
    const auto [it, fresh] = groups.try_emplace(std::move(key), std::uint32_t(groupEvent_.size()));
    if (fresh) groupEvent_.push_back(i);
    e.group = it->second;
  }
}

Eigen::VectorXd Hybrid::evaluate(const Eigen::VectorXd& y, Eigen::MatrixXd* perValue,
                                 std::vector<double>* flows) const {
  const auto values = Eigen::Index(discrete_.size());
  const Eigen::VectorXd p = y.head(values).cwiseMax(0.0);
  const Eigen::VectorXd x = y.tail(y.size() - values).cwiseMax(0.0);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(y.size());
  if (perValue) perValue->setZero(y.size(), values);
  if (flows) flows->assign(model_.classes.size(), 0.0);
  // Each group's rate once: events of one group differ only where their class does not
  // read the discrete part.
  std::vector<double> rates(groupEvent_.size(), -1);
  std::vector<Outcome> scratch;
  for (const Event& e : events_) {
    if (!perValue && !(p[e.from] > 0)) continue;
    double& rate = rates[e.group];
    if (rate < 0) rate = eventRate(events_[groupEvent_[e.group]], x);
    if (!(rate > 0)) continue;
    const double flow = p[e.from] * rate;
    if (flows) (*flows)[e.transitionClass] += flow;
    out[e.from] -= flow;
    if (perValue) (*perValue)(e.from, e.from) -= rate;
    for (const Outcome& o : outcomesOf(e, x, scratch)) {
      out[o.discrete] += flow * o.probability;
      if (perValue) (*perValue)(o.discrete, e.from) += rate * o.probability;
      for (const auto& [i, d] : o.counts) {
        out[values + i] += flow * o.probability * d;
        if (perValue) (*perValue)(values + i, e.from) += rate * o.probability * d;
      }
      if (flows)
        for (const auto& [k, n] : o.fired) (*flows)[k] += flow * o.probability * n;
    }
  }
  return out;
}

Eigen::VectorXd Hybrid::drift(const Eigen::VectorXd& y) const {
  return evaluate(y, nullptr, nullptr);
}

std::vector<double> Hybrid::classFlows(const Eigen::VectorXd& y) const {
  std::vector<double> flows;
  evaluate(y, nullptr, &flows);
  return flows;
}

double Hybrid::flowScale(const Eigen::VectorXd& y) const {
  const std::vector<double> flows = classFlows(y);
  return flows.empty() ? 0.0 : *std::max_element(flows.begin(), flows.end());
}

Eigen::MatrixXd Hybrid::jacobian(const Eigen::VectorXd& y) const {
  // Linear in p: its columns exactly; in the counts, forward differences.
  const auto values = Eigen::Index(discrete_.size());
  Eigen::MatrixXd perValue;
  const Eigen::VectorXd base = evaluate(y, &perValue, nullptr);
  Eigen::MatrixXd out(y.size(), y.size());
  out.leftCols(values) = perValue;
  for (Eigen::Index i = values; i < y.size(); ++i) {
    const double h = 1e-7 * std::max(1.0, std::abs(y[i]));
    Eigen::VectorXd moved = y;
    moved[i] = std::max(0.0, y[i]) + h;
    out.col(i) = (drift(moved) - base) / h;
  }
  return out;
}

std::vector<std::string> Hybrid::kinks(const Eigen::VectorXd& y) const {
  std::vector<std::string> out;
  const Eigen::VectorXd base = drift(y);
  const double scale = std::max(flowScale(y), 1e-300);
  for (auto i = Eigen::Index(discrete_.size()); i < y.size(); ++i) {
    const double h = 1e-6 * std::max(1.0, std::abs(y[i]));
    if (y[i] < h) continue;  // a count at 0 bounds its own flows from below
    Eigen::VectorXd up = y, down = y;
    up[i] += h;
    down[i] -= h;
    const Eigen::VectorXd right = (drift(up) - base) / h, left = (base - drift(down)) / h;
    if ((right - left).lpNorm<Eigen::Infinity>() >
        1e-3 * std::max(right.lpNorm<Eigen::Infinity>(), scale / std::max(1.0, y[i])))
      out.push_back(name(i));
  }
  return out;
}

double Hybrid::replicasIn(const Eigen::VectorXd& y, std::uint32_t f, std::uint32_t state) const {
  const Where& w = where_[f][state];
  if (!w.small) return std::max(0.0, y[Eigen::Index(discrete_.size() + w.index)]);
  double n = 0;
  for (std::size_t d = 0; d < discrete_.size(); ++d)
    n += std::max(0.0, y[Eigen::Index(d)]) * discrete_[d][w.index];
  return n;
}

double Hybrid::replicasIn(const Eigen::VectorXd& y, std::size_t d, std::uint32_t f,
                          std::uint32_t state) const {
  const Where& w = where_[f][state];
  return w.small ? double(discrete_[d][w.index])
                 : std::max(0.0, y[Eigen::Index(discrete_.size() + w.index)]);
}

std::string Hybrid::name(Eigen::Index i) const {
  const auto values = Eigen::Index(discrete_.size());
  std::string out;
  if (i < values) {
    const std::vector<gspn::Tokens>& d = discrete_[std::size_t(i)];
    for (std::size_t k = 0; k < model_.fixedPlaces.size(); ++k)
      if (d[k] > 0)
        out += (out.empty() ? "" : ", ") + model_.fixedNames[k] +
               (d[k] > 1 ? "=" + std::to_string(d[k]) : std::string());
    for (std::uint32_t f = 0; f < where_.size(); ++f)
      for (std::uint32_t s = 0; s < where_[f].size(); ++s)
        if (where_[f][s].small && d[where_[f][s].index] > 0)
          out += (out.empty() ? "" : ", ") + std::to_string(d[where_[f][s].index]) + " " +
                 model_.replicas[f].label + " in {" + model_.replicas[f].describe(s) + "}";
    return "{" + out + "}";
  }
  const auto at = std::uint32_t(i - values);
  for (std::uint32_t f = 0; f < where_.size(); ++f)
    for (std::uint32_t s = 0; s < where_[f].size(); ++s)
      if (!where_[f][s].small && where_[f][s].index == at)
        return model_.replicas[f].label + " in {" + model_.replicas[f].describe(s) + "}";
  return "?";
}

std::string Hybrid::describe(Eigen::Index i) const {
  if (i < Eigen::Index(discrete_.size())) return "the probability of " + name(i);
  return "the count of " + name(i);
}

}  // namespace mmt::meanfield
