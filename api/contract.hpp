#pragma once
/// \file
/// Performance contracts (docs/skeletons.md, "Contracts"): the smallest value of a
/// parameter that meets a requirement such as "application.throughput >= 5", each value
/// tried solved exactly while its state space fits under the state limit and simulated
/// (exponential delays) beyond; the search is a bisection, which assumes the metric moves
/// one way with the parameter, or a linear scan. Beside each try of a system of skeletons,
/// the quick bound-based estimate of the throughput (a pipeline is as fast as its slowest
/// stage, a farm of n workers n times its worker: Alt et al. 2002). The bound is an upper
/// bound on the throughput: a throughput target it rules out is not solved, and when no
/// value meets the requirement the result says why and what would help (Diagnosis).

#include <algorithm>
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/diagnosis.hpp"
#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/parallel.hpp"
#include "api/settings.hpp"
#include "api/simulate.hpp"
#include "api/sweep.hpp"

namespace mmt::api {

/// "PATH OP NUMBER": a metric of the results tree, one of >= > <= <, and a bound. NUMBER
/// may be the word `input` for `application.throughput` with >= or >: as fast as the
/// stages around the varied ones allow (Surroundings); contract() then sets `bound`.
struct Requirement {
  std::string path, op;
  double bound = 0;
  bool fromSurroundings = false;  ///< NUMBER was `input`
  bool met(double x) const;
  /// The throughput target of a requirement on `application.throughput` with >= or >,
  /// which the bound can rule out; nothing for any other requirement.
  std::optional<double> throughputTarget() const;
};
/// Parses "application.throughput >= 5" or "application.throughput >= input"; throws
/// SettingError("require") otherwise.
Requirement parseRequirement(const std::string& text);

/// One value tried.
struct ContractTry {
  double value = 0;  ///< the parameter's value
  bool ok = false;   ///< the metric was obtained
  bool met = false;
  bool simulated = false;  ///< past the state limit: simulated, with a half-width
  bool meanField = false;  ///< answered by the mean-field approximation
  /// The bound rules out a throughput target here: not solved, not met, no metric.
  bool ruledOut = false;
  double metric = 0;
  std::optional<double> halfWidth;
  std::optional<double> bound;  ///< the bound-based throughput estimate (skeletons)
  std::size_t states = 0;       ///< tangible markings, when solved exactly
  std::string reason;           ///< why it failed
  /// With an `input` target: the largest service time of the stages the parameter
  /// changes, t per item (met when at most the surroundings' service time).
  std::optional<double> serviceTime;
};

/// The stages around the ones a parameter changes ([GridCOMP08] §4: a skeleton keeps up
/// with its surroundings when its service time is at most max{T_A, T_D}, T_A the
/// inter-arrival time of what feeds it and T_D the service time of what consumes it). From
/// the bound's elements (compiler::stageTimes) of the system's one skeleton: the varied
/// stages are those whose service time differs between the smallest and the largest value;
/// T_A is the largest service time of the elements before the first of them, T_D of the
/// unchanged elements after it. Either may be given instead.
struct Surroundings {
  std::vector<std::string> varied;  ///< the elements the parameter changes
  double arrivalTime = 0;           ///< T_A, t per item
  std::string arrivalFrom;          ///< the element it is, or "given"
  double departureTime = 0;         ///< T_D, t per item
  std::string departureFrom;        ///< the element it is, or "given"
  /// max{T_A, T_D}: the service time the varied stages must reach.
  double serviceTime() const { return std::max(arrivalTime, departureTime); }
};

struct ContractSettings {
  Requirement requirement;
  SweepParameter parameter;  ///< the candidate values (sorted by contract())
  bool linear = false;       ///< try every value in order instead of bisecting
  /// Solved exactly up to Settings::maxStates tangible markings (unset: 2,000,000),
  /// simulated beyond.
  Settings solver;
  /// Every value answered by the mean-field approximation instead (api/meanfield.hpp):
  /// never compiled at its size, so without the bound-based estimate, the diagnosis or an
  /// `input` target, which compile each value.
  bool meanField = false;
  SimulationSettings simulation;
  /// With an `input` target, T_A and T_D given (t per item) instead of taken from the
  /// stages around the varied ones.
  std::optional<double> arrivalTime, departureTime;
  /// When set, a linear search spreads its values over its processes (`mpirun -n P mmt
  /// contract --search linear`): they are tried in order, and the tries past the answer
  /// are dropped, so the tries are the one process's. The result is complete in the
  /// leading process only. A bisection, whose every step depends on the last, and an
  /// `input` target, judged by compilation, do not use it.
  std::shared_ptr<const PointDistribution> distribution;
};

struct ContractResult {
  std::string model;
  bool system = false;
  ContractSettings settings;
  std::vector<ContractTry> tries;  ///< in the order they were tried
  /// The index in `tries` of the answer: the smallest value that meets the requirement.
  std::optional<std::size_t> answer;
  /// With no answer, the try whose metric came closest.
  std::optional<std::size_t> best;
  /// A bisection stops at a value that failed (its index in `tries`): without its metric
  /// it cannot tell which half to keep.
  std::optional<std::size_t> failed;
  /// Every value's bound rules the throughput target out: nothing was tried.
  bool impossible = false;
  /// With no answer, for a system of skeletons: the bottleneck and what would help.
  std::optional<Diagnosis> diagnosis;
  /// With an `input` target: T_A and T_D, and the stages the parameter changes.
  std::optional<Surroundings> surroundings;
  /// The document `mmt contract --format json` prints (docs/schema/contract.json).
  nlohmann::ordered_json json() const;
};

/// T_A and T_D of an `input` target for `base` over the parameter's values (Surroundings).
/// Throws SettingError: `base` is not a system of one skeleton, the parameter changes no
/// stage's service time, or the stages around take no time and none is given.
Surroundings surroundings(const Model& base, const ContractSettings& settings);

/// Searches the parameter's values for the smallest that meets the requirement. `tried`
/// is called with each try as it is made. With an `input` target, the values are tried in
/// order by their service times alone (a compilation each) and only the answer is solved.
/// Throws SettingError (the parameter is also fixed in `base`'s parameters, a setting out
/// of range; an `input` target on a model that is not one skeleton, or whose parameter
/// changes no stage), UnknownMetricError never: a metric that names no result fails its
/// try.
ContractResult contract(const Model& base, ContractSettings settings,
                        const std::function<void(const ContractTry&)>& tried = {});

}  // namespace mmt::api
