#pragma once
/// \file
/// The failures of the pipeline as types carrying their data: every call of mmt::api
/// either returns its result or throws one of these. Front ends decide how to word and
/// map them (the command line to exit codes, the Python module to exception classes);
/// nothing downstream searches a message for words.
///
///   Error
///   ├── ModelError             the model cannot be read: file, syntax, names, mapping
///   ├── ExplorationError       the state space could not be explored
///   │   ├── StateLimitError    more tangible markings (or CTMC edges) than allowed
///   │   ├── MemoryLimitError   the memory limit would be passed
///   │   └── TimelessTrapError  vanishing markings that can be entered but never left
///   ├── StructureError         the chain has no unique steady state (deadlock, several
///   │                          bottom components)
///   ├── SolverError            the steady-state solver did not converge or broke down
///   ├── DeterministicError     constant delays cannot be solved exactly (two enabled at
///   │                          once, a delay neither constant nor exponential)
///   ├── UndefinedMeasureError  a measure divides by a quantity that is 0 in steady state
///   ├── UnknownMetricError     a metric path that names no result
///   ├── InterruptedError       the caller stopped it (Ctrl-C in Python)
///   ├── SimulationError        the simulation could not run (no timed transition, ...)
///   └── FluidError             the fluid approximation cannot read the net, or its
///                              trajectory does not settle

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gspn/net.hpp"
#include "gspn/reachability.hpp"
#include "solver/ctmc.hpp"
#include "solver/steady_state.hpp"

namespace mmt::api {

/// The base of every failure of the pipeline. what() is the headline, then the detail
/// on the lines after it (when there is one).
class Error : public std::runtime_error {
 public:
  explicit Error(std::string headline, std::string detail = "");
  /// One line saying what went wrong.
  const std::string& headline() const { return headline_; }
  /// Further lines (what to try, what was found), possibly empty.
  const std::string& detail() const { return detail_; }
  /// One line for a row of a sweep, an exploration or a contract: the headline, or a
  /// model's first error.
  virtual std::string summary() const { return headline_; }

 private:
  std::string headline_, detail_;
};

/// A position in a model's file: 1-based line and column (in bytes); line 0 when the
/// failure has no position (an unreadable file).
struct SourceLocation {
  std::string file;
  std::size_t line = 0, column = 0;
};

struct ModelDiagnostic {
  SourceLocation location;
  std::string message;
  bool error = true;  ///< false for a warning
};

/// The model could not be read or compiled. Carries every diagnostic (all errors are found
/// in one pass) and their rendering with source lines and carets.
class ModelError : public Error {
 public:
  /// `rendered`: the diagnostics as printed (file:line:col, source line, caret), sorted by
  /// position; `path`: the model's file.
  ModelError(std::string path, std::vector<ModelDiagnostic> diagnostics, std::string rendered);
  /// A failure with no position in a file (unreadable, unknown kind of file).
  ModelError(std::string path, std::string message);
  const std::string& path() const { return path_; }
  const std::vector<ModelDiagnostic>& diagnostics() const { return diagnostics_; }
  /// Every diagnostic as printed, errors and warnings, sorted by position; empty when the
  /// failure has no position.
  const std::string& rendered() const { return rendered_; }
  /// Where the first error is (line 0 when it has no position).
  SourceLocation location() const;
  std::size_t errorCount() const;
  /// "error: MESSAGE" of the first error (the headline when there is none).
  std::string summary() const override;

 private:
  std::string path_;
  std::vector<ModelDiagnostic> diagnostics_;
  std::string rendered_;
};

/// Exploration stopped before the tangible reachability graph was complete.
class ExplorationError : public Error {
 public:
  ExplorationError(gspn::ExplorationResult::Status status, std::uint64_t states,
                   std::string headline, std::string detail = "");
  gspn::ExplorationResult::Status status() const { return status_; }
  /// Tangible markings found when exploration stopped.
  std::uint64_t states() const { return states_; }
  /// The chain grows with interchangeable replicas, and the detail offers the mean-field
  /// approximation (docs/meanfield.md).
  bool meanFieldOffered() const { return meanField_; }
  void offerMeanField() { meanField_ = true; }

 private:
  gspn::ExplorationResult::Status status_;
  std::uint64_t states_;
  bool meanField_ = false;
};

/// More tangible markings than the state limit (status StateLimit), or more CTMC edges
/// than the solvers index (EdgeLimit).
class StateLimitError : public ExplorationError {
 public:
  struct Data {
    std::uint64_t limit = 0;  ///< the state limit in force
    /// The net is bounded by its P-invariants or inhibitor arcs: only large.
    bool provenBounded = false;
    /// Places nothing proves bounded (when not provenBounded), by name.
    std::vector<std::string> unprovenPlaces;
    /// The place with the most tokens over the markings found, and that count.
    std::optional<std::string> fullestPlace;
    gspn::Tokens fullestTokens = 0;
  };
  StateLimitError(gspn::ExplorationResult::Status status, std::uint64_t states, Data data,
                  std::string headline, std::string detail = "");
  const Data& data() const { return data_; }

 private:
  Data data_;
};

/// Exploration stopped before mmt's resident memory, or the generator it was about to
/// store, passed the memory limit.
class MemoryLimitError : public ExplorationError {
 public:
  MemoryLimitError(std::uint64_t states, std::uint64_t limitBytes, std::string headline,
                   std::string detail = "");
  std::uint64_t limitBytes() const { return limitBytes_; }

 private:
  std::uint64_t limitBytes_;
};

/// A set of vanishing markings that can be entered but never left (the message names a
/// marking of it).
class TimelessTrapError : public ExplorationError {
 public:
  TimelessTrapError(std::uint64_t states, std::string headline);
};

/// The chain has no unique steady state: a dead marking, or several bottom strongly
/// connected components ([GSPN95] §6).
class StructureError : public Error {
 public:
  StructureError(solver::ChainStructure::Kind kind, std::string headline);
  solver::ChainStructure::Kind kind() const { return kind_; }

 private:
  solver::ChainStructure::Kind kind_;
};

/// The steady-state solver did not reach the tolerance, broke down, or gave a result that
/// fails the accuracy check (solver/steady_state.hpp). No numbers go with it.
class SolverError : public Error {
 public:
  SolverError(solver::Status status, solver::Method method, std::size_t iterations, double residual,
              double tolerance, double imbalance, std::string note, bool iterationLimit);
  solver::Status status() const { return status_; }
  solver::Method method() const { return method_; }
  std::size_t iterations() const { return iterations_; }
  /// ‖πQ‖∞ / max|q_ii| of the last iterate.
  double residual() const { return residual_; }
  double tolerance() const { return tolerance_; }
  /// The accuracy check's flow imbalance (solver/accuracy.hpp).
  double imbalance() const { return imbalance_; }
  const std::string& note() const { return note_; }
  /// Whether the iterations allowed ran out (solver::SteadyStateResult::iterationLimit):
  /// more of them might converge, where a method that stopped on its own would not.
  bool iterationLimit() const { return iterationLimit_; }

 private:
  solver::Status status_;
  solver::Method method_;
  std::size_t iterations_;
  double residual_, tolerance_, imbalance_;
  std::string note_;
  bool iterationLimit_;
};

/// `--deterministic exact` cannot solve the model as a DSPN (solver/dspn.hpp): two
/// deterministic transitions are enabled in one tangible marking (`first`, `second`,
/// `marking`; first == second when one is enabled twice with several servers), or a
/// delay is neither constant nor exponential (`first` names it; the others empty). The
/// detail offers the phase-type expansion and the simulation.
class DeterministicError : public Error {
 public:
  DeterministicError(std::string headline, std::string first, std::string second,
                     std::string marking);
  const std::string& first() const { return first_; }
  const std::string& second() const { return second_; }
  const std::string& marking() const { return marking_; }

 private:
  std::string first_, second_, marking_;
};

/// A measure of a raw net divides by a quantity that is 0 in steady state (the
/// throughput of a transition that never fires, the probability of an impossible
/// condition).
class UndefinedMeasureError : public Error {
 public:
  UndefinedMeasureError(std::string measure, double value);
  const std::string& measure() const { return measure_; }

 private:
  std::string measure_;
};

/// A metric path that names no result ("application.respone_time"), with the paths that
/// do (for a sweep, an exploration, a contract).
class UnknownMetricError : public Error {
 public:
  UnknownMetricError(std::string metric, std::vector<std::string> known);
  const std::string& metric() const { return metric_; }
  const std::vector<std::string>& known() const { return known_; }

 private:
  std::string metric_;
  std::vector<std::string> known_;
};

/// The caller interrupted the call (Settings::interrupt).
class InterruptedError : public Error {
 public:
  explicit InterruptedError(std::string headline) : Error(std::move(headline)) {}
};

/// The simulation cannot run the model (sim::SimulationError's reasons).
class SimulationError : public Error {
 public:
  explicit SimulationError(std::string headline) : Error(std::move(headline)) {}
};

/// The fluid approximation (api/fluid.hpp) has no answer: the net has an element no
/// continuous flow reads (`element`: an inhibitor arc, a guard, a conflict that is not a
/// free choice; `settled` false), or its trajectory did not settle (`element` the place
/// that moved most, at model time `time`, with the relative drift `residual`).
class FluidError : public Error {
 public:
  FluidError(std::string headline, std::string detail, std::string element, bool unsupported,
             double time = 0, double residual = 0)
      : Error(std::move(headline), std::move(detail)),
        element_(std::move(element)),
        unsupported_(unsupported),
        time_(time),
        residual_(residual) {}
  const std::string& element() const { return element_; }
  /// The net has no continuous reading (else: the trajectory did not settle).
  bool unsupported() const { return unsupported_; }
  double time() const { return time_; }
  double residual() const { return residual_; }

 private:
  std::string element_;
  bool unsupported_;
  double time_, residual_;
};

/// A failure as data, for the front ends that are not C++ (the Python module's
/// exceptions, `mmt serve`'s answers): {"kind": its class ("ModelError",
/// "StateLimitError", ... "Error"), "headline", "detail", "data": its fields in snake
/// case}. The fields: ModelError: file, line, column (the first error), diagnostics
/// ([{file, line, column, message, severity}]), rendered; ExplorationError and those
/// below it: states; StateLimitError: limit, proven_bounded, unproven_places,
/// fullest_place, fullest_tokens; MemoryLimitError: limit_bytes; StructureError: kind
/// ("deadlock" or "multiple bottom components"); DeterministicError: first, second,
/// marking; SolverError: status, method, iterations, residual, tolerance,
/// flow_imbalance, note, iteration_limit; UndefinedMeasureError: measure; UnknownMetricError:
/// metric, known; FluidError: element, unsupported, time, residual.
nlohmann::ordered_json failureJson(const Error& failure);

}  // namespace mmt::api
