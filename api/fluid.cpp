#include "api/fluid.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include "api/reference.hpp"
#include "api/simulate.hpp"

namespace mmt::api {

void FluidRequest::check() const {
  for (double t : times)
    if (!(t >= 0) || !std::isfinite(t))
      throw SettingError("at", "each time must be a finite number at least 0");
  if (reference == Reference::Simulation && (replications < 2 || events == 0))
    throw SettingError("reference", "a simulation needs at least 2 replications of 1 event");
}

std::string toString(FluidRequest::Reference reference) {
  switch (reference) {
    case FluidRequest::Reference::Auto:
      return "auto";
    case FluidRequest::Reference::Exact:
      return "exact";
    case FluidRequest::Reference::Simulation:
      return "simulation";
    case FluidRequest::Reference::None:
      return "none";
  }
  return "auto";
}

FluidRequest::Reference parseReference(const std::string& name) {
  for (auto r : {FluidRequest::Reference::Auto, FluidRequest::Reference::Exact,
                 FluidRequest::Reference::Simulation, FluidRequest::Reference::None})
    if (toString(r) == name) return r;
  throw std::invalid_argument("unknown reference '" + name + "' (auto, exact, simulation or none)");
}

double FluidReference::Number::distance() const { return relativeDistance(fluid, reference); }

namespace {

/// The fluid point as the quantities every metric is built from: E[m(p)] = x_p, X(t) =
/// f_t; an expectation over markings has no value at one point (NaN).
class FluidMeasures final : public gspn::MeasureSource {
 public:
  FluidMeasures(const Eigen::VectorXd& amounts, const Eigen::VectorXd& flows)
      : amounts_(amounts), flows_(flows) {}
  double meanTokens(gspn::PlaceId p) const override { return amounts_[p]; }
  double throughput(gspn::TransitionId t) const override { return flows_[t]; }
  double expectation(const std::function<double(gspn::MarkingView)>&,
                     std::span<const gspn::PlaceId>) const override {
    return std::numeric_limits<double>::quiet_NaN();
  }

 private:
  const Eigen::VectorXd& amounts_;
  const Eigen::VectorXd& flows_;
};

void evaluate(const Model& model, const gspn::MeasureSource& source,
              std::optional<compiler::SystemMetrics>& metrics, NetMeasures& values) {
  if (model.compiled)
    metrics = compiler::computeMetrics(*model.compiled, source);
  else
    values = netMeasures(model.net(), source);
}

/// The fluid numbers beside `value(path)` (reference, half-width), where it has one.
void compare(
    const NamedResults& fluid, FluidReference& out,
    const std::function<std::optional<std::pair<double, double>>(const std::vector<std::string>&)>&
        value) {
  for (const NamedNumber& n : fluid.numbers) {
    const auto r = value(n.path);
    if (!r || !std::isfinite(n.value) || !std::isfinite(r->first)) continue;
    FluidReference::Number number{n.path, n.value, r->first, r->second};
    const double d = number.distance();
    if (std::isfinite(d) && d > out.farthestDistance) {
      out.farthestDistance = d;
      out.farthestPath = pathText(n.path);
    }
    out.numbers.push_back(std::move(number));
  }
}

std::optional<FluidReference> exactReference(const Model& model, const Settings& settings,
                                             const FluidRequest& request,
                                             const NamedResults& fluid) {
  Settings exact = settings;
  exact.maxStates = request.exactLimit;
  const auto start = std::chrono::steady_clock::now();
  const Solution solution = solve(model, exact);
  if (!solution.hasSteadyState()) return std::nullopt;
  FluidReference out;
  out.method = "exact";
  out.tangible = solution.chain.explored.graph.stateCount();
  const std::map<std::string, double> byPath =
      numbersByPath(namedResults(solution.metrics, solution.values));
  compare(fluid, out,
          [&](const std::vector<std::string>& path) -> std::optional<std::pair<double, double>> {
            const auto it = byPath.find(pathText(path));
            if (it == byPath.end()) return std::nullopt;
            return std::pair{it->second, 0.0};
          });
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

FluidReference simulationReference(const Model& model, const Settings& settings,
                                   const FluidRequest& request, const NamedResults& fluid) {
  double flow = 0;
  for (const NamedNumber& n : fluid.numbers)
    if (n.path.front() == "transitions" && std::isfinite(n.value)) flow += n.value;
  const ShortSimulation run =
      shortSimulation(model, settings, request.replications, request.events, flow);
  FluidReference out;
  out.method = "simulation";
  out.replications = run.simulation.replications;
  out.events = run.events;
  out.confidence = run.simulation.settings.confidence;
  out.seconds = run.simulation.seconds;
  compare(fluid, out, [&](const std::vector<std::string>& path) { return run.at(path); });
  return out;
}

FluidReference referenceOf(const Model& model, const Settings& settings,
                           const FluidRequest& request, const NamedResults& fluid) {
  using R = FluidRequest::Reference;
  std::string exactMissing;  // why Auto simulates
  if (request.reference == R::Exact || request.reference == R::Auto) {
    try {
      if (auto exact = exactReference(model, settings, request, fluid)) return *exact;
      exactMissing = "the exact chain has no single steady state";
    } catch (const InterruptedError&) {
      throw;
    } catch (const Error& e) {
      if (request.reference == R::Exact) throw;
      exactMissing = e.headline();
    }
    if (request.reference == R::Exact) {
      FluidReference out;
      out.unavailable = exactMissing;
      return out;
    }
  }
  try {
    FluidReference out = simulationReference(model, settings, request, fluid);
    out.exactMissing = exactMissing;
    return out;
  } catch (const InterruptedError&) {
    throw;
  } catch (const Error& e) {
    if (request.reference == R::Simulation) throw;
    FluidReference out;
    out.exactMissing = exactMissing;
    out.unavailable = "no simulation: " + e.headline();
    return out;
  }
}

fluid::FluidSettings fluidSettings(const Settings& settings) {
  fluid::FluidSettings out;
  out.tolerance = settings.tolerance;
  out.run = settings.run;
  return out;
}

/// Runs `f`, turning the fluid library's failures into the api's.
template <typename F>
auto translated(F&& f) {
  try {
    return f();
  } catch (const fluid::UnsupportedNet& e) {
    throw FluidError(std::string("no fluid approximation: ") + e.what(),
                     "the fluid approximation reads timed transitions with constant input "
                     "arcs and immediate transitions in free choice (docs/fluid.md)",
                     e.element(), true);
  } catch (const fluid::NotSettledError& e) {
    throw FluidError(std::string("no fluid equilibrium: ") + e.what(), "", e.place(), false,
                     e.time(), e.residual());
  } catch (const fluid::InterruptedError& e) {
    throw InterruptedError(e.what());
  }
}

}  // namespace

FluidSolution solveFluid(const Model& model, const Settings& settings,
                         const FluidRequest& request) {
  settings.check();
  request.check();
  const gspn::Net& net = model.net();
  const fluid::FluidSettings fs = fluidSettings(settings);
  FluidSolution out;
  out.name = model.name();
  out.system = model.compiled.has_value();
  out.equilibrium = translated([&] { return fluid::equilibrium(net, fs); });
  evaluate(model, FluidMeasures(out.equilibrium.amounts, out.equilibrium.flows), out.metrics,
           out.values);
  if (!request.times.empty()) {
    const fluid::Trajectory trajectory =
        translated([&] { return fluid::trajectory(net, request.times, fs); });
    out.trajectorySteps = trajectory.steps;
    for (std::size_t i = 0; i < trajectory.times.size(); ++i) {
      std::optional<compiler::SystemMetrics> metrics;
      NetMeasures values;
      evaluate(model, FluidMeasures(trajectory.amounts[i], trajectory.flows[i]), metrics, values);
      out.points.push_back(instantAt(trajectory.times[i], namedResults(metrics, values)));
    }
  }
  if (request.reference != FluidRequest::Reference::None)
    out.reference = referenceOf(model, settings, request, namedResults(out.metrics, out.values));
  out.peakMemoryMegabytes = peakMemoryMegabytes();
  return out;
}

nlohmann::ordered_json FluidSolution::json() const {
  using json = nlohmann::ordered_json;
  const auto number = [](double v) { return std::isfinite(v) ? json(v) : json(); };
  json out = schemaTag("fluid");
  out[system ? "system" : "net"] = name;
  const fluid::Equilibrium& e = equilibrium;
  out["fluid"] = equilibriumJson("fluid", e);
  out["fluid"]["extrapolated"] = e.extrapolated;
  out["fluid"]["trajectory_steps"] = trajectorySteps;
  out["fluid"]["seconds"] = e.seconds;
  out["fluid"]["peak_memory_mb"] = peakMemoryMegabytes;
  if (reference) {
    const FluidReference& r = *reference;
    json numbers = json::array();
    for (const FluidReference::Number& n : r.numbers)
      numbers.push_back({{"path", pathText(n.path)},
                         {"fluid", n.fluid},
                         {"reference", n.reference},
                         {"half_width", n.halfWidth},
                         {"distance", number(n.distance())}});
    out["reference"] = referenceJson(r, {"tangible_markings", r.tangible}, std::move(numbers));
  }
  addResults(out, results(), points);
  return out;
}

}  // namespace mmt::api
