#include "api/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fluid/continuous_net.hpp"

namespace mmt::api {

nlohmann::ordered_json referenceJson(const ApproximationReference& r,
                                     std::pair<std::string, nlohmann::ordered_json> what,
                                     nlohmann::ordered_json numbers) {
  using json = nlohmann::ordered_json;
  json out = {{"method", r.method.empty() ? json() : json(r.method)},
              {"unavailable", r.unavailable},
              {"exact_missing", r.exactMissing}};
  out[what.first] = std::move(what.second);
  out["replications"] = r.replications;
  out["events"] = r.events;
  out["confidence"] = r.confidence;
  out["seconds"] = r.seconds;
  out["farthest"] = {{"path", r.farthestPath}, {"distance", r.farthestDistance}};
  out["numbers"] = std::move(numbers);
  return out;
}

nlohmann::ordered_json equilibriumJson(const std::string& method,
                                       const fluid::EquilibriumSearch& e) {
  return {{"method", method},
          {"residual", e.residual},
          {"settled_at", e.settledAt},
          {"steps", e.steps},
          {"newton_iterations", e.newtonIterations},
          {"spectral_abscissa", e.spectralAbscissa},
          {"stable", e.stable},
          {"neutral", e.neutral},
          {"kinks", e.kinks},
          {"dead", e.dead}};
}

namespace {

/// The most timed firings per replication of a short simulation.
constexpr std::uint64_t kMostSimulatedEvents = 4'000'000;

}  // namespace

double relativeDistance(double value, double reference) {
  constexpr double kRounding = 1e-12;
  if (std::abs(reference) <= kRounding)
    return std::abs(value) <= kRounding ? 0 : std::numeric_limits<double>::quiet_NaN();
  return std::abs(value - reference) / std::abs(reference);
}

std::map<std::string, double> numbersByPath(const NamedResults& results) {
  std::map<std::string, double> out;
  for (const NamedNumber& n : results.numbers) out[pathText(n.path)] = n.value;
  return out;
}

std::optional<std::pair<double, double>> ShortSimulation::at(
    const std::vector<std::string>& path) const {
  const nlohmann::ordered_json* node = &simulation.summary.tree;
  for (const std::string& part : path) {
    if (!node->is_object() || !node->contains(part)) return std::nullopt;
    node = &(*node)[part];
  }
  if (!node->is_object() || !(*node)["mean"].is_number()) return std::nullopt;
  const auto& h = (*node)["half_width"];
  return std::pair{(*node)["mean"].get<double>(), h.is_number() ? h.get<double>() : 0.0};
}

ShortSimulation shortSimulation(const Model& model, const Settings& settings,
                                std::uint64_t replications, std::uint64_t events, double flow) {
  SimulationSettings s;
  s.delays = sim::Delays::Exponential;
  s.replications = replications;
  // Long enough to pass the initial transient of a large population: some 20 time
  // constants of the slowest transition at the answer's total flow, and never fewer than 5.
  const double slowest = fluid::timedRateRange(model.net()).first;
  const double perConstant = slowest > 0 ? flow / slowest : 0;
  if (5 * perConstant > static_cast<double>(kMostSimulatedEvents))
    throw SimulationError("a run past the initial transient needs some " +
                          std::to_string(static_cast<std::uint64_t>(5 * perConstant)) +
                          " timed firings per replication (5 time constants of the slowest "
                          "transition at the approximate flow), more than " +
                          std::to_string(kMostSimulatedEvents));
  s.events = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(20 * perConstant), events,
                                       std::max(events, kMostSimulatedEvents));
  s.run.interrupt = settings.run.interrupt;
  ShortSimulation out{simulate(model, s), s.events};
  return out;
}

TransientPoint instantAt(double time, NamedResults results) {
  TransientPoint point{time, {std::move(results.sections), {}}};
  for (NamedNumber& n : results.numbers)
    if (!isLittle(n.path.back())) point.results.numbers.push_back(std::move(n));
  return point;
}

void addResults(nlohmann::ordered_json& document, const nlohmann::ordered_json& results,
                const std::vector<TransientPoint>& points) {
  using json = nlohmann::ordered_json;
  for (const auto& [key, value] : results.items()) document[key] = value;
  if (points.empty()) return;
  json array = json::array();
  for (const TransientPoint& p : points) {
    json entry = {{"time", p.time}};
    const json tree = resultsTree(p.results, [&](std::size_t i) {
      const double v = p.results.numbers[i].value;
      return std::isfinite(v) ? json(v) : json();
    });
    for (auto& [key, value] : tree.items()) entry[key] = value;
    array.push_back(std::move(entry));
  }
  document["transient"] = std::move(array);
}

}  // namespace mmt::api
