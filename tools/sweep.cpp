#include "sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

#include "report.hpp"

namespace mmt::tools {
namespace {

/// Full precision, for CSV and the plot's data.
std::string exact(double x) {
  std::ostringstream s;
  s << std::setprecision(17) << x;
  return s.str();
}

}  // namespace

void printSweepTable(const SweepResult& r, std::ostream& out) {
  if (std::any_of(r.series.begin(), r.series.end(),
                  [](const SweepSeries& s) { return s.meanField; }))
    out << "every point by the mean-field approximation, which is not exact: 'mmt solve "
           "--method mean-field' at a point says how far it is (docs/meanfield.md)\n";
  std::vector<std::string> header;
  for (const SweepParameter& p : r.parameters) header.push_back(p.name);
  if (r.series.size() > 1) header.push_back("delays");
  for (const std::string& m : r.metrics) header.push_back(m);
  std::vector<std::vector<std::string>> rows;
  for (const SweepPoint& point : r.points) {
    std::vector<std::string> row;
    for (const SweepParameter& p : r.parameters)
      row.push_back(shortNumber(point.parameters.at(p.name)));
    const SweepSeries& s = r.series[point.series];
    if (r.series.size() > 1) row.push_back(s.delays + (s.simulated ? " (sim)" : ""));
    if (!point.ok) {
      row.push_back("failed: " + point.reason);
    } else {
      for (const auto& v : point.values)
        row.push_back(!v             ? "—"
                      : v->halfWidth ? shortNumber(v->value) + " ± " + shortNumber(*v->halfWidth)
                                     : shortNumber(v->value));
    }
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      if (!(row.size() < header.size() && c + 1 == row.size()))
        width[c] = std::max(width[c], row[c].size());
  auto print = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c) out << "  ";
      if (c < width.size() && c + 1 < row.size())
        out << std::setw(int(width[c])) << row[c];
      else
        out << row[c];
    }
    out << '\n';
  };
  print(header);
  for (const auto& row : rows) print(row);
}

void writeSweepCsv(const SweepResult& r, std::ostream& out) {
  bool anySimulated = false;
  for (const SweepSeries& s : r.series) anySimulated |= s.simulated;
  // RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
  auto field = [](const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
  };
  std::vector<std::string> header;
  for (const SweepParameter& p : r.parameters) header.push_back(p.name);
  header.push_back("delays");
  for (const std::string& m : r.metrics) {
    header.push_back(m);
    if (anySimulated) header.push_back(m + "_half_width");
  }
  header.push_back("status");
  for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << field(header[i]);
  out << '\n';
  for (const SweepPoint& point : r.points) {
    std::vector<std::string> row;
    for (const SweepParameter& p : r.parameters) row.push_back(exact(point.parameters.at(p.name)));
    row.push_back(r.series[point.series].delays);
    for (std::size_t m = 0; m < r.metrics.size(); ++m) {
      const auto& v = point.ok ? point.values[m] : std::nullopt;
      row.push_back(v ? exact(v->value) : "");
      if (anySimulated) row.push_back(v && v->halfWidth ? exact(*v->halfWidth) : "");
    }
    row.push_back(point.ok ? "ok" : "failed: " + point.reason);
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << field(row[i]);
    out << '\n';
  }
}

std::string metricUnit(const std::string& path) {
  auto endsWith = [&](const char* suffix) {
    const std::string s = suffix;
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (endsWith("response_time") || endsWith("synchronization_delay")) return "t";
  if (endsWith("throughput") || endsWith("arrival_rate")) return "per t";
  if (endsWith("utilization") || endsWith("probability")) return "fraction";
  if (endsWith("queue_length")) return "mean number";
  if (endsWith("mean_tokens")) return "tokens";
  return "";
}

void drawPlot(const Plot& plot, const std::string& file, const std::string& format) {
  std::ostringstream script;
  script << (format == "png" ? "set terminal pngcairo size 900,600 font 'sans,11'\n"
                             : "set terminal svg size 900,600 dynamic font 'sans,11'\n");
  script << "set output '" << file << "'\n"
         << "set title \"" << plot.title << "\" noenhanced\n"
         << "set xlabel '" << plot.xLabel << "' noenhanced\n"
         << "set ylabel '" << plot.yLabel << "' noenhanced\n"
         << "set key inside right top box opaque noenhanced\nset grid\nset autoscale\n";
  if (!plot.xTics.empty()) {
    script << "set xtics (";
    for (std::size_t i = 0; i < plot.xTics.size(); ++i)
      script << (i ? ", " : "") << exact(plot.xTics[i]);
    script << ")\n";
  }
  script << "plot ";
  std::ostringstream data;
  for (std::size_t index = 0; index < plot.curves.size(); ++index) {
    const Curve& c = plot.curves[index];
    const std::size_t colour = c.colour.value_or(index);
    script << (index ? ", " : "") << "'-' using 1:2"
           << (c.errorBars ? ":3 with yerrorlines"
               : c.dashed  ? " with lines dt 2"
                           : " with linespoints")
           << " lw 2 lc " << colour + 1;
    if (!c.dashed) script << " pt " << (7 + colour % 5);
    script << " title \"" << c.title << "\" noenhanced";
    for (const Curve::Point& p : c.points) {
      data << exact(p.x) << ' ' << exact(p.y);
      if (c.errorBars) data << ' ' << exact(p.error);
      data << '\n';
    }
    data << "e\n";
  }
  script << '\n' << data.str();
  FILE* gnuplot = popen("gnuplot", "w");
  if (!gnuplot) throw std::runtime_error("cannot run gnuplot; install it with tools/setup");
  const std::string text = script.str();
  std::fwrite(text.data(), 1, text.size(), gnuplot);
  const int status = pclose(gnuplot);
  if (status != 0)
    throw std::runtime_error("gnuplot failed (exit status " + std::to_string(status) +
                             "); is it installed? tools/setup installs it");
}

std::string axisLabel(const std::string& metric) {
  const std::string unit = metricUnit(metric);
  return metric + (unit.empty() ? "" : " (" + unit + ")");
}

void plotSweep(const SweepResult& r, const std::string& file, const std::string& format) {
  if (r.metrics.empty() || r.parameters.empty()) throw std::runtime_error("nothing to plot");
  const std::string& metric = r.metrics.front();
  const SweepParameter& x = r.parameters.front();
  // One curve per (series, value of the second parameter).
  std::map<std::pair<std::size_t, double>, std::vector<const SweepPoint*>> curves;
  for (const SweepPoint& p : r.points) {
    const double second = r.parameters.size() > 1 ? p.parameters.at(r.parameters[1].name) : 0;
    curves[{p.series, second}].push_back(&p);
  }
  Plot plot{
      r.model + ": " + metric + " against " + x.name, x.name, axisLabel(metric), x.values, {}};
  for (const auto& [key, points] : curves) {
    const SweepSeries& s = r.series[key.first];
    Curve curve;
    curve.title = s.delays + (s.simulated ? " (simulated)" : "");
    if (r.parameters.size() > 1)
      curve.title = r.parameters[1].name + " = " + shortNumber(key.second) + ", " + curve.title;
    curve.errorBars = s.simulated;
    for (const SweepPoint* p : points) {
      const auto& v = p->ok ? p->values.front() : std::nullopt;
      if (v) curve.points.push_back({p->parameters.at(x.name), v->value, v->halfWidth.value_or(0)});
    }
    plot.curves.push_back(std::move(curve));
  }
  drawPlot(plot, file, format);
}

void plotTransient(const api::Solution& solution, std::vector<std::string> metrics,
                   const std::string& file, const std::string& format) {
  const api::TransientSolution& t = *solution.transient;
  const std::vector<api::NamedNumber>& numbers = t.points.front().results.numbers;
  std::vector<std::string> known;
  for (const api::NamedNumber& n : numbers) known.push_back(api::pathText(n.path));
  if (metrics.empty()) {
    // The application's throughput; for a raw net its first measure, else the first
    // transition's throughput.
    auto first = [&](const char* prefix) {
      return std::find_if(known.begin(), known.end(),
                          [&](const std::string& p) { return p.starts_with(prefix); });
    };
    const auto measure = first("measures."), transition = first("transitions.");
    metrics.push_back(solution.isSystem()      ? "application.throughput"
                      : measure != known.end() ? *measure
                                               : *transition);
  }
  std::map<std::string, double> steady;
  for (const api::NamedNumber& n : api::namedResults(solution.metrics, solution.values).numbers)
    steady[api::pathText(n.path)] = n.value;
  Plot plot{solution.name + (t.cumulative ? ": time averages over [0, t]" : ": transient"),
            "t",
            metrics.size() == 1 ? axisLabel(metrics.front()) : "",
            {},
            {}};
  for (const std::string& metric : metrics) {
    const auto at = std::find(known.begin(), known.end(), metric);
    if (at == known.end() && steady.contains(metric))
      throw std::invalid_argument("'" + metric +
                                  "' has no value at an instant (Little's law defines it over the "
                                  "long run); plot a queue length or a throughput instead");
    if (at == known.end()) throw api::UnknownMetricError(metric, known);
    const std::size_t i = std::size_t(at - known.begin());
    const std::size_t colour = std::size_t(&metric - metrics.data());
    Curve curve{metric, false, false, colour, {}};
    for (const api::TransientPoint& p : t.points)
      if (std::isfinite(p.results.numbers[i].value))
        curve.points.push_back({p.time, p.results.numbers[i].value});
    std::sort(curve.points.begin(), curve.points.end(),
              [](const Curve::Point& a, const Curve::Point& b) { return a.x < b.x; });
    if (curve.points.empty()) continue;
    Curve limit{metric + " in steady state", false, true, colour, {}};
    if (solution.hasSteadyState())
      limit.points = {{curve.points.front().x, steady.at(metric)},
                      {curve.points.back().x, steady.at(metric)}};
    plot.curves.push_back(std::move(curve));
    if (solution.hasSteadyState()) plot.curves.push_back(std::move(limit));
  }
  drawPlot(plot, file, format);
}

}  // namespace mmt::tools
