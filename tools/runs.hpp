#pragma once
// The pipeline steps the commands share: a model read from a file, its exact solution, and
// its simulation under a stopping rule, with the options that drive them.
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>
#include <tclap/CmdLine.h>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/solve.hpp"
#include "compiler/compile.hpp"
#include "grammar/diagnostics.hpp"
#include "gspn/measure_source.hpp"
#include "gspn/phases.hpp"
#include "gspn/reachability.hpp"
#include "outputs.hpp"
#include "report.hpp"
#include "sim/simulator.hpp"
#include "solver/ctmc.hpp"
#include "solver/steady_state.hpp"

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

/// A failure as one line, for a row of a sweep, an exploration or a contract: a model's
/// first error ("error: MESSAGE"), otherwise the headline.
std::string failureReason(const api::Error& error);

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
      "", "precision", "target relative half-width of every number (default 0.01)", false,
      0.01, "P"};
  TCLAP::ValueArg<double> confidence{"", "confidence", "confidence level (default 0.95)",
                                     false, 0.95, "C"};
  TCLAP::ValueArg<Count> replications{
      "r", "replications", "run exactly N replications (no precision rule)", false, {0}, "N"};
  TCLAP::ValueArg<Count> maxReplications{
      "", "max-replications",
      "budget: at most N replications, N >= 2 (default 640; the first batch is 10, or N if "
      "smaller)",
      false, {640}, "N"};
  TCLAP::ValueArg<double> timeLimit{
      "", "time-limit", "budget: start no new replications after S seconds (default 60)",
      false, 60, "S"};
  TCLAP::ValueArg<Count> events{
      "", "events", "timed firings observed per replication (default 200000)", false, {200'000},
      "N"};
  TCLAP::ValueArg<Count> warmup{
      "", "warmup",
      "timed firings deleted at the start of each replication, fewer than --events (default: "
      "a tenth of --events)",
      false, {0}, "N"};
  TCLAP::ValueArg<Count> seed{"", "seed", "random seed, a whole number (default 1)", false, {1}, "S"};

  explicit SimulationArguments(TCLAP::CmdLine& cmd) {
    for (TCLAP::Arg* a : std::initializer_list<TCLAP::Arg*>{
             &seed, &warmup, &events, &timeLimit, &maxReplications, &replications,
             &confidence, &precision})
      cmd.add(a);
  }
  /// Throws TCLAP::ArgException for a value out of range.
  void validate() const {
    if (!(confidence.getValue() > 0 && confidence.getValue() < 1))
      throw TCLAP::ArgException("must be in (0, 1)", "--confidence");
    if (!(precision.getValue() > 0)) throw TCLAP::ArgException("must be positive", "--precision");
    if (replications.isSet() && replications.getValue().value < 2)
      throw TCLAP::ArgException("at least 2 are needed for an interval", "--replications");
    if (maxReplications.getValue().value < 2)
      throw TCLAP::ArgException("at least 2 are needed for an interval", "--max-replications");
    if (!(timeLimit.getValue() > 0)) throw TCLAP::ArgException("must be positive", "--time-limit");
    if (events.getValue().value == 0) throw TCLAP::ArgException("must be positive", "--events");
    if (warmup.isSet() && warmup.getValue().value >= events.getValue().value)
      throw TCLAP::ArgException("must be fewer than --events (" +
                                    std::to_string(events.getValue().value) + ")",
                                "--warmup");
  }
  sim::ReplicationSettings settings(const Model& model, sim::Delays delays) const {
    const gspn::Net& net = model.net();
    sim::ReplicationSettings out;
    out.delays = delays;
    out.seed = seed.getValue().value;
    out.events = events.getValue().value;
    out.warmupEvents = warmup.isSet() ? warmup.getValue().value : events.getValue().value / 10;
    // Only expectations over markings need the time per marking: the metrics of a
    // system (multi-input actors) and the measures of a raw net that the mean token
    // counts do not give.
    out.recordMarkings = model.compiled.has_value() || gspn::measuresNeedExpectations(net);
    return out;
  }
};

/// What a simulation run produced: the interval tree and the counts users are told.
struct SimulationOutcome {
  IntervalSummary summary;
  std::size_t replications = 0;
  std::uint64_t events = 0;
  double simulatedTime = 0;
  double seconds = 0;
  unsigned threads = 1;
  std::string note;  ///< how the stopping rule ended
  bool reached = false;
};

/// Runs replications of `model` in batches (10, then doubling) on every core until every
/// number meets --precision or the budget runs out (or exactly --replications). Shows a
/// progress line, prefixed by `label`, when stderr is a terminal. Throws
/// sim::SimulationError.
SimulationOutcome simulateModel(const Model& model, const sim::ReplicationSettings& settings,
                                const SimulationArguments& args, const std::string& label);

/// The `simulation` block of the JSON output.
nlohmann::ordered_json simulationJson(const SimulationOutcome& outcome,
                                      const sim::ReplicationSettings& settings,
                                      const SimulationArguments& args);

/// One line: replications, firings, seed, events, simulated time, seconds, confidence and
/// how the stopping rule ended.
void printSimulationHeader(const SimulationOutcome& outcome,
                           const sim::ReplicationSettings& settings,
                           const SimulationArguments& args, std::ostream& out);

}  // namespace mmt::tools
