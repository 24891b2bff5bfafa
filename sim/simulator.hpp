#pragma once
/// \file
/// Discrete-event simulation of a frozen GSPN ([GSPN95] ch. 2 and §6.1; the race policy
/// with enabling memory of Ajmone Marsan et al., "The effect of execution policies on the
/// semantics and analysis of stochastic Petri nets", IEEE TSE 15(7), 1989).
///
/// - Every enabled timed transition holds one clock per busy server (1 for single-server
///   and rate-expression transitions, min(k, e(m)) for k-server, e(m) for infinite-server,
///   where e(m) is the enabling degree). The earliest clock fires.
/// - Enabling memory: a clock survives while its server stays enabled. When the number of
///   busy servers drops, the most recently started clocks are discarded.
/// - Delays: `Declared` samples each transition's declared distribution
///   (Transition::declaredDelay), and Exp(λ) where none is declared; `Exponential` uses
///   Exp(λ) everywhere (λ per server, or the rate expression's value), which is the
///   numerical solver's model; `Constant` uses exactly 1/λ, the mean, λ taken when the
///   clock starts.
/// - Exponential transitions hold no clocks: being memoryless, their race is sampled
///   afresh at each event from their total rate Λ (the time to the first of them, then
///   which one, with probability rate / Λ: Gillespie's direct method, J. Phys. Chem.
///   81(25), 1977), against the earliest clock of the others.
/// - Immediate transitions fire in zero time at once after any firing: the highest
///   priority level first, one transition chosen with probability weight / Σ weights.
/// - Only the transitions that read a place the firing changed are re-examined, so an
///   event costs what the firing touches, not the size of the net.
///
/// A run is reproducible from (seed, replication index): the random engine is a
/// gspn::RandomEngine (xoshiro256++) seeded from both through std::seed_seq; exponential delays are
/// drawn by the ziggurat method (Boost.Random; Marsaglia & Tsang, J. Stat. Softw. 5(8), 2000).

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gspn/marking_store.hpp"
#include "gspn/measure_source.hpp"
#include "gspn/net.hpp"

namespace mmt::sim {

namespace detail {
class Engine;
}

enum class Delays { Declared, Exponential, Constant };

/// Parses "declared", "exponential" or "constant"; throws std::invalid_argument otherwise.
Delays parseDelays(const std::string& name);
const char* toString(Delays delays);

struct ReplicationSettings {
  Delays delays = Delays::Declared;
  std::uint64_t seed = 1;
  /// Timed firings discarded at the start (warm-up deletion), then timed firings observed.
  std::uint64_t warmupEvents = 20'000;
  std::uint64_t events = 200'000;
  /// Replication i deletes warmupEvents + W_i timed firings and observes events + J_i,
  /// W_i and J_i uniform on {0, .., extraEvents}, drawn from (seed, i) apart from the
  /// path's own stream. The windows of replications of a schedule that randomness barely
  /// changes then begin and end at different phases of it, so the error of cutting it
  /// shows in their spread instead of biasing every replication alike
  /// (docs/modelling.md, "Window edges").
  std::uint64_t extraEvents = 0;
  /// A longer chain of immediate firings without time passing is a timeless trap.
  std::uint64_t maxImmediateChain = 100'000;
  /// Keep the time spent in each tangible marking, for Replication::expectation (the
  /// metrics of multi-input actors, `mean(expr)` and `prob(...)` measures). Costs a hash
  /// lookup per event and memory per marking visited; mean tokens and throughputs do
  /// not need it.
  bool recordMarkings = true;
  /// When positive, the replication also records each place's time-average token count
  /// over every run of this many timed firings of its window (Replication::batchMeans;
  /// the pilot run of sim/warmup.hpp).
  std::uint64_t batchFirings = 0;
  /// The replication ends at its first dead marking (a batch's run, which ends), and its
  /// window is the whole run, [0, the time it ended]; `events` then only bounds it (more
  /// firings are a SimulationError). Without it a dead marking is a SimulationError.
  bool untilDead = false;
};

/// The outcome of a simulation that cannot go on: a dead marking, or a timeless trap.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Time averages of one replication over its observation window: the time spent in each
/// tangible marking visited and the firings of each transition. A MeasureSource, so the
/// metric formulas of the exact solution apply unchanged.
class Replication final : public gspn::MeasureSource {
 public:
  double meanTokens(gspn::PlaceId p) const override;
  double throughput(gspn::TransitionId t) const override;
  /// Throws std::logic_error unless the run recorded markings.
  double expectation(const std::function<double(gspn::MarkingView)>& f,
                     std::span<const gspn::PlaceId> reads) const override;

  double observedTime() const { return observedTime_; }
  /// Timed and immediate firings in the whole run, warm-up included.
  std::uint64_t events() const { return events_; }
  /// With ReplicationSettings::batchFirings: by batch of the window, then by place, the
  /// place's time-average token count over the batch (its count when no time passed).
  const std::vector<double>& batchMeans() const { return batchMeans_; }

 private:
  friend class detail::Engine;
  explicit Replication(std::size_t places) : markings(places) {}
  gspn::PackedMarkingStore markings;
  std::vector<double> timeIn;  ///< by marking id (when recorded)
  std::vector<double> area;    ///< by place: ∫ m(p) dt over the window
  bool recorded = false;
  std::vector<std::uint64_t> firings;  ///< by transition, in the observation window
  double observedTime_ = 0;
  std::uint64_t events_ = 0;
  std::vector<double> batchMeans_;
};

/// Runs replication `index` of `net`. Throws SimulationError on a dead marking (no
/// transition enabled; unless ReplicationSettings::untilDead) or a timeless trap, naming
/// the marking.
Replication simulate(const gspn::Net& net, const ReplicationSettings& settings,
                     std::uint64_t index);

/// The long-run course of a run in which nothing is random.
struct Schedule {
  enum class Kind {
    Random,     ///< a random draw decided the path: replications differ
    Periodic,   ///< the state after timed firing `start` recurs after `length` more
    Aperiodic,  ///< no random draw, but no recurrence within the firings allowed
  };
  Kind kind = Kind::Random;
  std::uint64_t start = 0;
  std::uint64_t length = 0;
  std::uint64_t followed = 0;  ///< timed firings followed to tell
};

/// Follows `net` from its initial marking for at most `maxFirings` timed firings under
/// `settings.delays`, and tells whether its path is random, and if not, whether it is
/// periodic. A path is random when a delay is drawn from a distribution with variance, or
/// when immediate transitions enabled together can end in different tangible markings or
/// fire different numbers of times (their resolution is solved as in exploration,
/// gspn::VanishingEliminator; concurrent immediate transitions fired in either order are
/// not a random path). The state compared is the tangible marking after each timed firing with the
/// remaining time of every running clock, in the order the clocks started; remaining times
/// are equal when they differ by at most 1e-12 times the current time (the rounding of
/// the clock's sums, which grows with the time). A recurrence is found by Brent's
/// algorithm (R. P. Brent, "An improved Monte Carlo factorization algorithm", BIT 20(2),
/// 1980, §7): at most about 3 × (start + length) firings and one saved state. Once a
/// state recurs the path repeats forever, so a replication whose window is firings
/// start + 1 .. start + length (warm-up `start`, `length` events) averages over exactly
/// one period: the long-run values, exact but for rounding. Throws what simulate throws.
Schedule findSchedule(const gspn::Net& net, const ReplicationSettings& settings,
                      std::uint64_t maxFirings);

}  // namespace mmt::sim
