#pragma once
/// \file
/// Discrete-event simulation of a model in independent replications, under a stopping
/// rule (sim/stopping.hpp), with every metric of the exact solution estimated with a
/// confidence interval (docs/modelling.md, "Simulation"); and the comparison of the exact
/// solution with simulations under exponential, constant and declared delays (`mmt
/// compare`).

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/results.hpp"
#include "api/settings.hpp"
#include "api/solve.hpp"
#include "gspn/run_control.hpp"
#include "sim/simulator.hpp"
#include "sim/warmup.hpp"

namespace mmt::api {

/// The simulator's delays by their names (`--delays`): a name read (std::invalid_argument
/// for one that is not a kind of delay) and a kind's name.
using sim::Delays;
using sim::parseDelays;
using sim::toString;

struct SimulationSettings {
  /// Declared: each delay as the model declares it; Exponential: each with its mean (the
  /// CTMC's assumption); Constant: each exactly its mean.
  sim::Delays delays = sim::Delays::Declared;
  std::uint64_t seed = 1;
  /// Timed firings observed per replication, after `warmup` deleted (unset: chosen from a
  /// pilot run by MSER, sim/warmup.hpp).
  std::uint64_t events = 200'000;
  std::optional<std::uint64_t> warmup;
  /// Exactly this many replications, with no precision rule (at least 2).
  std::optional<std::uint64_t> replications;
  /// Otherwise replications are added (10, then doubling) until every number's relative
  /// half-width is at most `precision`, within `maxReplications` and `timeLimit` seconds.
  std::uint64_t maxReplications = 640;
  double timeLimit = 60;
  double confidence = 0.95;
  double precision = 0.01;
  /// Once `run.interrupt` is true no further replication starts, and simulate throws
  /// InterruptedError.
  RunControl run;

  /// Throws SettingError for a value out of range.
  void check() const;
};

/// The course of a simulation in which nothing was random (sim::findSchedule): every
/// replication would be the same, so there is one run and no confidence interval.
struct DeterministicRun {
  /// The state after timed firing `start` recurs `length` timed firings and `period` time
  /// units later: every value is its average over that period, the exact long-run value
  /// (but for rounding). Otherwise no state recurred within the run's firings, and the
  /// values are the run's window averages, with an unknown bias.
  bool periodic = false;
  std::uint64_t start = 0;
  std::uint64_t length = 0;
  double period = 0;
};

/// What a simulation produced.
struct Simulation {
  std::string name;  ///< the system's or the net's
  bool system = false;
  SimulationSettings settings;
  /// Every metric as {"mean", "half_width"} in the tree of the exact results, and what the
  /// stopping rule found.
  IntervalSummary summary;
  std::size_t replications = 0;
  /// Timed firings deleted at the start of each replication: SimulationSettings::warmup,
  /// or MSER's choice (`warmupChoice`).
  std::uint64_t warmupEvents = 0;
  std::optional<sim::WarmupChoice> warmupChoice;
  /// Timed and immediate firings of the whole command: the replications' and MSER's pilot
  /// runs' (warmupChoice->pilotEvents), as `seconds` counts the time of both.
  std::uint64_t events = 0;
  double simulatedTime = 0;
  double seconds = 0;
  unsigned threads = 1;
  bool reached = false;  ///< every number met the precision
  std::string note;      ///< how the stopping rule ended
  /// Set when nothing in the run was random; each number's half-width is then 0 when the
  /// run is periodic (exact), null otherwise (no interval).
  std::optional<DeterministicRun> deterministic;
  /// A periodic run without randomness: every value exact, no interval to print.
  bool exact() const { return deterministic && deterministic->periodic; }
  /// The `simulation` block of the JSON documents.
  nlohmann::ordered_json block() const;
  /// The document `mmt simulate --format json` prints (docs/schema/simulate.json).
  nlohmann::ordered_json json() const;
};

/// How far a simulation has got, after each batch of replications that does not end it.
struct SimulationProgress {
  std::size_t replications = 0;
  std::size_t imprecise = 0, numbers = 0;
  std::string worstPath;
  double worstRelative = 0;
};

/// Simulates `model`: in replications until the stopping rule is met or, when no random
/// draw decides its path (every delay constant and no choice that matters), in one run
/// whose schedule's period gives the exact long-run values (Simulation::deterministic;
/// docs/modelling.md, "Simulation"). Throws SettingError, SimulationError (a dead marking,
/// a timeless trap met while simulating).
Simulation simulate(const Model& model, const SimulationSettings& settings,
                    const std::function<void(const SimulationProgress&)>& progress = {});

/// The exact solution beside simulations with exponential and constant delays (and the
/// declared ones, and the exact solution with them as phases, when the model declares
/// non-exponential delays).
struct Comparison {
  std::string name;
  bool system = false;
  Solution exact;
  std::vector<Simulation> simulations;  ///< exponential, constant[, declared]
  /// The phase expansions and their exact results, when the model declares delays.
  std::vector<gspn::PhaseExpansion> phases;
  std::optional<nlohmann::ordered_json> phased;
  /// The exact solution with every delay constant (its mean), solved as a DSPN
  /// (Settings::deterministicExact) when that has one: its results and how it was solved;
  /// otherwise why not (two constant delays enabled together, ...).
  std::optional<nlohmann::ordered_json> constantExact;
  std::optional<DeterministicSolution> constantDeterministic;
  std::string constantExactUnavailable;
  /// Each number: {"exact", ["phases"], ["constant_exact"], per simulation {"mean",
  /// "half_width"}, "outside"}.
  ComparisonTree tree;
  /// The document `mmt compare --format json` prints (docs/schema/compare.json).
  nlohmann::ordered_json json() const;
};

/// Compares `model`'s exact solution (under `settings`) with its simulations (each under
/// `simulation` with its own delays; `maxPhases` per delay for the phased solution).
/// `progress` is told each simulation's label ("exponential delays: ") and progress.
/// Throws what solve and simulate throw.
Comparison compare(
    const Model& model, const Settings& settings, const SimulationSettings& simulation,
    std::uint32_t maxPhases = 10,
    const std::function<void(const std::string&, const SimulationProgress&)>& progress = {});

}  // namespace mmt::api
