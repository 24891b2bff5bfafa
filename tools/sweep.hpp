#pragma once
// `mmt sweep`: a model solved at every point of a grid of parameter values (docs/sweeps.md).
// The grid, the runs (points in parallel when solved exactly), and the three outputs: a
// table or JSON on stdout, a CSV file, and a gnuplot picture.
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grammar/load_gspn.hpp"

namespace mmt::tools {

/// One swept parameter: `P=1..8` (whole steps), `x=0.5..2:0.5` (a step), or `N=512,1024`.
struct SweepParameter {
  std::string name;
  std::vector<double> values;
};
/// Parses `NAME=SPEC`; throws std::invalid_argument saying what is wrong.
SweepParameter parseSweepParameter(const std::string& text);

/// Every combination of the parameters' values, the first parameter varying slowest.
std::vector<grammar::ParameterOverrides> sweepGrid(const std::vector<SweepParameter>& parameters);

/// How one point is solved: its delays ("exponential", "constant", "declared", "phases")
/// and whether by the exact solver or by simulation.
struct SweepSeries {
  std::string delays;
  bool simulated = false;
};

/// A metric at one point: a value, and a half-width when simulated.
struct SweepValue {
  double value = 0;
  std::optional<double> halfWidth;
};

/// One point of one series.
struct SweepPoint {
  grammar::ParameterOverrides parameters;
  std::size_t series = 0;
  bool ok = false;
  std::string reason;  ///< why it failed
  std::vector<std::optional<SweepValue>> values;  ///< per metric; empty when absent
  std::size_t states = 0;
};

/// The number at `path` ("application.response_time", "places.A.ready[x].mean_tokens") of
/// a results tree, a leaf being a number or {"mean", "half_width"}; names may contain dots,
/// the longest key that fits is taken.
std::optional<SweepValue> lookupMetric(const nlohmann::ordered_json& tree, const std::string& path);
/// Every leaf path of a results tree, for "known metrics" in messages.
std::vector<std::string> metricPaths(const nlohmann::ordered_json& tree);

struct SweepResult {
  std::string model;
  std::vector<SweepParameter> parameters;
  std::vector<std::string> metrics;
  std::vector<SweepSeries> series;
  std::vector<SweepPoint> points;  ///< point-major: every series of point 1, then point 2, ...
};

void printSweepTable(const SweepResult& r, std::ostream& out);
nlohmann::ordered_json sweepJson(const SweepResult& r);
/// Header: the parameter names, `delays`, then the metric paths (each followed by
/// `PATH_half_width` when some series is simulated), then `status`.
void writeSweepCsv(const SweepResult& r, std::ostream& out);
/// The unit of a metric, for axis labels: "t", "per t", "fraction", "tokens", ...
std::string metricUnit(const std::string& path);
/// Draws the first metric against the first parameter with gnuplot (one curve per value of
/// the second parameter and per series, error bars where simulated) into `file` (.svg or
/// .png). Throws std::runtime_error when gnuplot fails.
void plotSweep(const SweepResult& r, const std::string& file, const std::string& format);

}  // namespace mmt::tools
