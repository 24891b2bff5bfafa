#pragma once
/// \file
/// The warm-up deleted from every replication, chosen from the output of a pilot run by the
/// MSER heuristic (K. P. White, "An effective truncation heuristic for bias reduction in
/// simulation output", Simulation 69(6), 1997; K. P. White, M. J. Cobb, S. C. Spratt, "A
/// comparison of five steady-state truncation heuristics for simulation", Proc. Winter
/// Simulation Conference 2000, which names MSER-5 for batches of five observations): with
/// Y_1 .. Y_n the means of consecutive batches of the output, the truncation point is
///
///   d* = argmin_{0 <= d <= n/2}  Σ_{i=d+1..n} (Y_i − Ȳ(d))² / (n − d)²,
///
/// Ȳ(d) the mean of Y_{d+1} .. Y_n: the d that minimises the marginal standard error of
/// the truncated mean. A minimum at n/2 says the run may be too short to leave its
/// initial transient.

#include <cstdint>
#include <span>

#include "gspn/net.hpp"
#include "sim/simulator.hpp"

namespace mmt::sim {

/// d* of `batchMeans` (in batches). 0 for fewer than 2 batches or a constant series.
std::size_t mserTruncation(std::span<const double> batchMeans);

struct WarmupChoice {
  std::uint64_t firings = 0;       ///< timed firings to delete at the start of each replication
  std::uint64_t batchFirings = 0;  ///< timed firings per batch of the last pilot's series
  bool atBound = false;            ///< d* reached n/2 for some place: the runs may be too short
  std::uint64_t pilotFirings = 0;  ///< timed firings of the last pilot run
  std::uint64_t pilotEvents = 0;   ///< timed and immediate firings of every pilot run
};

/// Runs a pilot replication from the initial marking (random stream kPilotStream, which no
/// replication uses) and returns the largest MSER truncation over the series of each
/// place's time-average token count per batch of 5 × ceil(pilot / 20,000) timed firings
/// (MSER-5 up to 20,000 firings, at most 4,000 batches). The pilot is as long as MSER
/// needs: it starts at an eighth of `settings.events` (at least 10,000 timed firings, at
/// most `events`) and is run again twice as long while some place's d* is at its bound
/// n/2, up to `events`, so it costs at most two replications' firings, and an eighth of
/// one when MSER's first answer stands. Throws what simulate throws.
WarmupChoice chooseWarmup(const gspn::Net& net, const ReplicationSettings& settings);

/// The random stream of the pilot run (replications use 0, 1, 2, ...).
constexpr std::uint64_t kPilotStream = ~std::uint64_t{0};

}  // namespace mmt::sim
