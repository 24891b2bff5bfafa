#pragma once
// Formatting of `mmt solve` results: a grouped table for people, one JSON object for scripts.
#include <iosfwd>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/results.hpp"
#include "api/solve.hpp"
#include "sim/stopping.hpp"

#include "compiler/metrics.hpp"
#include "gspn/measure_source.hpp"
#include "gspn/phases.hpp"
#include "gspn/reachability.hpp"
#include "solver/steady_state.hpp"

namespace mmt::tools {

using api::kJsonMajor;
using api::NamedNumber;
using api::NamedResults;
using api::NetMeasures;
using api::netMeasures;
using api::namedResults;
using api::resultsSample;
using api::pathText;
using api::resultsJson;
using api::resultsTree;
using api::schemaTag;

/// One line per expansion: "A1.exec: erlang(4, 4), cv² 0.25 → erlang(4), cv² 0.25".
void printPhases(const std::vector<gspn::PhaseExpansion>& phases, std::ostream& out);

/// Writes a result tree (resultsJson, or its simulated or compared form) as CSV: a header,
/// then one row per element and metric, `section,element,metric,` and the leaf's values:
/// `value` for a number; `value,half_width` for an interval; for a comparison cell,
/// `exact`, then `phases` if present, then `K,K_half_width` per simulated kind, then
/// `outside`. The application's element is empty; a raw net's measures are elements of
/// section `measures` with metric `value`. Fields are quoted as RFC 4180 says.
void writeResultsCsv(const nlohmann::ordered_json& tree, std::ostream& out);

/// A number to six significant digits, as the tables print it ("5.63467", "2e+06").
std::string shortNumber(double x);

/// A simulation's results as the report shows them: the results tree with each number
/// replaced by {"mean": m, "half_width": h} (h the half-width of the confidence interval),
/// and what the stopping rule found (sim/stopping.hpp), with the numbers named by their
/// paths in the tree.
struct IntervalSummary {
  nlohmann::ordered_json tree;
  std::size_t numbers = 0;
  std::size_t imprecise = 0;
  double worstRelative = 0;
  std::string worstPath;  ///< "actors.A1.response_time"
  /// Numbers with no estimate because some replication had no value for them (a response
  /// time with no completion, a measure dividing by zero): {"mean": null, "half_width":
  /// null, "undefined": "no completions in 3 of 10 replications"}. Not counted imprecise:
  /// more replications of the same length do not help, longer ones (--events) do. Counts
  /// only the numbers some replications did define; one undefined in every replication
  /// (an element that never completes, such as a processor without actors) gets the same
  /// entry but no note.
  std::size_t undefined = 0;
  std::string undefinedPath;  ///< the first of them
};
/// The IntervalSummary of `replications` replications whose numbers are `names`.
IntervalSummary intervalSummary(const NamedResults& names, const sim::SampleSummary& summary,
                                std::size_t replications);
/// Prints an IntervalSummary tree as grouped tables of "mean ± half-width" cells.
void printIntervalTable(const nlohmann::ordered_json& tree, std::ostream& out);
/// The tables of `mmt solve`: states, solver, notes, then the metrics per element (or the
/// net's measures, places and transitions).
void printTable(const api::Solution& solution, std::ostream& out);

/// One simulation's IntervalSummary tree, named by its delays ("exponential").
struct ComparedColumn {
  std::string name;
  const nlohmann::ordered_json* tree;
};

/// Exact results (resultsJson) beside simulated intervals of the same shape.
struct Comparison {
  /// The results tree with each number replaced by {"exact": x, NAME: {"mean": m,
  /// "half_width": h} per column, "outside": b}, b true when x lies outside the first
  /// column's interval [m - h, m + h].
  nlohmann::ordered_json tree;
  std::vector<std::string> columns;
  bool phases = false;  ///< cells have a "phases" number
  std::size_t numbers = 0;
  std::vector<std::string> outside;  ///< paths of the flagged numbers ("actors.A1.throughput")
};
/// Throws std::invalid_argument when a column's tree does not have the exact tree's shape.
/// `phases`, when given, is the exact solution of the phase-expanded model (resultsJson),
/// shown as a column of its own after the exact one.
Comparison compare(const nlohmann::ordered_json& exact, const std::vector<ComparedColumn>& columns,
                   const nlohmann::ordered_json* phases = nullptr);
/// Grouped tables: exact value and one "mean ± half-width" cell per column; a flagged
/// row starts with '!'.
void printComparison(const Comparison& comparison, std::ostream& out);

}  // namespace mmt::tools
