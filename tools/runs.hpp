#pragma once
// What the commands share on top of api/: whole-number options, exit codes, the options of
// simulations and phase expansions, the wording of failures, and the simulations' progress
// line.
#include <tclap/CmdLine.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/simulate.hpp"
#include "api/solve.hpp"
#include "outputs.hpp"
#include "report.hpp"

namespace mmt::tools {

/// A whole number on the command line (a count, a seed). Unlike an unsigned ValueArg,
/// whose `>>` reads "-1" as 2^64 − 1, a sign or anything but digits is refused, and TCLAP
/// reports the option with exit code 1.
struct Count {
  std::uint64_t value = 0;
};
std::istream& operator>>(std::istream& in, Count& count);
std::ostream& operator<<(std::ostream& out, const Count& count);

}  // namespace mmt::tools

namespace TCLAP {
template <>
struct ArgTraits<mmt::tools::Count> {
  typedef ValueLike ValueCategory;
};
}  // namespace TCLAP

namespace mmt::tools {

/// Exit codes, documented in `mmt --help`.
enum ExitCode : int {
  kSuccess = 0,
  kInputError = 1,        ///< bad command line, unreadable file, syntax or model error
  kNumericalFailure = 2,  ///< the solver did not converge or failed numerically
  kInternalError = 3,     ///< a bug in mmt
};

using api::Model;

/// Prints a failure of the pipeline as the command line words it (`FILE: error: ...`, a
/// model's diagnostics with their carets, what to try) and returns its exit code:
/// kNumericalFailure for a SolverError, kInputError for the others.
int reportFailure(const api::Error& error, const std::string& file, std::ostream& out);

/// `--max-phases K`: phases per expanded delay (whole number >= 1, default 10).
struct MaxPhasesArgument {
  TCLAP::ValueArg<Count> maxPhases;
  explicit MaxPhasesArgument(TCLAP::CmdLine& cmd)
      : maxPhases("", "max-phases",
                  "phases at most per expanded delay: Erlang-k with k = min(K, ceil(1/cv^2)) "
                  "for cv^2 < 1 (default 10)",
                  false, {10}, "K", cmd) {}
  std::uint32_t value() const {
    const std::uint64_t k = maxPhases.getValue().value;
    if (k < 1 || k > 1000) throw TCLAP::ArgException("must be between 1 and 1000", "--max-phases");
    return static_cast<std::uint32_t>(k);
  }
};

/// Options shared by `simulate` and `compare`: replication length, stopping rule, seed.
struct SimulationArguments {
  TCLAP::ValueArg<double> precision{
      "",    "precision", "target relative half-width of every number (default 0.01)",
      false, 0.01,        "P"};
  TCLAP::ValueArg<double> confidence{"",    "confidence", "confidence level (default 0.95)",
                                     false, 0.95,         "C"};
  TCLAP::ValueArg<Count> replications{
      "r", "replications", "run exactly N replications (no precision rule)", false, {0}, "N"};
  TCLAP::ValueArg<Count> maxReplications{
      "",
      "max-replications",
      "budget: at most N replications, N >= 2 (default 640; the first batch is 10, or N if "
      "smaller)",
      false,
      {640},
      "N"};
  TCLAP::ValueArg<double> timeLimit{
      "",    "time-limit", "budget: start no new replications after S seconds (default 60)",
      false, 60,           "S"};
  TCLAP::ValueArg<Count> events{
      "",
      "events",
      "timed firings observed per replication (default 200000); a batch workload's "
      "replication runs from its start to the batch's end, and this only bounds it",
      false,
      {200'000},
      "N"};
  TCLAP::ValueArg<Count> warmup{
      "",
      "warmup",
      "timed firings deleted at the start of each replication, fewer than --events (default: "
      "chosen by MSER from a pilot run of an eighth of --events, at least 10000 firings, "
      "run twice as long while MSER finds it too short, up to --events; none for a batch "
      "workload, observed from its start)",
      false,
      {0},
      "N"};
  TCLAP::ValueArg<Count> seed{"",    "seed", "random seed, a whole number (default 1)",
                              false, {1},    "S"};

  explicit SimulationArguments(TCLAP::CmdLine& cmd) {
    for (TCLAP::Arg* a :
         std::initializer_list<TCLAP::Arg*>{&seed, &warmup, &events, &timeLimit, &maxReplications,
                                            &replications, &confidence, &precision})
      cmd.add(a);
  }
  /// The simulation's settings with `delays`; throws TCLAP::ArgException naming the
  /// option of a value out of range.
  api::SimulationSettings settings(sim::Delays delays = sim::Delays::Declared) const;
  /// Throws TCLAP::ArgException for a value out of range.
  void validate() const { settings(); }
};

/// The progress line of simulations on stderr, when it is a terminal: shown once a
/// simulation has run for more than a second ("LABEL 40 replications, 3 of 27 numbers
/// above the precision (worst ...)"), rewritten after each batch, cleared by done().
class SimulationProgressLine {
 public:
  SimulationProgressLine();
  void operator()(const std::string& label, const api::SimulationProgress& progress);
  /// Clears the line; after a failure, ends it so that the error starts a line.
  void done(bool failed = false);

 private:
  bool interactive_;
  bool shown_ = false;
  std::string label_;
  std::chrono::steady_clock::time_point start_;
};

/// Simulates `model` (api::simulate) with a SimulationProgressLine. Throws
/// api::SimulationError.
api::Simulation simulateModel(const Model& model, const api::SimulationSettings& settings);

/// Throws the TCLAP::ArgException of a setting out of range, naming its option
/// ("max_replications" is --max-replications).
[[noreturn]] void throwOptionError(const api::SettingError& e);

/// Checks `settings` (api::Settings, api::SimulationSettings), as throwOptionError words it.
template <typename Settings>
void checkOptions(const Settings& settings) {
  try {
    settings.check();
  } catch (const api::SettingError& e) {
    throwOptionError(e);
  }
}

}  // namespace mmt::tools
