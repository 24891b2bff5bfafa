#pragma once
/// \file
/// The mean-field approximation of a model's replicas as one call (`mmt solve --method
/// mean-field`; docs/meanfield.md): its net read as counts of interchangeable replicas
/// beside a discrete part (meanfield/population.hpp, meanfield/hybrid.hpp), the ODE's
/// equilibrium and trajectory (meanfield/solve.hpp), reported as the exact solution is,
/// and never alone: beside it, the exact answer at the asked size when its chain is small
/// enough, or at smaller sizes with the trend of the distance, or a short simulation.
///
/// A system whose farms' and maps' replica counts read parameters (`farm(workers)`) is
/// compiled at two small values of those parameters (the *probes*), whose population
/// models must agree in everything but their counts, and counted at the asked values
/// (compiler::replicaCounts): a farm of a million workers is never compiled. Its tables
/// show each farm's first replica, standing for all of them. A raw net, or a system whose
/// counts read no parameter, is read at its own size.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "api/fluid.hpp"
#include "api/model.hpp"
#include "api/results.hpp"
#include "api/settings.hpp"
#include "api/solve.hpp"
#include "compiler/metrics.hpp"
#include "meanfield/solve.hpp"

namespace mmt::api {

struct MeanFieldRequest {
  /// Also the trajectory at these times t ≥ 0 from the initial marking (model time units).
  std::vector<double> times;
  /// What the answer is compared with. Auto: the exact solution when the chain at the
  /// asked size has at most `exactLimit` tangible markings (lumped); else, for a model
  /// whose replica counts read parameters, the exact solutions at the largest smaller
  /// sizes that fit (halving the parameters) with the distance's trend, and for the others
  /// a short simulation at the asked size.
  using Reference = FluidRequest::Reference;
  Reference reference = Reference::Auto;
  std::uint64_t exactLimit = 20'000;
  /// The simulation reference, as FluidRequest's.
  std::uint64_t replications = 10;
  std::uint64_t events = 50'000;
  /// Throws SettingError ("at", "reference").
  void check() const;
};

/// How the model became counts.
struct PopulationReport {
  struct Replicas {
    std::string label;  ///< what a replica is ("W")
    std::uint64_t count = 0;
    /// The parameters its count reads (none: read at the net's own size).
    std::vector<std::string> parameters;
    std::size_t localStates = 0;
    /// Local states a P-semiflow bounds by a constant (counted exactly, in the discrete
    /// part).
    std::size_t small = 0;
  };
  std::vector<Replicas> replicas;
  std::size_t discreteStates = 0;  ///< tangible values of the discrete part
  std::size_t transitionClasses = 0;
  /// The parameter values the system was compiled at (the probes); empty when it was read
  /// at its own size.
  std::vector<Parameters> probes;
  /// Why replicas proposed were not used (gspn::symmetryViolation).
  std::vector<std::string> notes;
  /// "3 classes ..." one line for reports.
  std::string describe() const;
  nlohmann::ordered_json json() const;
};

/// What the mean-field answer is set beside (method "exact" at the asked size, "exact at
/// smaller sizes" or "simulation"); the farthest number by its estimate.
struct MeanFieldReference : ApproximationReference {
  /// The sizes compared, largest first: their parameters (population parameters only),
  /// replica counts, tangible markings of the exact (lumped) chain, seconds.
  struct Size {
    Parameters parameters;
    std::vector<std::uint64_t> replicas;
    std::uint64_t tangible = 0;
    double seconds = 0;
  };
  std::vector<Size> sizes;
  struct Number {
    std::vector<std::string> path;
    double meanField = 0;  ///< at the asked size
    /// By size: the reference's value, and the mean-field's at that size.
    std::vector<double> reference, meanFieldAt;
    double halfWidth = 0;  ///< simulation
    /// By size, |mean-field − reference| / |reference| (NaN where the reference is 0 but
    /// the mean-field is not).
    std::vector<double> distances;
    /// The slope α of log distance against log N over the sizes (distance ∝ N^−α); NaN
    /// with fewer than two sizes or a distance of 0.
    double exponent = 0;
    /// The distance at the asked size: measured (one size, the asked one), or the largest
    /// size's times (N / N_ref)^−α where α > 0, else that distance (it does not fall).
    double estimate = 0;
  };
  std::vector<Number> numbers;
};

struct MeanFieldSolution {
  std::string name;
  bool system = false;
  /// A system's MMT metrics; a farm compiled at a few replicas shows its first, standing
  /// for all (`standsFor`).
  std::optional<compiler::SystemMetrics> metrics;
  NetMeasures values;  ///< a raw net's places, transitions and measures
  meanfield::Equilibrium equilibrium;
  PopulationReport population;
  /// "W[1] stands for each of the 1000000 replicas of W" per collapsed farm; empty when
  /// every replica is listed.
  std::vector<std::string> standsFor;
  std::vector<TransientPoint> points;
  std::uint64_t trajectorySteps = 0;
  std::optional<MeanFieldReference> reference;
  double peakMemoryMegabytes = 0;

  nlohmann::ordered_json results() const { return resultsJson(metrics, values); }
  /// The document `mmt solve --method mean-field --format json` prints
  /// (docs/schema/meanfield.json).
  nlohmann::ordered_json json() const;
};

/// The mean-field approximation of the model read from `source` with `parameters` (and,
/// for a description, `placements` added to its mapping: mmt explore) (Settings:
/// tolerance, progress, interrupt). Throws ModelError (the description or a probe does not
/// compile), FluidError (no population reading: no interchangeable replicas, probes that
/// differ beyond their counts, an element the counts cannot read; a trajectory that does
/// not settle), InterruptedError, SettingError.
MeanFieldSolution solveMeanField(std::shared_ptr<const ModelSource> source,
                                 const Parameters& parameters, const Settings& settings,
                                 const MeanFieldRequest& request = {},
                                 const compiler::Placements& placements = {});

}  // namespace mmt::api
