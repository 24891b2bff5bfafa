#pragma once
/// \file
/// The stopping rule of a replicated simulation ([Law15] §9.4.1, the sequential procedure
/// of §9.4.1's "relative error" variant): replications in batches (a first batch, then
/// doubling) until every number's confidence interval is narrow enough relative to its
/// mean, or the budget of replications or time runs out. Results are typed: each
/// replication is reduced to a Sample, numbers in an order every replication shares; the
/// caller names them (the report turns them into JSON).

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "gspn/run_control.hpp"
#include "sim/replications.hpp"

namespace mmt::sim {

/// One replication's numbers; NaN where the replication left a number undefined (a
/// response time with no completion, a measure dividing by 0).
using Sample = std::vector<double>;

/// One number across the replications.
struct NumberSummary {
  Estimate estimate;            ///< mean ± half-width; meaningless when undefinedIn > 0
  std::size_t undefinedIn = 0;  ///< replications in which it was undefined
};

struct SampleSummary {
  std::vector<NumberSummary> numbers;
  /// Numbers whose relative half-width h / |mean| exceeds the precision (h > 1e-12).
  std::size_t imprecise = 0;
  double worstRelative = 0;
  std::optional<std::size_t> worst;  ///< the number with the widest relative interval
  /// Numbers undefined in some replications but not all: more replications of the same
  /// length do not help, longer ones do. A number undefined in every replication (an
  /// element that never completes) is not counted.
  std::size_t undefined = 0;
  std::optional<std::size_t> firstUndefined;
};

/// Which numbers are ratios of the replications' totals, and the replications' lengths.
/// A replication that ends (a batch's run) gives a time average Y_r / A_r of a total Y_r
/// over its length A_r, whose expectation is not E[Y] / E[A], the exact solution's. Such
/// a number is estimated by the ratio estimator R = Σ_r Y_r / Σ_r A_r = Σ_r A_r x_r / Σ_r A_r
/// with the half-width t_{n−1} · s / (√n · Ā), s the standard deviation of Y_r − R A_r:
/// the regenerative method's interval, each run one cycle ([Law15] §9.5.3).
struct RatioEstimates {
  const std::vector<char>* numbers = nullptr;  ///< by number: a ratio (not owned)
  std::vector<double> lengths;                 ///< by replication: A_r
};

/// Estimates every number over `replications` (each of the same length, or each a run
/// that ends, with `ratios` saying which numbers are ratios of its totals).
SampleSummary summarizeSamples(const std::vector<Sample>& replications, double confidence,
                               double precision, const RatioEstimates* ratios = nullptr);

struct StoppingRule {
  std::optional<std::size_t> fixed;  ///< exactly this many replications, no precision rule
  std::size_t maxReplications = 640;
  double timeLimit = 60;  ///< seconds: no new batch after this
  double confidence = 0.95;
  double precision = 0.01;  ///< target relative half-width of every number
  std::size_t firstBatch = 10;
  /// Replications that end (ReplicationSettings::untilDead): the numbers, by position,
  /// that are time averages over the run, estimated as ratios (RatioEstimates). Not owned;
  /// it may be filled while the first batch is reduced.
  const std::vector<char>* ratios = nullptr;
  /// Once `run.interrupt` is true no further replication starts, and the run ends with
  /// ReplicatedRun::interrupted (the unfinished batch is dropped).
  RunControl run;
};

struct ReplicatedRun {
  std::vector<Sample> samples;  ///< in replication order
  SampleSummary summary;
  std::uint64_t events = 0;
  double simulatedTime = 0;
  double seconds = 0;
  unsigned threads = 1;
  bool reached = false;      ///< every number met the precision
  bool interrupted = false;  ///< StoppingRule::interrupt stopped it
};

/// Runs replications of `net` under `rule`, reducing each to a Sample with `reduce` (in
/// the worker threads), on every core. `progress`, when given, is called after each batch
/// that does not end the run. Throws SimulationError.
ReplicatedRun replicateUntilPrecise(const gspn::Net& net, const ReplicationSettings& settings,
                                    const StoppingRule& rule,
                                    const std::function<Sample(const Replication&)>& reduce,
                                    const std::function<void(const ReplicatedRun&)>& progress = {});

}  // namespace mmt::sim
