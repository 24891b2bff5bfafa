#pragma once
/// \file
/// What the approximations (api/fluid.hpp, api/meanfield.hpp) set their answers beside: an
/// exact solution's numbers by path, a short simulation long enough to pass the initial
/// transient, and the relative distance between two numbers. Internal to api/.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/fluid.hpp"
#include "api/model.hpp"
#include "api/results.hpp"
#include "api/settings.hpp"
#include "api/simulate.hpp"
#include "api/solve.hpp"
#include "fluid/ode.hpp"

namespace mmt::api {

/// The JSON block of an approximation's equilibrium search (fluid, mean-field): `method`,
/// residual, settled_at, steps, newton_iterations, spectral_abscissa, stable, neutral,
/// kinks and dead, in that order; the caller appends what its method adds.
nlohmann::ordered_json equilibriumJson(const std::string& method,
                                       const fluid::EquilibriumSearch& e);

/// The JSON block of an approximation's reference: method, unavailable, exact_missing,
/// then `what` (the fluid's tangible_markings, the mean-field's sizes), replications,
/// events, confidence, seconds, farthest and `numbers`.
nlohmann::ordered_json referenceJson(const ApproximationReference& r,
                                     std::pair<std::string, nlohmann::ordered_json> what,
                                     nlohmann::ordered_json numbers);

/// |value − reference| / |reference|; where the reference is 0 to rounding (at most
/// 1e-12: a link's utilization of 4e-16 that no message uses), 0 beside a value as small
/// and NaN otherwise.
double relativeDistance(double value, double reference);

/// Each number of `results` by its path's text ("actors.A1.throughput").
std::map<std::string, double> numbersByPath(const NamedResults& results);

/// A short simulation beside an approximate answer: `replications` replications with
/// exponential delays (the chain the approximation is of), each of at least `events` timed
/// firings and some 20 time constants of the slowest transition at the answer's total
/// transition flow, at most 4,000,000 (SimulationError where even 5 would take more, since
/// a shorter run measures the initial transient).
struct ShortSimulation {
  Simulation simulation;
  std::uint64_t events = 0;  ///< timed firings per replication
  /// {mean, half-width} of the number at `path`, where the simulation has one.
  std::optional<std::pair<double, double>> at(const std::vector<std::string>& path) const;
};
/// `flow`: the approximate answer's firings per model time unit, every transition's.
ShortSimulation shortSimulation(const Model& model, const Settings& settings,
                                std::uint64_t replications, std::uint64_t events, double flow);

/// The point of a trajectory at `time`: the numbers of `results` that have a value at an
/// instant (not those Little's law defines).
TransientPoint instantAt(double time, NamedResults results);

/// Adds an approximation's results (`results`, a results tree) to its document, then with
/// `points` its trajectory as `transient`: [{"time", <result sections>}] (undefined
/// numbers null).
void addResults(nlohmann::ordered_json& document, const nlohmann::ordered_json& results,
                const std::vector<TransientPoint>& points);

}  // namespace mmt::api
