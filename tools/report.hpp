#pragma once
// Formatting of `mmt solve` results: a grouped table for people, one JSON object for scripts.
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/contract.hpp"
#include "api/fluid.hpp"
#include "api/meanfield.hpp"
#include "api/results.hpp"
#include "api/simulate.hpp"
#include "api/solve.hpp"
#include "format.hpp"
#include "mpi/solve.hpp"

namespace mmt::tools {

using api::kJsonMajor;
using api::NamedNumber;
using api::NamedResults;
using api::namedResults;
using api::NetMeasures;
using api::netMeasures;
using api::pathText;
using api::resultsJson;
using api::resultsSample;
using api::resultsTree;
using api::schemaTag;

/// Whether the tables of an unfolded coloured net list its places' colours and its
/// transitions' bindings beside the coloured totals (--colours; default no: a line says how
/// many are left out).
void showColourRows(bool shown);

/// One line per expansion: "A1.exec: erlang(4, 4), cv² 0.25 → erlang(4), cv² 0.25".
void printPhases(const std::vector<gspn::PhaseExpansion>& phases, std::ostream& out);

/// Writes a result tree (resultsJson, or its simulated or compared form) as CSV: a header,
/// then one row per element and metric, `section,element,metric,` and the leaf's values:
/// `value` for a number; `value,half_width` for an interval; for a comparison cell,
/// `exact`, then `phases` if present, then `K,K_half_width` per simulated kind, then
/// `outside`. The application's element is empty; a raw net's measures are elements of
/// section `measures` with metric `value`. Fields are quoted as RFC 4180 says.
void writeResultsCsv(const nlohmann::ordered_json& tree, std::ostream& out);

/// Prints an IntervalSummary tree as grouped tables of "mean ± half-width" cells, or of
/// the means alone when `exact` (a periodic run without randomness).
void printIntervalTable(const nlohmann::ordered_json& tree, std::ostream& out, bool exact = false);
/// The tables of `mmt solve`: states, solver, notes, then the metrics per element (or the
/// net's measures, places and transitions).
void printTable(const api::Solution& solution, std::ostream& out);
/// The metrics per element of a system (application, skeletons, tasks, actors,
/// processors, messages, links), or a raw net's measures, places and transitions: the
/// tables printTable ends with before the distributions and transient tables.
void printResultTables(const std::string& name,
                       const std::optional<compiler::SystemMetrics>& metrics,
                       const NetMeasures& values, std::ostream& out);
/// `mpirun -n P mmt solve`'s tables: states and edges over the ranks, the PETSc solver,
/// a row of figures per rank (states, edges, peak memory, seconds and bytes sent per
/// phase), then printResultTables.
void printDistributedTable(const mpi::DistributedSolution& solution, std::ostream& out);
/// `mmt solve --method fluid`'s tables: how the equilibrium was found and how stable it
/// is, the results as printResultTables gives them, the trajectory at the asked times, and
/// each number beside its reference (the exact solution or a simulation's interval).
void printFluidTable(const api::FluidSolution& solution, std::ostream& out);
/// `mmt solve --method mean-field`'s tables: how the model became counts, how the
/// equilibrium was found, the results, the trajectory at the asked times, and each number
/// beside its reference: the exact solution at the asked size, the exact solutions at
/// smaller sizes with the distance's trend, or a simulation's interval.
void printMeanFieldTable(const api::MeanFieldSolution& solution, std::ostream& out);
/// The transient tables: per section, one row per element and metric, one column per
/// time and the steady state's value last (printTable ends with them).
void printTransient(const api::Solution& solution, std::ostream& out);
/// `mmt solve --at --format csv`: `time,section,element,metric,value`, a row per time,
/// element and metric (the element empty for the application, `value` the metric of a
/// measure), as writeResultsCsv names them.
void writeTransientCsv(const api::TransientSolution& transient, std::ostream& out);

/// The response-time distributions (mmt solve --percentiles/--cdf-at): a line on how they
/// were computed, then a row per element with its mean, F at each time and the percentiles,
/// and why an element has none (printTable ends with them, before the transient tables).
void printPassages(const api::Solution& solution, std::ostream& out);
/// Their CSV rows, after writeResultsCsv's: `section,element,metric,value` with metrics
/// `response_time_p95` and `response_time_cdf(10)` (a raw net's: section `passage`, element
/// `FROM -> TO`, metrics `passage_time_mean`, `passage_time_p95`, `passage_time_cdf(10)`).
void writePassageCsv(const api::PassageSolution& passages, std::ostream& out);

/// One line: replications, firings, seed, events, simulated time, seconds, confidence and
/// how the stopping rule ended.
void printSimulationHeader(const api::Simulation& simulation, std::ostream& out);

/// `mmt compare`'s report: the exact solution and each simulation in a header, what the
/// flags mean, the phase expansions, then the compared tables.
void printComparisonReport(const api::Comparison& comparison, std::ostream& out);

/// `mmt contract`'s lines: the search's first line, one per try as it is made, and the
/// answer (or that no value meets `requirement`, the text given, with the closest try).
void printContractStart(const api::ContractSettings& settings,
                        const std::optional<api::Surroundings>& around, std::ostream& out);
void printContractTry(const api::ContractSettings& settings, const api::ContractTry& t,
                      std::ostream& out);
void printContractOutcome(const api::ContractResult& result, const std::string& requirement,
                          std::ostream& out);

/// Grouped tables: exact value and one "mean ± half-width" cell per column; a flagged
/// row starts with '!'.
void printComparison(const api::ComparisonTree& comparison, std::ostream& out);

}  // namespace mmt::tools
