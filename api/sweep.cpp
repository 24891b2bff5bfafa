#include "api/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "api/meanfield.hpp"
#include "api/parallel.hpp"
#include "api/solve.hpp"

namespace mmt::api {

namespace {

double parseNumber(const std::string& text, const std::string& where) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !std::isfinite(v))
    throw std::invalid_argument("'" + text + "' in " + where + " is not a number");
  return v;
}

}  // namespace

SweepParameter parseSweepParameter(const std::string& text, std::size_t mostValues) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("'" + text +
                                "': write NAME=A..B, NAME=A..B:STEP or NAME=V1,V2,...");
  SweepParameter out{text.substr(0, eq), {}};
  const std::string spec = text.substr(eq + 1);
  if (const auto dots = spec.find(".."); dots != std::string::npos) {
    const auto colon = spec.find(':', dots);
    const double from = parseNumber(spec.substr(0, dots), text);
    const double to = parseNumber(
        spec.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2),
        text);
    const double step =
        colon == std::string::npos ? 1.0 : parseNumber(spec.substr(colon + 1), text);
    if (!(step > 0)) throw std::invalid_argument("'" + text + "': the step must be positive");
    if (to < from) throw std::invalid_argument("'" + text + "': the range ends before it starts");
    const double count = std::floor((to - from) / step + 1e-9) + 1;
    if (count > double(mostValues))
      throw std::invalid_argument("'" + text + "': more than " + std::to_string(mostValues) +
                                  " values");
    for (double i = 0; i < count; ++i) out.values.push_back(from + i * step);
  } else {
    std::stringstream list(spec);
    for (std::string item; std::getline(list, item, ',');)
      out.values.push_back(parseNumber(item, text));
  }
  if (out.values.empty()) throw std::invalid_argument("'" + text + "': no values");
  return out;
}

std::vector<Parameters> sweepGrid(const std::vector<SweepParameter>& parameters) {
  std::vector<Parameters> grid{{}};
  for (const SweepParameter& p : parameters) {
    std::vector<Parameters> next;
    for (const auto& partial : grid)
      for (double v : p.values) {
        auto point = partial;
        point[p.name] = v;
        next.push_back(std::move(point));
      }
    grid = std::move(next);
  }
  return grid;
}

std::optional<SweepValue> lookupMetric(const nlohmann::ordered_json& tree,
                                       const std::string& path) {
  if (path.empty()) {
    if (tree.is_number()) return SweepValue{tree.get<double>(), std::nullopt};
    if (tree.is_object() && tree.contains("mean")) {
      if (!tree["mean"].is_number()) return std::nullopt;
      SweepValue v{tree["mean"].get<double>(), std::nullopt};
      if (tree.contains("half_width") && tree["half_width"].is_number())
        v.halfWidth = tree["half_width"].get<double>();
      return v;
    }
    return std::nullopt;
  }
  if (!tree.is_object()) return std::nullopt;
  std::optional<SweepValue> best;
  std::size_t bestLength = 0;
  for (const auto& [key, child] : tree.items()) {
    const bool whole = path == key;
    const bool prefix = path.size() > key.size() && path.compare(0, key.size(), key) == 0 &&
                        path[key.size()] == '.';
    if ((!whole && !prefix) || key.size() < bestLength) continue;
    if (auto v = lookupMetric(child, whole ? "" : path.substr(key.size() + 1))) {
      best = v;
      bestLength = key.size();
    }
  }
  return best;
}

std::vector<std::string> metricPaths(const nlohmann::ordered_json& tree) {
  std::vector<std::string> out;
  std::function<void(const nlohmann::ordered_json&, const std::string&)> walk =
      [&](const nlohmann::ordered_json& node, const std::string& path) {
        if (!node.is_object() || node.contains("mean")) {
          out.push_back(path);
          return;
        }
        for (const auto& [key, child] : node.items())
          walk(child, path.empty() ? key : path + "." + key);
      };
  walk(tree, "");
  return out;
}

nlohmann::ordered_json SweepResult::json() const {
  const SweepResult& r = *this;
  using json = nlohmann::ordered_json;
  json out = schemaTag("sweep");
  out["model"] = r.model;
  json parameters = json::object();
  for (const SweepParameter& p : r.parameters) parameters[p.name] = p.values;
  out["parameters"] = parameters;
  out["metrics"] = r.metrics;
  json points = json::array();
  for (const SweepPoint& point : r.points) {
    json p;
    json values = json::object();
    for (const auto& [name, v] : point.parameters) values[name] = v;
    p["parameters"] = values;
    p["delays"] = r.series[point.series].delays;
    p["method"] = r.series[point.series].method();
    p["status"] = point.ok ? "ok" : "failed";
    if (!point.ok) p["reason"] = point.reason;
    if (point.ok) {
      if (r.series[point.series].method() == "exact") p["tangible_markings"] = point.states;
      json metrics = json::object();
      for (std::size_t m = 0; m < r.metrics.size(); ++m) {
        const auto& v = point.values[m];
        if (!v)
          metrics[r.metrics[m]] = nullptr;
        else if (v->halfWidth)
          metrics[r.metrics[m]] = {{"mean", v->value}, {"half_width", *v->halfWidth}};
        else
          metrics[r.metrics[m]] = v->value;
      }
      p["results"] = metrics;
    }
    points.push_back(std::move(p));
  }
  out["points"] = points;
  return out;
}

std::size_t SweepResult::failed() const {
  return std::size_t(
      std::count_if(points.begin(), points.end(), [](const SweepPoint& p) { return !p.ok; }));
}

bool SweepResult::anySimulated() const {
  return std::any_of(series.begin(), series.end(),
                     [](const SweepSeries& s) { return s.simulated; });
}

std::string SweepSeries::method() const {
  return meanField ? "mean-field" : simulated ? "simulate" : "exact";
}

SweepSeries sweepSeries(const std::string& delays, bool simulate, bool meanField) {
  if (delays != "exponential" && delays != "constant" && delays != "declared" && delays != "phases")
    throw SettingError("delays", "'" + delays +
                                     "' is not a delay kind (exponential, constant, "
                                     "declared, phases)");
  if (meanField && delays != "exponential")
    throw SettingError("delays",
                       "the mean-field approximation reads every delay as "
                       "exponential: '" +
                           delays + "' has no mean-field series");
  if (meanField) return {delays, false, true};
  return {delays, simulate ? delays != "phases" : delays == "constant" || delays == "declared"};
}

namespace {

/// The metrics a sweep reports by default.
std::vector<std::string> defaultMetrics(const Model& model) {
  if (model.isSystem()) return {"application.throughput", "application.response_time"};
  std::vector<std::string> out;
  for (const gspn::Measure& m : model.raw->measures()) out.push_back("measures." + m.name);
  if (out.empty()) throw SettingError("metric", "this net has no measures: name what to report");
  return out;
}

/// A metric that is no result of a point, and the paths that are.
struct UnknownMetric {
  std::string metric;
  std::vector<std::string> known;
};

/// The metrics of a point's results `tree` into the point; the first that is no result.
std::optional<UnknownMetric> lookUp(const nlohmann::ordered_json& tree,
                                    const std::vector<std::string>& metrics, SweepPoint& point) {
  const std::vector<std::string> known = metricPaths(tree);
  std::optional<UnknownMetric> unknown;
  for (const std::string& m : metrics) {
    point.values.push_back(lookupMetric(tree, m));
    // Absent, not merely undefined (a null response time): a misspelt path.
    if (!point.values.back() && !unknown && std::find(known.begin(), known.end(), m) == known.end())
      unknown = UnknownMetric{m, known};
  }
  point.ok = true;
  return unknown;
}

/// One point of one series: built, solved or simulated, its metrics looked up (a failure
/// is kept in the point). Returns the first metric that is no result at all.
std::optional<UnknownMetric> runPoint(const Model& base, const SweepSettings& settings,
                                      const std::vector<std::string>& metrics,
                                      const SweepSeries& series, SweepPoint& point) {
  nlohmann::ordered_json tree;
  try {
    if (series.meanField) {
      MeanFieldRequest request;
      request.reference = MeanFieldRequest::Reference::None;
      tree = solveMeanField(base.source, point.parameters, settings.solver, request).results();
      return lookUp(tree, metrics, point);
    }
    Model model = base.at(point.parameters);
    if (series.delays == "phases") model.expandPhases(settings.maxPhases);
    if (!series.simulated) {
      const Solution exact = solve(model, settings.solver);
      tree = exact.results();
      point.states = exact.chain.explored.graph.stateCount();
    } else {
      SimulationSettings simulation = settings.simulation;
      simulation.delays = sim::parseDelays(series.delays);  // never "phases": solved exactly
      tree = simulate(model, simulation).summary.tree;
    }
  } catch (const InterruptedError&) {
    throw;
  } catch (const Error& e) {
    point.reason = e.summary();
    return std::nullopt;
  }
  return lookUp(tree, metrics, point);
}

/// A point's outcome as bytes (CBOR), for a point computed in another process; its
/// parameters and series follow from its index.
PointBytes encodeOutcome(const SweepPoint& point) {
  nlohmann::json values = nlohmann::json::array();
  for (const auto& v : point.values)
    values.push_back(v ? valueInTransit(*v) : nlohmann::json(nullptr));
  return nlohmann::json::to_cbor(nlohmann::json{
      {"ok", point.ok}, {"reason", point.reason}, {"states", point.states}, {"values", values}});
}

void decodeOutcome(const PointBytes& bytes, SweepPoint& point) {
  const nlohmann::json j = nlohmann::json::from_cbor(bytes);
  point.ok = j.at("ok").get<bool>();
  point.reason = j.at("reason").get<std::string>();
  point.states = j.at("states").get<std::size_t>();
  point.values.clear();
  for (const nlohmann::json& v : j.at("values"))
    point.values.push_back(v.is_null() ? std::nullopt
                                       : std::optional<SweepValue>(valueFromTransit(v)));
}

}  // namespace

nlohmann::json valueInTransit(const SweepValue& value) {
  return {value.value,
          value.halfWidth ? nlohmann::json(*value.halfWidth) : nlohmann::json(nullptr)};
}

SweepValue valueFromTransit(const nlohmann::json& encoded) {
  SweepValue value{encoded.at(0).get<double>(), std::nullopt};
  if (!encoded.at(1).is_null()) value.halfWidth = encoded.at(1).get<double>();
  return value;
}

SweepResult sweep(const Model& base, const SweepSettings& settings,
                  const std::function<void(std::size_t, std::size_t)>& progress) {
  SweepResult result;
  result.series = settings.series;
  settings.solver.check();
  if (result.anySimulated()) settings.simulation.check();
  if (result.series.empty()) throw SettingError("delays", "no delay kind");
  for (std::size_t i = 0; i < settings.parameters.size(); ++i) {
    const std::string& name = settings.parameters[i].name;
    if (base.parameters.count(name))
      throw SettingError("param", "'" + name + "' is both swept and set by -D");
    for (std::size_t k = 0; k < i; ++k)
      if (settings.parameters[k].name == name)
        throw SettingError("param", "'" + name + "' is swept twice");
  }
  result.model = base.name();
  result.parameters = settings.parameters;
  result.metrics = settings.metrics.empty() ? defaultMetrics(base) : settings.metrics;

  std::vector<Parameters> grid = sweepGrid(settings.parameters);
  for (auto& point : grid) point.insert(base.parameters.begin(), base.parameters.end());
  const std::size_t series = result.series.size(), total = grid.size() * series;
  result.points.resize(total);
  std::atomic<std::size_t> done{0};
  for (std::size_t i = 0; i < total; ++i) {
    result.points[i].parameters = grid[i / series];
    result.points[i].series = i % series;
  }
  auto compute = [&](SweepPoint& point) {
    return runPoint(base, settings, result.metrics, result.series[point.series], point);
  };
  auto count = [&] {
    const std::size_t finished = ++done;
    if (progress) progress(finished, total);
  };
  // The first point alone (in every process): a misspelt metric stops the sweep before it
  // starts.
  if (const auto unknown = compute(result.points[0]))
    throw UnknownMetricError(unknown->metric, unknown->known);
  count();
  if (settings.distribution) {
    settings.distribution->distribute(
        1, total,
        [&](std::size_t i) {
          SweepPoint point = result.points[i];
          compute(point);
          return encodeOutcome(point);
        },
        [&](std::size_t i, const PointBytes& bytes) {
          decodeOutcome(bytes, result.points[i]);
          count();
          return false;
        });
    return result;
  }
  // Exact points in parallel, one per core; a simulation uses every core itself.
  const unsigned threads = result.anySimulated() ? 1u
                           : settings.threads    ? settings.threads
                                                 : threadsFor(total);
  runParallel(1, total, threads, [&](std::size_t i) {
    compute(result.points[i]);
    count();
  });
  return result;
}

}  // namespace mmt::api
