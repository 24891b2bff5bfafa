#pragma once
/// \file
/// Response-time (passage-time) distributions (`mmt solve --percentiles`, `--cdf-at`;
/// docs/transient.md, "Response-time distributions"): the distribution function and
/// percentiles of the time an iteration, an actor's execution or, in a raw net, a passage
/// between two marking conditions takes, in steady state (solver/passage.hpp).
///
/// - A closed(1) system's application: from one firing of `workload.restart` to the next
///   (the net solved carries the parity of those firings, gspn/tagging.hpp); its mean is the
///   response time 1/X.
/// - Each actor of it: from the moment its input set is complete to the end of its
///   execution, the sojourn in the markings where it has a complete set or is executing;
///   its mean is the actor's response time R_a. Where the actor's executions overlap or
///   follow one another in no time, the sojourn is not one execution: the actor's entry
///   says so instead of giving a distribution.
/// - A raw net: from entering the markings where `from` holds (from outside them) to first
///   entering those where `to` holds.
/// - A chain that ends: from the initial marking to its end — a batch(n, k) system's
///   makespan, or a raw net's time to absorption when neither `from` nor `to` is given
///   (solver/absorption.hpp; its mean is the absorption's E[A]).
/// Other workloads (closed(k > 1), open, stream) overlap their iterations: a tagged token
/// would be needed, which mmt does not build; they are refused.

#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/model.hpp"
#include "compiler/metrics.hpp"
#include "gspn/expression.hpp"
#include "gspn/net.hpp"
#include "gspn/reachability.hpp"
#include "gspn/tagging.hpp"

namespace mmt::api {

struct PassageRequest {
  /// The distribution function F(t) at these times t ≥ 0 (model time units).
  std::vector<double> times;
  /// Percentiles in (0, 100): the times by which that share of passages has ended.
  std::vector<double> percentiles;
  /// A raw net's passage: marking conditions in the `.gspn` expression language.
  std::string from, to;
  /// Error of each value of F (probability mass), in (0, 0.5).
  double epsilon = 1e-10;
  bool any() const {
    return !times.empty() || !percentiles.empty() || !from.empty() || !to.empty();
  }
  /// Throws SettingError ("cdf_at", "percentiles", "from", "to", "passage_error").
  void check() const;
};

/// One element's distribution.
struct PassageDistribution {
  /// "application", "actors", "passage" (a raw net's --from/--to) or "absorption" (a raw
  /// net's time to absorption)
  std::string section;
  /// What is distributed, the stem of its percentiles' keys (application.makespan_p95):
  /// "response_time", "makespan" (a batch's application) or "time_to_absorption".
  std::string quantity = "response_time";
  std::string element;              ///< the system's or actor's name; a raw net's "FROM -> TO"
  double mean = 0;                  ///< E[τ], model time units (infinity when it may never end)
  double reached = 1;               ///< P(τ < ∞)
  std::vector<double> cdf;          ///< F(t), by PassageRequest::times
  std::vector<double> percentiles;  ///< by PassageRequest::percentiles; NaN when not reached
  /// Why there is no distribution (then the numbers above are empty or 0), or "".
  std::string unavailable;
};

struct PassageSolution {
  std::vector<double> times, percentiles;
  double epsilon = 0;
  /// The tagged transition ("workload.restart") when the net solved carries a tag.
  std::string tagged;
  std::uint64_t iterations = 0;  ///< products with P over every distribution
  double seconds = 0;
  std::vector<PassageDistribution> distributions;
  /// {"method": "uniformization", "error_bound", "tagged" (or null), "iterations",
  /// "seconds", "distributions": [{"section", "element", "mean", "reached",
  /// "cdf": [{"time", "probability"}], "percentiles": [{"percentile", "time"}],
  /// "unavailable"}]}; a NaN or infinite number is null.
  nlohmann::ordered_json json() const;
};

/// The percentile a metric path names, "application.response_time_p95" → 95,
/// "actors.A1.response_time_p99.9" → 99.9, "application.makespan_p50" → 50; nothing for any
/// other path. Such paths are
/// results of a study (`mmt contract --require`), computed by a passage request.
std::optional<double> percentileOf(const std::string& path);
/// Adds each distribution's percentiles to a results tree (resultsJson) at the paths
/// percentileOf reads: application.<quantity>_p<P> for the application,
/// <section>.<element>.response_time_p<P> for an actor (null where F never reaches it).
void addPercentiles(nlohmann::ordered_json& tree, const PassageSolution& passages);

/// What a request needs before exploration: the net to explore (a closed(1) system's net
/// with its restarts tagged) and a raw net's conditions.
struct PassagePlan {
  std::optional<gspn::TaggedNet> tagged;
  gspn::Expression from, to;
  /// The time from the initial marking until the chain ends (a batch's makespan, a raw
  /// net's time to absorption): solved with the absorption, by solveTimeToEnd.
  bool toTheEnd = false;
  /// The net to explore: the tagged one, or the model's.
  const gspn::Net& net(const Model& model) const { return tagged ? tagged->net : model.net(); }
};

/// Throws SettingError for a request the model has no passage for (a system whose
/// workload is neither closed(1) nor batch, --from/--to on a system, only one of them on a
/// raw net) and ModelError for a condition that does not parse or names no place. A raw
/// net without either asks for its time to absorption (toTheEnd).
PassagePlan planPassages(const Model& model, const PassageRequest& request);

/// The distribution of the time from `graph`'s initial distribution until it first
/// enters a state `ends` marks (by state: those of the bottom components), on `graph`
/// (its edges kept): a batch's makespan (section "application", quantity "makespan") or
/// a raw net's time to absorption (section "absorption"). Throws InterruptedError.
PassageSolution solveTimeToEnd(const Model& model, const PassageRequest& request,
                               const gspn::TangibleReachabilityGraph& graph,
                               const std::vector<char>& ends, const std::atomic<bool>* interrupt);

/// The distributions on `graph` (the plan's net explored, its edges kept) with π over
/// every state of it. `metrics` are the system's (to check each actor's mean against
/// Little's law). Throws InterruptedError.
PassageSolution solvePassages(const Model& model, const PassagePlan& plan,
                              const PassageRequest& request,
                              const gspn::TangibleReachabilityGraph& graph,
                              const Eigen::VectorXd& pi,
                              const std::optional<compiler::SystemMetrics>& metrics,
                              const std::atomic<bool>* interrupt);

}  // namespace mmt::api
