#pragma once
// `mmt sweep`'s outputs (docs/sweeps.md): a table on stdout, a CSV file and a gnuplot
// picture of an api::SweepResult.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

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
/// Draws the first metric against the first parameter with gnuplot (one curve per value of
/// the second parameter and per series, error bars where simulated) into `file` (.svg or
/// .png). Throws std::runtime_error when gnuplot fails.
void plotSweep(const SweepResult& r, const std::string& file, const std::string& format);

}  // namespace mmt::tools
