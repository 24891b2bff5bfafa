#pragma once
/// \file
/// Parameter sweeps (docs/sweeps.md): a model built and solved (or simulated) at every point
/// of a grid of parameter values, points in parallel when solved exactly, each point's
/// failure kept in its row while the others go on; and the metric paths that name a number
/// of a results tree ("application.response_time", "links.Ether.utilization").

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/parallel.hpp"
#include "api/settings.hpp"
#include "api/simulate.hpp"

namespace mmt::api {

/// One swept parameter: `P=1..8` (whole steps), `x=0.5..2:0.5` (a step), or `N=512,1024`.
struct SweepParameter {
  std::string name;
  std::vector<double> values;
};
/// Parses `NAME=SPEC`, a range of at most `mostValues` values; throws
/// std::invalid_argument saying what is wrong.
SweepParameter parseSweepParameter(const std::string& text, std::size_t mostValues = 10'000);

/// Every combination of the parameters' values, the first parameter varying slowest.
std::vector<Parameters> sweepGrid(const std::vector<SweepParameter>& parameters);

/// How one point is solved: its delays ("exponential", "constant", "declared", "phases")
/// and whether by the exact solver or by simulation.
struct SweepSeries {
  std::string delays;
  bool simulated = false;
  /// Every point answered by the mean-field approximation (api/meanfield.hpp), its model
  /// never compiled at the point's size.
  bool meanField = false;
  /// "exact", "simulate" or "mean-field".
  std::string method() const;
};
/// The series of `delays` ("exponential", "constant", "declared" or "phases"): constant
/// and declared delays are simulated, the others solved exactly unless `simulate` (then
/// only phases are solved), or by the mean-field approximation with `meanField` (only
/// exponential delays). Throws SettingError("delays") for another name or kind.
SweepSeries sweepSeries(const std::string& delays, bool simulate, bool meanField = false);

/// A metric at one point: a value, and a half-width when simulated.
struct SweepValue {
  double value = 0;
  std::optional<double> halfWidth;
};

/// A value in transit between processes (the outcomes of api/parallel.hpp's points):
/// [value, half-width or null].
nlohmann::json valueInTransit(const SweepValue& value);
/// The value valueInTransit encoded; throws nlohmann::json::exception for another shape.
SweepValue valueFromTransit(const nlohmann::json& encoded);

/// One point of one series.
struct SweepPoint {
  Parameters parameters;
  std::size_t series = 0;
  bool ok = false;
  std::string reason;                             ///< why it failed
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
  /// Points that failed.
  std::size_t failed() const;
  bool anySimulated() const;
  /// The document `mmt sweep --format json` prints (docs/schema/sweep.json).
  nlohmann::ordered_json json() const;
};

/// What a sweep runs.
struct SweepSettings {
  std::vector<SweepParameter> parameters;  ///< the grid, the first varying slowest
  std::vector<std::string> metrics;        ///< empty: the application's throughput and
                                           ///< response time, or a raw net's measures
  std::vector<SweepSeries> series{{"exponential", false}};
  Settings solver;
  SimulationSettings simulation;
  std::uint32_t maxPhases = 10;
  /// Exact points solved at once (0: one per core); simulated ones run one at a time,
  /// each on every core.
  unsigned threads = 0;
  /// When set, the points after the first are spread over its processes instead
  /// (`mpirun -n P mmt sweep`); the result is complete in the leading process only.
  std::shared_ptr<const PointDistribution> distribution;
};

/// Sweeps `base` (loaded with the fixed parameters, which every point keeps unless it
/// sets them). The first point runs alone: a metric that is not a result stops the sweep
/// there with UnknownMetricError. `progress(done, total)` is called after each point, from
/// the thread that ran it. Throws SettingError (a parameter both swept and fixed, swept
/// twice, no series; a raw net without measures and no metric named).
SweepResult sweep(const Model& base, const SweepSettings& settings,
                  const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace mmt::api
