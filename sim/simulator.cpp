#include "sim/simulator.hpp"

#include <algorithm>
#include <boost/random/exponential_distribution.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "gspn/vanishing.hpp"

namespace mmt::sim {

Delays parseDelays(const std::string& name) {
  for (Delays d : {Delays::Declared, Delays::Exponential, Delays::Constant})
    if (name == toString(d)) return d;
  throw std::invalid_argument("unknown delays '" + name +
                              "'; expected declared, exponential or constant");
}

const char* toString(Delays delays) {
  switch (delays) {
    case Delays::Declared:
      return "declared";
    case Delays::Exponential:
      return "exponential";
    case Delays::Constant:
      return "constant";
  }
  return "?";
}

double Replication::meanTokens(gspn::PlaceId p) const { return area[p] / observedTime_; }

double Replication::throughput(gspn::TransitionId t) const {
  return static_cast<double>(firings[t]) / observedTime_;
}

double Replication::expectation(const std::function<double(gspn::MarkingView)>& f,
                                std::span<const gspn::PlaceId>) const {
  if (!recorded)
    throw std::logic_error("Replication::expectation: the run did not record markings");
  std::vector<gspn::Tokens> m(markings.placeCount());
  double sum = 0;
  for (std::uint32_t s = 0; s < timeIn.size(); ++s) {
    if (timeIn[s] == 0) continue;
    markings.decode(s, m);
    sum += timeIn[s] * f(m);
  }
  return sum / observedTime_;
}

namespace {

/// For each transition, the transitions whose enabling, server count or rate may change
/// when it fires: those reading (input, inhibitor, rate, guard or multiplicity expression) a
/// place whose count the firing changes. Includes the transition itself.
std::vector<std::vector<gspn::TransitionId>> dependents(const gspn::Net& net) {
  const std::size_t places = net.placeCount(), transitions = net.transitionCount();
  std::vector<std::vector<gspn::TransitionId>> readers(places);
  auto reads = [&](gspn::TransitionId t, gspn::PlaceId p) {
    if (readers[p].empty() || readers[p].back() != t) readers[p].push_back(t);
  };
  auto readsExpression = [&](gspn::TransitionId t, const gspn::Expression& e) {
    for (gspn::PlaceId p : gspn::placesRead(e)) reads(t, p);
  };
  for (gspn::TransitionId t = 0; t < transitions; ++t) {
    for (const gspn::Arc& a : net.inputs(t)) reads(t, a.place);
    for (const gspn::Arc& a : net.inhibitors(t)) reads(t, a.place);
    readsExpression(t, net.transition(t).rateExpression);
    readsExpression(t, net.transition(t).guard);
    for (auto arcs : {net.inputs(t), net.outputs(t), net.inhibitors(t)})
      for (const gspn::Arc& a : arcs)
        if (a.expression != gspn::Arc::kConstant)
          readsExpression(t, net.arcExpressions()[a.expression]);
  }
  std::vector<std::vector<gspn::TransitionId>> out(transitions);
  for (gspn::TransitionId t = 0; t < transitions; ++t) {
    std::vector<gspn::TransitionId>& list = out[t];
    list.push_back(t);
    auto touch = [&](gspn::PlaceId p) {
      list.insert(list.end(), readers[p].begin(), readers[p].end());
    };
    for (const gspn::Arc& a : net.inputs(t)) touch(a.place);
    for (const gspn::Arc& a : net.outputs(t)) touch(a.place);
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return out;
}

/// The timed transitions with a running clock, ordered by their earliest clock, ties by
/// transition id: a binary heap indexed by transition (Cormen et al., Introduction to
/// Algorithms, 3rd ed., §6.5), so that a transition whose clocks change is moved in the
/// heap rather than pushed again. The heap holds at most one entry per transition and
/// never a stale one: an event costs a sift over log(enabled transitions) entries.
class EventQueue {
 public:
  explicit EventQueue(std::size_t transitions)
      : due_(transitions, std::numeric_limits<double>::infinity()),
        position_(transitions, kAbsent) {}
  bool empty() const { return heap_.empty(); }
  /// The transition with the earliest clock, and that clock (the queue must not be empty).
  gspn::TransitionId top() const { return heap_.front(); }
  double topTime() const { return due_[heap_.front()]; }
  /// Puts t in the queue at time `due`, or moves it there.
  void set(gspn::TransitionId t, double due) {
    const double before = due_[t];
    due_[t] = due;
    std::uint32_t i = position_[t];
    if (i == kAbsent) {
      i = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back(t);
      position_[t] = i;
      siftUp(i);
    } else if (due < before) {
      siftUp(i);
    } else {
      siftDown(i);
    }
  }
  /// Takes t out of the queue, if it is in.
  void remove(gspn::TransitionId t) {
    const std::uint32_t i = position_[t];
    if (i == kAbsent) return;
    position_[t] = kAbsent;
    const gspn::TransitionId last = heap_.back();
    heap_.pop_back();
    if (last == t) return;
    heap_[i] = last;
    position_[last] = i;
    siftUp(i);
    siftDown(position_[last]);
  }

 private:
  static constexpr std::uint32_t kAbsent = 0xffffffffu;
  bool before(gspn::TransitionId a, gspn::TransitionId b) const {
    return due_[a] < due_[b] || (due_[a] == due_[b] && a < b);
  }
  void place(std::uint32_t i, gspn::TransitionId t) {
    heap_[i] = t;
    position_[t] = i;
  }
  void siftUp(std::uint32_t i) {
    const gspn::TransitionId t = heap_[i];
    while (i > 0) {
      const std::uint32_t parent = (i - 1) / 2;
      if (!before(t, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, t);
  }
  void siftDown(std::uint32_t i) {
    const gspn::TransitionId t = heap_[i];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    for (;;) {
      std::uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], t)) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, t);
  }
  std::vector<double> due_;              ///< by transition: its earliest clock
  std::vector<std::uint32_t> position_;  ///< by transition: its index in heap_, or kAbsent
  std::vector<gspn::TransitionId> heap_;
};

/// The rates of the exponential transitions in the current marking, as a complete binary
/// tree of partial sums: the total rate Λ at the root, a change of one rate and the choice
/// of a transition with probability rate / Λ in log2(transitions) steps each. Every sum is
/// recomputed from its two children, so no rounding accumulates over a run.
class RateTree {
 public:
  explicit RateTree(std::size_t leaves) {
    while (width_ < leaves) width_ *= 2;
    sum_.assign(2 * width_, 0.0);
  }
  double total() const { return sum_[1]; }
  void set(std::uint32_t leaf, double rate) {
    std::size_t i = width_ + leaf;
    if (sum_[i] == rate) return;
    sum_[i] = rate;
    // The running sum stays in a register: each parent is its children's sum (addition
    // commutes exactly), without reloading the child just stored.
    for (double sum = rate; i > 1; i /= 2) {
      sum += sum_[i ^ 1];
      sum_[i / 2] = sum;
    }
  }
  /// The leaf whose rates' cumulative sum first exceeds u, 0 <= u < total() (which must be
  /// positive). A subtree whose sum is 0 is never entered, even where rounding puts u past
  /// the last positive rate.
  std::uint32_t pick(double u) const {
    std::size_t i = 1;
    while (i < width_) {
      const double left = sum_[2 * i];
      if (u < left || sum_[2 * i + 1] == 0) {
        i = 2 * i;
      } else {
        u -= left;
        i = 2 * i + 1;
      }
    }
    return static_cast<std::uint32_t>(i - width_);
  }

 private:
  std::size_t width_ = 1;
  std::vector<double> sum_;  ///< 1-based heap layout: node i has children 2i and 2i + 1
};

}  // namespace

namespace detail {

class Engine {
 public:
  Engine(const gspn::Net& net, const ReplicationSettings& settings, std::uint64_t index)
      : net_(net),
        settings_(settings),
        dependents_(dependents(net)),
        plainRate_(net.transitionCount(), 0.0),
        clocks_(net.transitionCount()),
        clockRate_(net.transitionCount(), 0.0),
        queue_(net.transitionCount()),
        immediateEnabled_(net.transitionCount(), 0),
        marking_(net.initialMarking()),
        next_(marking_.size()),
        lastChange_(net.placeCount(), 0.0),
        result_(net.placeCount()) {
    // The path's stream is seeded with (seed, index); the window's edges have a stream of
    // their own, the same words and a fifth, so the path is the same whatever the edges.
    std::vector<std::uint32_t> words{
        static_cast<std::uint32_t>(settings.seed), static_cast<std::uint32_t>(settings.seed >> 32),
        static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32)};
    std::seed_seq seq(words.begin(), words.end());
    random_.seed(seq);
    warmupEvents_ = settings.warmupEvents;
    windowEvents_ = settings.events;
    if (settings.extraEvents > 0) {
      words.push_back(0x77696e64u);
      std::seed_seq window(words.begin(), words.end());
      gspn::RandomEngine edges(window);
      std::uniform_int_distribution<std::uint64_t> extra(0, settings.extraEvents);
      warmupEvents_ += extra(edges);
      windowEvents_ += extra(edges);
    }
    result_.firings.assign(net.transitionCount(), 0);
    for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t) {
      const gspn::Transition& tr = net.transition(t);
      if (!net.isImmediate(t) && tr.servers == gspn::ServerSemantics::Single &&
          tr.rateExpression.empty() && !net.hasMarkingDependentArcs(t) &&
          !(settings.delays == Delays::Declared && tr.declaredDelay))
        plainRate_[t] = tr.rate;
    }
    // Exponential delays are memoryless: their transitions keep no clocks but a rate in
    // the tree, and each event samples the next exponential firing afresh.
    leaf_.assign(net.transitionCount(), kNoLeaf);
    for (gspn::TransitionId t : net.timedTransitions())
      if (settings.delays == Delays::Exponential ||
          (settings.delays == Delays::Declared && !net.transition(t).declaredDelay)) {
        leaf_[t] = static_cast<std::uint32_t>(exponential_.size());
        exponential_.push_back(t);
      }
    rates_ = RateTree(exponential_.size());
    // The enabling test of each plain transition as one range per place it reads (a net
    // holds at most one input and one inhibitor arc per place and transition: freeze
    // merges the others).
    testStart_.push_back(0);
    for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t) {
      if (plainRate_[t] > 0 && !net.hasMarkingDependentEnabling(t)) {
        const std::size_t first = tests_.size();
        for (const gspn::Arc& a : net.inputs(t))
          tests_.push_back({a.place, a.multiplicity, (std::uint64_t{1} << 32) - a.multiplicity});
        for (const gspn::Arc& a : net.inhibitors(t)) {
          auto input = std::find_if(tests_.begin() + std::ptrdiff_t(first), tests_.end(),
                                    [&](const CountRange& r) { return r.place == a.place; });
          const gspn::Tokens low = input != tests_.end() ? input->low : 0;
          const std::uint64_t width = a.multiplicity > low ? a.multiplicity - low : 0;
          if (input != tests_.end())
            input->width = width;
          else
            tests_.push_back({a.place, 0, width});
        }
      }
      testStart_.push_back(static_cast<std::uint32_t>(tests_.size()));
    }
    // The net change of each place a transition with constant arcs moves tokens in, in
    // the order of its arcs; `delta` is all zero between transitions.
    changeStart_.push_back(0);
    std::vector<std::int64_t> delta(net.placeCount(), 0);
    for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t) {
      if (!net.hasMarkingDependentArcs(t)) {
        for (const gspn::Arc& a : net.inputs(t)) delta[a.place] -= a.multiplicity;
        for (const gspn::Arc& a : net.outputs(t)) delta[a.place] += a.multiplicity;
        for (auto arcs : {net.inputs(t), net.outputs(t)})
          for (const gspn::Arc& a : arcs)
            if (delta[a.place] != 0) {
              changes_.push_back({a.place, delta[a.place]});
              delta[a.place] = 0;
            }
      }
      changeStart_.push_back(static_cast<std::uint32_t>(changes_.size()));
    }
  }

  Replication run();
  Schedule findSchedule(std::uint64_t maxFirings);

 private:
  /// What decides the rest of a path without randomness: the marking and the remaining
  /// time of each running clock, in start order (clocks: transition, count, ...).
  struct State {
    std::vector<gspn::Tokens> marking;
    std::vector<std::uint32_t> clocks;
    std::vector<double> remaining;
    /// Equal markings and clocks, remaining times within 1e-12 × max(1, now).
    bool recurs(const State& later, double now) const;
  };
  void capture(State& state) const;
  /// One timed firing (the earliest clock, or an exponential transition) and the immediate
  /// firings after it; the window, when open, opened at `observedFrom`.
  /// The next event; false when the marking is dead and ReplicationSettings::untilDead
  /// ends the run there (else a dead marking throws).
  bool advance(double observedFrom);
  /// A marking-dependent rate with infinite-server semantics is shared equally by the
  /// enabled servers, each with a clock of its own: processor sharing (docs/modelling.md,
  /// "Processors"). Otherwise a marking-dependent rate drives one clock.
  bool sharedRate(gspn::TransitionId t) const {
    const gspn::Transition& tr = net_.transition(t);
    return !tr.rateExpression.empty() && tr.servers == gspn::ServerSemantics::Infinite;
  }
  /// Busy servers of timed t in the current marking.
  std::uint32_t servers(gspn::TransitionId t) const {
    if (!net_.isEnabled(t, marking_)) return 0;
    const gspn::Transition& tr = net_.transition(t);
    if (sharedRate(t)) return net_.enablingDegree(t, marking_);
    if (!tr.rateExpression.empty() || tr.servers == gspn::ServerSemantics::Single) return 1;
    const std::uint32_t e = net_.enablingDegree(t, marking_);
    return tr.servers == gspn::ServerSemantics::Infinite ? e : std::min(e, tr.serverCount);
  }
  /// Rate of one server of t in the current marking.
  double serverRate(gspn::TransitionId t) const {
    const gspn::Transition& tr = net_.transition(t);
    if (tr.rateExpression.empty()) return tr.rate;
    const double total = net_.rate(t, marking_);
    return sharedRate(t) ? total / net_.enablingDegree(t, marking_) : total;
  }
  double delay(gspn::TransitionId t) {
    const double rate = serverRate(t);
    if (!(rate > 0)) return std::numeric_limits<double>::infinity();
    if (settings_.delays == Delays::Declared)
      if (const auto& declared = net_.transition(t).declaredDelay) {
        if (declared->variance() > 0) randomPath_ = true;
        return declared->sample(random_);
      }
    return delayAt(rate);
  }
  /// A delay of a server working at `rate` (> 0) with no declared delay in use: 1/rate
  /// under constant delays, exponential otherwise.
  double delayAt(double rate) {
    if (settings_.delays == Delays::Constant) return 1.0 / rate;
    randomPath_ = true;
    return boost::random::exponential_distribution<double>(rate)(random_);
  }
  /// Brings t's clocks in line with the current marking and reschedules it.
  void update(gspn::TransitionId t);
  void schedule(gspn::TransitionId t) {
    const auto& c = clocks_[t];
    if (c.empty())
      queue_.remove(t);
    else
      queue_.set(t, *std::min_element(c.begin(), c.end()));
  }
  void fire(gspn::TransitionId t, bool observed);
  /// Throws the SimulationError of a marking where no timed transition can fire.
  [[noreturn]] void deadlock() const;
  /// Fires immediate transitions until the marking is tangible.
  void resolveImmediate(bool observed);
  void observeMarking(double from, double to);
  /// Adds to ∫ m(p) dt the time since p's count last changed, spent at `count`, and
  /// marks the count as changing now.
  void integrate(gspn::PlaceId p, gspn::Tokens count) {
    result_.area[p] += count * (now_ - lastChange_[p]);
    lastChange_[p] = now_;
  }

  const gspn::Net& net_;
  const ReplicationSettings& settings_;
  std::vector<std::vector<gspn::TransitionId>> dependents_;
  /// Rate of each timed transition with one server, a constant positive rate, constant
  /// arcs and no declared delay in use; 0 for the others (update's fast path).
  std::vector<double> plainRate_;
  /// The timed transitions whose delays are exponential, by their leaf in `rates_`
  /// (`leaf_` maps back; kNoLeaf for the transitions with clocks and the immediate ones).
  static constexpr std::uint32_t kNoLeaf = 0xffffffffu;
  std::vector<gspn::TransitionId> exponential_;
  /// For each transition with constant arcs, the places whose counts its firing changes
  /// and by how much: changes_[changeStart_[t] .. changeStart_[t + 1]).
  struct Change {
    gspn::PlaceId place;
    std::int64_t delta;
  };
  std::vector<Change> changes_;
  std::vector<std::uint32_t> changeStart_;
  /// The enabling test of each plain transition (plainRate_ > 0) whose enabling reads only
  /// counts: low ≤ m(place) < low + width for each of tests_[testStart_[t] ..
  /// testStart_[t + 1]), its inputs' multiplicities as `low`, its inhibitors' as the bound.
  /// One unsigned comparison a place and no early exit, so no branch to mispredict.
  struct CountRange {
    gspn::PlaceId place;
    gspn::Tokens low;
    std::uint64_t width;
  };
  std::vector<CountRange> tests_;
  std::vector<std::uint32_t> testStart_;
  /// Whether plain transition t is enabled in the current marking.
  bool plainEnabled(gspn::TransitionId t) const {
    const std::uint32_t first = testStart_[t], last = testStart_[t + 1];
    if (first == last && net_.hasMarkingDependentEnabling(t)) return net_.isEnabled(t, marking_);
    bool enabled = true;
    for (std::uint32_t k = first; k < last; ++k)
      enabled &=
          std::uint64_t{static_cast<gspn::Tokens>(marking_[tests_[k].place] - tests_[k].low)} <
          tests_[k].width;
    return enabled;
  }
  std::vector<std::uint32_t> leaf_;
  RateTree rates_{0};
  std::vector<std::vector<double>> clocks_;  ///< scheduled firing times, in start order
  std::vector<double> clockRate_;  ///< marking-dependent rate: per-server rate of the clocks
  EventQueue queue_;
  std::vector<char> immediateEnabled_;
  std::vector<gspn::TransitionId> enabledImmediate_;
  std::vector<gspn::Tokens> marking_, next_;
  std::vector<double> lastChange_;  ///< when each place's count last changed (or the window opened)
  bool observing_ = false;
  gspn::RandomEngine random_;
  double now_ = 0;
  Replication result_;
  std::uint32_t currentState_ = 0;
  /// Set once a random draw decides the path (a delay with variance, a choice between
  /// immediate transitions that matters).
  bool randomPath_ = false;
  /// Timed firings deleted and observed: ReplicationSettings::warmupEvents and events,
  /// each with this replication's extra.
  std::uint64_t warmupEvents_ = 0, windowEvents_ = 0;
  /// Only while looking for a schedule: resolves a marking where several immediate
  /// transitions are enabled, to tell a conflict from concurrency.
  std::optional<gspn::VanishingEliminator> vanishing_;
  /// True when every order of the immediate firings from the current marking ends in the
  /// same tangible marking with the same firings.
  bool confluent();
};

void Engine::update(gspn::TransitionId t) {
  if (const std::uint32_t leaf = leaf_[t]; leaf != kNoLeaf) {
    // Exponential: the transition's total rate over its servers, as in exploration.
    const double plain = plainRate_[t];
    rates_.set(leaf, plain > 0 ? (plainEnabled(t) ? plain : 0.0) : net_.rate(t, marking_));
    return;
  }
  if (const double rate = plainRate_[t]; rate > 0) {
    // The common case, read from one array: one server, a constant rate, an exponential
    // or constant delay. The same steps as below, without their tests.
    auto& c = clocks_[t];
    const bool enabled = plainEnabled(t);
    if (enabled == !c.empty()) return;
    if (enabled)
      c.push_back(now_ + delayAt(rate));
    else
      c.clear();
    schedule(t);
    return;
  }
  if (net_.isImmediate(t)) {
    const bool enabled = net_.isEnabled(t, marking_);
    if (enabled && !immediateEnabled_[t]) enabledImmediate_.push_back(t);
    immediateEnabled_[t] = enabled;
    return;
  }
  auto& c = clocks_[t];
  const std::uint32_t busy = servers(t);
  const bool markingDependentRate = !net_.transition(t).rateExpression.empty();
  if (!markingDependentRate && busy == c.size()) return;
  if (markingDependentRate) {
    const double rate = busy > 0 ? serverRate(t) : 0.0, before = clockRate_[t];
    clockRate_[t] = rate;
    // (Exponential delays never get here: their transitions are in the rate tree.)
    if (!(before > 0) || !(rate > 0)) {
      // A clock stopped at rate 0 has no remaining work to keep; it starts afresh.
      c.clear();
    } else if (rate != before) {
      // Work-conserving: the remaining work of each server is kept, done at the new speed.
      for (double& due : c) due = now_ + (due - now_) * (before / rate);
    } else if (busy == c.size()) {
      return;
    }
  }
  if (busy < c.size()) c.resize(busy);  // the most recently started servers stop
  while (c.size() < busy) c.push_back(now_ + delay(t));
  schedule(t);
}

void Engine::fire(gspn::TransitionId t, bool observed) {
  if (!net_.hasMarkingDependentArcs(t)) {
    // Constant arcs: the precomputed changes, each place once. A count that would overflow
    // is left to Net::fire, which says so before anything changes.
    const Change* begin = changes_.data() + changeStart_[t];
    const Change* end = changes_.data() + changeStart_[t + 1];
    for (const Change* c = begin; c != end; ++c)
      if (c->delta > 0 && marking_[c->place] > std::numeric_limits<gspn::Tokens>::max() - c->delta)
        net_.fire(t, marking_, next_);
    for (const Change* c = begin; c != end; ++c) {
      if (observing_) integrate(c->place, marking_[c->place]);
      marking_[c->place] = static_cast<gspn::Tokens>(marking_[c->place] + c->delta);
    }
  } else {
    // Multiplicities read the marking before the firing: fire into the spare buffer, then
    // integrate the places whose counts changed.
    net_.fire(t, marking_, next_);
    marking_.swap(next_);
    if (observing_)
      for (auto arcs : {net_.inputs(t), net_.outputs(t)})
        for (const gspn::Arc& a : arcs)
          if (marking_[a.place] != next_[a.place]) integrate(a.place, next_[a.place]);
  }
  ++result_.events_;
  if (observed) ++result_.firings[t];
  for (gspn::TransitionId u : dependents_[t]) update(u);
}

bool Engine::confluent() {
  if (vanishing_->resolve(marking_) != gspn::VanishingEliminator::Status::Ok) return false;
  if (vanishing_->exits().size() != 1) return false;
  for (const auto& [transition, count] : vanishing_->firings())
    if (std::abs(count - std::round(count)) > 1e-9 * std::max(1.0, count)) return false;
  return true;
}

void Engine::resolveImmediate(bool observed) {
  std::uint64_t chain = 0;
  // Whether the choices from the first marking with several candidates on can change
  // the outcome (looked at only while looking for a schedule).
  std::optional<bool> confluentFromHere;
  for (;;) {
    // Drop the entries no longer enabled, then pick among the highest priority.
    std::erase_if(enabledImmediate_, [&](gspn::TransitionId u) { return !immediateEnabled_[u]; });
    if (enabledImmediate_.empty()) return;
    if (++chain > settings_.maxImmediateChain)
      throw SimulationError(
          "timeless trap: more than " + std::to_string(settings_.maxImmediateChain) +
          " immediate firings without time passing, at " + net_.describe(marking_));
    std::uint32_t top = 0;
    double largest = 0;
    for (gspn::TransitionId u : enabledImmediate_) top = std::max(top, net_.transition(u).priority);
    for (gspn::TransitionId u : enabledImmediate_)
      if (net_.transition(u).priority == top)
        largest = std::max(largest, net_.transition(u).weight);
    // Weights relative to the largest, so that their sum stays finite (as in exploration).
    double total = 0;
    std::size_t candidates = 0;
    for (gspn::TransitionId u : enabledImmediate_)
      if (net_.transition(u).priority == top) {
        total += net_.transition(u).weight / largest;
        ++candidates;
      }
    if (candidates > 1 && !randomPath_) {
      if (!confluentFromHere) confluentFromHere = vanishing_ && confluent();
      if (!*confluentFromHere) randomPath_ = true;
    }
    double pick = std::uniform_real_distribution<double>(0, total)(random_);
    gspn::TransitionId chosen = enabledImmediate_.front();
    for (gspn::TransitionId u : enabledImmediate_) {
      if (net_.transition(u).priority != top) continue;
      chosen = u;
      pick -= net_.transition(u).weight / largest;
      if (pick < 0) break;
    }
    fire(chosen, observed);
  }
}

void Engine::observeMarking(double from, double to) {
  if (to <= from) return;
  if (currentState_ >= result_.timeIn.size()) result_.timeIn.resize(currentState_ + 1, 0.0);
  result_.timeIn[currentState_] += to - from;
}

void Engine::deadlock() const {
  for (gspn::TransitionId t : net_.timedTransitions())
    if (net_.isEnabled(t, marking_))
      throw SimulationError("deadlock: every enabled transition has rate 0 in " +
                            net_.describe(marking_));
  throw SimulationError("deadlock: no transition is enabled in the reachable marking " +
                        net_.describe(marking_) + " (at time " + std::to_string(now_) + ")");
}

bool Engine::advance(double observedFrom) {
  // The race between the clocks and the exponential transitions, whose next firing is
  // sampled afresh at every event from their total rate Λ and, should it come first,
  // falls to each with probability rate / Λ (memorylessness; Gillespie's direct method,
  // J. Phys. Chem. 81(25), 1977).
  const double lambda = rates_.total();
  if (!std::isfinite(lambda))
    throw SimulationError("the total rate out of the marking " + net_.describe(marking_) +
                          " is not finite (rates that large overflow; use another time unit)");
  double time = std::numeric_limits<double>::infinity();
  if (lambda > 0) {
    time = now_ + boost::random::exponential_distribution<double>(lambda)(random_);
    randomPath_ = true;
  }
  const bool clock = !queue_.empty() && queue_.topTime() <= time;
  if ((!clock && !(lambda > 0)) || (clock && std::isinf(queue_.topTime()))) {
    if (settings_.untilDead) return false;
    deadlock();
  }
  gspn::TransitionId next;
  if (clock) {
    next = queue_.top();
    time = queue_.topTime();
  } else {
    const double u = lambda * random_.unitUniform();
    next = exponential_[rates_.pick(u)];
  }
  if (time < now_)
    throw std::logic_error("simulation clock went backwards at transition '" +
                           net_.transition(next).name + "'");
  if (observing_ && result_.recorded) observeMarking(std::max(now_, observedFrom), time);
  now_ = time;
  if (clock) {
    auto& c = clocks_[next];
    c.erase(std::min_element(c.begin(), c.end()));
    // The other busy servers' clocks keep running: schedule the earliest of them now, as
    // the firing may leave the server count unchanged and then `update` reschedules
    // nothing.
    schedule(next);
  }
  fire(next, observing_);
  resolveImmediate(observing_);
  if (result_.recorded) currentState_ = result_.markings.insert(marking_).first;
  return true;
}

Replication Engine::run() {
  for (gspn::TransitionId t = 0; t < net_.transitionCount(); ++t) update(t);
  const std::uint64_t warmup = warmupEvents_;
  const std::uint64_t total = warmup + windowEvents_;
  std::uint64_t timed = 0;
  resolveImmediate(warmup == 0);
  double observedFrom = 0;
  bool& observing = observing_;
  observing = warmup == 0;
  result_.area.assign(net_.placeCount(), 0.0);
  result_.recorded = settings_.recordMarkings;
  if (result_.recorded) currentState_ = result_.markings.insert(marking_).first;
  std::vector<double> batchArea;  // ∫ m(p) dt up to the last batch's end
  double batchStart = now_;
  bool ended = false;
  while (timed < total) {
    if (!advance(observedFrom)) {
      ended = true;
      break;
    }
    ++timed;
    if (settings_.batchFirings > 0 && observing && (timed - warmup) % settings_.batchFirings == 0) {
      // Every place's integral brought up to now: the batch's mean is its increase over
      // the batch's length.
      batchArea.resize(net_.placeCount(), 0.0);
      for (gspn::PlaceId p = 0; p < net_.placeCount(); ++p) {
        integrate(p, marking_[p]);
        const double length = now_ - batchStart;
        result_.batchMeans_.push_back(length > 0 ? (result_.area[p] - batchArea[p]) / length
                                                 : static_cast<double>(marking_[p]));
        batchArea[p] = result_.area[p];
      }
      batchStart = now_;
    }
    // The window opens just after the last warm-up firing: it counts exactly `events`
    // timed firings, the last one at its end.
    if (!observing && timed == warmup) {
      observing = true;
      observedFrom = batchStart = now_;
      std::fill(lastChange_.begin(), lastChange_.end(), now_);
    }
  }
  if (settings_.untilDead && !ended)
    throw SimulationError("the run did not end within " + std::to_string(total) +
                          " timed firings (at time " + std::to_string(now_) +
                          "): a longer batch needs a larger --events");
  for (gspn::PlaceId p = 0; p < net_.placeCount(); ++p) integrate(p, marking_[p]);
  result_.observedTime_ = now_ - observedFrom;
  // No more lookups: without its index the record moves without being re-indexed.
  result_.markings.dropIndex();
  if (!(result_.observedTime_ > 0))
    throw SimulationError("the observation window has zero length: no time passed in " +
                          std::to_string(windowEvents_) + " firings");
  return std::move(result_);
}

bool Engine::State::recurs(const State& later, double now) const {
  if (later.marking != marking || later.clocks != clocks) return false;
  const double tolerance = 1e-12 * std::max(1.0, now);
  for (std::size_t i = 0; i < remaining.size(); ++i)
    if (std::abs(later.remaining[i] - remaining[i]) > tolerance) return false;
  return true;
}

void Engine::capture(State& state) const {
  state.marking = marking_;
  state.clocks.clear();
  state.remaining.clear();
  for (gspn::TransitionId t = 0; t < clocks_.size(); ++t) {
    if (clocks_[t].empty()) continue;
    state.clocks.push_back(t);
    state.clocks.push_back(static_cast<std::uint32_t>(clocks_[t].size()));
    for (double due : clocks_[t]) state.remaining.push_back(due - now_);
  }
}

Schedule Engine::findSchedule(std::uint64_t maxFirings) {
  using Kind = Schedule::Kind;
  vanishing_.emplace(net_, settings_.maxImmediateChain);
  for (gspn::TransitionId t = 0; t < net_.transitionCount(); ++t) update(t);
  resolveImmediate(false);
  if (randomPath_) return {Kind::Random};
  if (maxFirings < 2) return {Kind::Aperiodic, 0, 0, 0};
  // Brent: the saved state moves to the current one whenever the distance walked since
  // it was saved reaches a power of two; the first recurrence of the saved state is at
  // the period once the saved state lies on the cycle.
  if (!advance(0)) return {Kind::Aperiodic, 0, 0, 0};
  if (randomPath_) return {Kind::Random, 0, 0, 1};
  std::uint64_t timed = 1, saved = 1, power = 1, length = 1;
  State tortoise, hare;
  capture(tortoise);
  while (timed < maxFirings) {
    if (!advance(0)) return {Kind::Aperiodic, 0, 0, timed};  // a run that ends
    ++timed;
    if (randomPath_) return {Kind::Random, 0, 0, timed};
    capture(hare);
    if (tortoise.recurs(hare, now_)) return {Kind::Periodic, saved, length, timed};
    if (length == power) {
      std::swap(tortoise, hare);
      saved = timed;
      power *= 2;
      length = 0;
    }
    ++length;
  }
  return {Kind::Aperiodic, 0, 0, timed};
}

}  // namespace detail

namespace {

/// `run(engine)` on an engine of replication `index`. A rate that is not a finite
/// non-negative number, or a place overflowing, in a marking the simulation reached is
/// the model's fault, as in exploration: a SimulationError.
template <typename Run>
auto onEngine(const gspn::Net& net, const ReplicationSettings& settings, std::uint64_t index,
              Run run) {
  try {
    detail::Engine engine(net, settings, index);
    return run(engine);
  } catch (const std::domain_error& e) {
    throw SimulationError(e.what());
  }
}

}  // namespace

Replication simulate(const gspn::Net& net, const ReplicationSettings& settings,
                     std::uint64_t index) {
  return onEngine(net, settings, index, [](detail::Engine& e) { return e.run(); });
}

Schedule findSchedule(const gspn::Net& net, const ReplicationSettings& settings,
                      std::uint64_t maxFirings) {
  ReplicationSettings unrecorded = settings;
  unrecorded.recordMarkings = false;
  return onEngine(net, unrecorded, 0,
                  [&](detail::Engine& e) { return e.findSchedule(maxFirings); });
}

}  // namespace mmt::sim
