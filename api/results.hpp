#pragma once
/// \file
/// Results as named numbers and as the JSON tree every command and the Python module
/// share: the MMT metrics per element of a system (compiler/metrics.hpp), or mean tokens,
/// throughputs and measures of a raw net (docs/json.md).

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

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
};

/// Mean tokens per place, throughput per transition and the user measures of `net`,
/// evaluated against `source` (an exact solution or a simulation run).
NetMeasures netMeasures(const gspn::Net& net, const gspn::MeasureSource& source);

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
/// "response_time", "arrival_rate", "loss_probability" where defined}.
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


}  // namespace mmt::api
