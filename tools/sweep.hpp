#pragma once
// `mmt sweep`'s outputs (docs/sweeps.md): a table on stdout, a CSV file and a gnuplot
// picture of an api::SweepResult; and the picture of `mmt solve --at --plot`.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "api/solve.hpp"
#include "api/sweep.hpp"

namespace mmt::tools {

using api::lookupMetric;
using api::metricPaths;
using api::SweepParameter;
using api::SweepPoint;
using api::SweepResult;
using api::SweepSeries;
using api::SweepValue;

void printSweepTable(const SweepResult& r, std::ostream& out);
/// Header: the parameter names, `delays`, then the metric paths (each followed by
/// `PATH_half_width` when some series is simulated), then `status`.
void writeSweepCsv(const SweepResult& r, std::ostream& out);
/// The unit of a metric, for axis labels: "t", "per t", "fraction", "tokens", ...
std::string metricUnit(const std::string& path);
/// A picture for gnuplot: curves of points (x, y, and an error bar's half-width).
struct Curve {
  struct Point {
    double x, y, error = 0;
  };
  std::string title;
  bool errorBars = false;             ///< draw `error` as error bars
  bool dashed = false;                ///< a reference line, without point marks
  std::optional<std::size_t> colour;  ///< gnuplot's colour index; default the curve's
  std::vector<Point> points;
};
struct Plot {
  std::string title, xLabel, yLabel;
  std::vector<double> xTics;  ///< empty: gnuplot's own
  std::vector<Curve> curves;
};
/// Draws `plot` with gnuplot into `file` as `format` ("svg" or "png"). Throws
/// std::runtime_error when gnuplot fails or is missing.
void drawPlot(const Plot& plot, const std::string& file, const std::string& format);
/// "PATH (unit)" for an axis.
std::string axisLabel(const std::string& metric);

/// Draws the first metric against the first parameter with gnuplot (one curve per value of
/// the second parameter and per series, error bars where simulated) into `file` (.svg or
/// .png). Throws std::runtime_error when gnuplot fails.
void plotSweep(const SweepResult& r, const std::string& file, const std::string& format);
/// Draws each metric of `metrics` (result paths; default: the application's throughput, or
/// a raw net's first measure or first transition's throughput) against t from the
/// solution's transient points, with its steady-state value as a dashed line. Throws
/// std::invalid_argument for a steady-state result with no value at an instant (a response
/// time), api::UnknownMetricError for a path that names no result (listing those that do),
/// std::runtime_error when gnuplot fails.
void plotTransient(const api::Solution& solution, std::vector<std::string> metrics,
                   const std::string& file, const std::string& format);

}  // namespace mmt::tools
