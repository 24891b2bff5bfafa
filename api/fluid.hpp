#pragma once
/// \file
/// The fluid approximation of a model as one call (`mmt solve --method fluid`): the
/// equilibrium of its net read as a continuous Petri net (fluid/continuous_net.hpp,
/// fluid/solve.hpp), reported as the exact solution is (a raw net's mean tokens,
/// throughputs and measures; a system's MMT metrics), with its trajectory at given times,
/// and never alone: beside it, the exact answer when the chain is small enough, or else a
/// short simulation's intervals, and the distance between them (docs/fluid.md).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/results.hpp"
#include "api/settings.hpp"
#include "api/solve.hpp"
#include "compiler/metrics.hpp"
#include "fluid/solve.hpp"

namespace mmt::api {

struct FluidRequest {
  /// Also the trajectory at these times t ≥ 0 from the initial marking (model time units).
  std::vector<double> times;
  /// What the fluid answer is compared with. Auto: the exact solution when the chain has
  /// at most `exactLimit` tangible markings, else a short simulation.
  enum class Reference { Auto, Exact, Simulation, None };
  Reference reference = Reference::Auto;
  std::uint64_t exactLimit = 200'000;
  /// The simulation reference: this many replications of at least `events` timed firings.
  std::uint64_t replications = 10;
  std::uint64_t events = 50'000;
  /// Throws SettingError ("at", "reference") for a time that is negative or not finite.
  void check() const;
};

/// "auto", "exact", "simulation", "none"; parseReference throws std::invalid_argument.
std::string toString(FluidRequest::Reference reference);
FluidRequest::Reference parseReference(const std::string& name);

/// What an approximation (fluid, mean-field) is set beside, whatever its numbers.
struct ApproximationReference {
  /// "exact" or "simulation" (mean-field also "exact at smaller sizes"); empty when there
  /// is none (`unavailable` says why).
  std::string method;
  std::string unavailable;
  /// Reference::Auto: why the exact solution (at the asked size) was not the reference
  /// (the state limit, a solver that did not converge); empty when it was, or was not
  /// tried.
  std::string exactMissing;
  std::size_t replications = 0;  ///< simulation: replications run
  /// simulation: timed firings per replication, at least the request's events and about 20
  /// time constants of the slowest transition at the approximation's flow (at most
  /// 4,000,000; none when 5 time constants would take more)
  std::uint64_t events = 0;
  double confidence = 0;  ///< simulation: of each interval
  double seconds = 0;
  /// The number farthest from its reference (relative), and how far.
  std::string farthestPath;
  double farthestDistance = 0;
};

/// What the fluid answer is set beside.
struct FluidReference : ApproximationReference {
  std::uint64_t tangible = 0;  ///< exact: the chain's tangible markings
  struct Number {
    std::vector<std::string> path;  ///< {"places", "p", "mean_tokens"}
    double fluid = 0;
    double reference = 0;
    double halfWidth = 0;  ///< 0 for the exact reference
    /// |fluid − reference| / |reference|; where the reference is 0 to rounding (at most
    /// 1e-12), 0 beside a fluid value as small and NaN otherwise.
    double distance() const;
  };
  std::vector<Number> numbers;
};

struct FluidSolution {
  std::string name;
  bool system = false;
  /// A system's MMT metrics under the fluid means (computeMetrics over them; a metric
  /// that needs a probability over markings is NaN); empty for a raw net.
  std::optional<compiler::SystemMetrics> metrics;
  /// A raw net's mean tokens x*, throughputs f(x*) and measures (prob(…) and the mean of
  /// an expression not linear in the token counts are NaN: one point has no spread).
  NetMeasures values;
  fluid::Equilibrium equilibrium;
  /// The trajectory's results at each requested time.
  std::vector<TransientPoint> points;
  std::uint64_t trajectorySteps = 0;
  std::optional<FluidReference> reference;
  double peakMemoryMegabytes = 0;

  nlohmann::ordered_json results() const { return resultsJson(metrics, values); }
  /// The document `mmt solve --method fluid --format json` prints
  /// (docs/schema/fluid.json).
  nlohmann::ordered_json json() const;
};

/// The fluid approximation of `model` (Settings: tolerance, progress, interrupt, and the
/// state limit of an exact reference). Throws FluidError (an element no flow reads; a
/// trajectory that does not settle), InterruptedError, SettingError.
FluidSolution solveFluid(const Model& model, const Settings& settings,
                         const FluidRequest& request = {});

}  // namespace mmt::api
