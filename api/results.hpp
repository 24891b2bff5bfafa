#pragma once
/// \file
/// Results as named numbers and as the JSON tree every command and the Python module
/// share: the MMT metrics per element of a system (compiler/metrics.hpp), or mean tokens,
/// throughputs and measures of a raw net (docs/json.md).

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/metrics.hpp"
#include "gspn/measure_source.hpp"
#include "gspn/phases.hpp"
#include "sim/stopping.hpp"

namespace mmt::api {

/// Steady-state quantities of a raw net, by name, in net order.
struct NetMeasures {
  std::vector<std::pair<std::string, double>> meanTokens;  ///< per place, tokens
  std::vector<std::pair<std::string, double>> throughput;  ///< per transition, per time unit
  std::vector<std::pair<std::string, double>> measures;    ///< user measures
  /// A net that unfolds a coloured one (gspn::Net::unfolded): per coloured place the sum of
  /// its colours' mean tokens, per coloured transition the sum of its bindings'
  /// throughputs, in the order the net first names them. Empty otherwise.
  std::vector<std::pair<std::string, double>> colouredMeanTokens, colouredThroughput;
};

/// Mean tokens per place, throughput per transition and the user measures of `net`,
/// evaluated against `source` (an exact solution or a simulation run); the coloured
/// totals of an unfolded net.
NetMeasures netMeasures(const gspn::Net& net, const gspn::MeasureSource& source);

/// Whether a metric (the last part of a result's path) is defined by Little's law, as a
/// population over a throughput: "response_time", "synchronization_delay", "blocking_time".
/// Such a number has no value at an instant.
bool isLittle(const std::string& metric);

/// One number of the results, by its path in the JSON tree: {"actors", "A1",
/// "response_time"}, {"application", "throughput"}, {"measures", "m"}.
struct NamedNumber {
  std::vector<std::string> path;
  double value;
};
/// Every number of a system's metrics (or of a raw net's measures) in the order the JSON
/// prints them, and the sections the tree always has (even when empty).
struct NamedResults {
  std::vector<std::string> sections;
  std::vector<NamedNumber> numbers;
};
/// The application's metrics that its workload defines: {"throughput", and
/// "response_time", "arrival_rate", "loss_probability", "makespan" where defined}.
nlohmann::ordered_json applicationJson(const compiler::ApplicationMetrics& application);
NamedResults namedResults(const std::optional<compiler::SystemMetrics>& metrics,
                          const NetMeasures& net);
/// The tree of `results` with leaf(i) at the path of number i.
nlohmann::ordered_json resultsTree(const NamedResults& results,
                                   const std::function<nlohmann::ordered_json(std::size_t)>& leaf);
/// "actors.A1.response_time".
std::string pathText(const std::vector<std::string>& path);
/// The numbers alone, for the simulation's statistics.
sim::Sample resultsSample(const NamedResults& results);

/// The JSON form of phase expansions: [{"transition", "declared", "phases",
/// "declared_cv2", "reached_cv2"}, ...].
nlohmann::ordered_json phasesJson(const std::vector<gspn::PhaseExpansion>& phases);
/// The note `mmt solve` prints when a model declares non-exponential delays.
std::string declaredDelayNote(std::size_t declaredDelays);

/// The results part of a report (no states or solver block): the MMT metrics per element
/// of a system, or places, transitions and measures of a raw net.
nlohmann::ordered_json resultsJson(const std::optional<compiler::SystemMetrics>& metrics,
                                   const NetMeasures& net);

/// The major version of every command's JSON output (docs/json.md says what changes it).
constexpr int kJsonMajor = 1;
/// `{"schema": "mmt/<command>/<major>"}`, the first key of every JSON output: the schema it
/// follows, docs/schema/<command>.json.
nlohmann::ordered_json schemaTag(const std::string& command);

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

/// One simulation's IntervalSummary tree, named by its delays ("exponential").
struct ComparedColumn {
  std::string name;
  const nlohmann::ordered_json* tree;
  bool exact = false;  ///< a periodic run without randomness: half-widths 0, exact
};

/// The exact solution of a variant of the model, shown as a column of its own after the
/// exact one: "phases" (declared delays expanded into phases), "constant_exact" (every
/// delay constant, solved as a DSPN).
struct SolvedColumn {
  std::string name;
  const nlohmann::ordered_json* tree;
};

/// Exact results (resultsJson) beside simulated intervals of the same shape.
struct ComparisonTree {
  /// The results tree with each number replaced by {"exact": x, per solved column NAME: y,
  /// per simulated column NAME: {"mean": m, "half_width": h}, "outside": b}, b true when x
  /// lies outside the first simulated column's interval [m - h, m + h].
  nlohmann::ordered_json tree;
  std::vector<std::string> columns;
  std::vector<bool> exact;          ///< by column: ComparedColumn::exact
  std::vector<std::string> solved;  ///< the solved columns' names, in order
  std::size_t numbers = 0;
  std::vector<std::string> outside;  ///< paths of the flagged numbers ("actors.A1.throughput")
};
/// Throws std::invalid_argument when a column's tree does not have the exact tree's shape.
ComparisonTree compareTrees(const nlohmann::ordered_json& exact,
                            const std::vector<ComparedColumn>& columns,
                            const std::vector<SolvedColumn>& solved = {});
}  // namespace mmt::api
