#pragma once
/// \file
/// The exact steady-state solution of a model as one call: explore the tangible
/// reachability graph, check the chain's structure, solve πQ = 0, and compute the MMT
/// metrics of a system or the measures of a raw net (docs/modelling.md, "Exploration",
/// "Solution" and "Metrics"). Every failure is thrown as a type of api/errors.hpp.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/passage.hpp"
#include "api/results.hpp"
#include "api/settings.hpp"
#include "api/symmetry.hpp"
#include "compiler/metrics.hpp"
#include "gspn/phases.hpp"
#include "gspn/reachability.hpp"
#include "solver/ctmc.hpp"
#include "solver/pipeline.hpp"
#include "solver/steady_state.hpp"

namespace mmt::api {

/// Transient measures (`mmt solve --at`): the metrics under π(t) from the initial marking
/// (solver/transient.hpp; docs/transient.md).
struct TransientRequest {
  /// Times t ≥ 0 in model time units, reported in this order.
  std::vector<double> times;
  /// Time averages over [0, t] instead of the values at t.
  bool cumulative = false;
  /// Error of each distribution in total variation (probability mass), in (0, 0.5).
  double epsilon = 1e-10;
  /// The transient measures only: the steady state is not solved (no limit column, no
  /// steady-state results; stationarity is told from the iterates' changes).
  bool only = false;
  /// Throws SettingError ("at", "transient_error", "transient_only") for a time that is
  /// negative or not finite, an epsilon out of range, or `only` without times.
  void check() const;
};

/// The metrics at one time: every instantaneous number of the steady-state results
/// (utilizations, queue lengths, throughputs, mean tokens, a net's measures) and none that
/// Little's law defines (response times, synchronization delays, blocking times), which
/// have no value at an instant. A measure that divides by 0 at t is NaN.
struct TransientPoint {
  double time = 0;
  NamedResults results;
};

/// The transient part of a solution.
struct TransientSolution {
  bool cumulative = false;
  double epsilon = 0;
  /// Uniformization: the rate q, products with P, when the iterates reached the steady
  /// state, the probability dropped from states below the threshold, and the products over
  /// the states held only with the most states held (solver::TransientResult).
  double rate = 0;
  std::uint64_t iterations = 0;
  std::optional<std::uint64_t> stationaryAt;
  double dropped = 0;
  std::uint64_t heldProducts = 0;
  std::size_t mostHeld = 0;
  double seconds = 0;
  std::vector<TransientPoint> points;
  /// {"method": "uniformization", "cumulative", "error_bound", "rate", "iterations",
  /// "stationary_at" (null when not reached), "dropped", "held_products", "most_held",
  /// "seconds"}.
  nlohmann::ordered_json solverJson() const;
  /// [{"time": t, <results tree>}, ...] in the order of the request.
  nlohmann::ordered_json pointsJson() const;
};

/// The DSPN part of a solution (Settings::deterministicExact; solver/dspn.hpp).
struct DeterministicSolution {
  std::size_t transitions = 0;                   ///< deterministic transitions
  std::size_t embeddedMarkings = 0;              ///< the EMC's recurrent markings
  std::size_t subordinatedSolves = 0;            ///< markings entered with a fresh clock
  std::uint64_t iterations = 0;                  ///< uniformization products over them
  solver::Method method = solver::Method::Auto;  ///< the EMC's solver
  double residual = 0;                           ///< of the EMC's solution
  double seconds = 0;
  /// {"method": "embedded Markov renewal process", "deterministic_transitions",
  /// "embedded_markings", "subordinated_ctmcs", "iterations", "embedded_method",
  /// "embedded_residual", "seconds"}.
  nlohmann::ordered_json json() const;
};

/// One end of a chain that ends: a dead marking, or a bottom strongly connected component
/// the chain never leaves once in it.
struct EndComponent {
  /// Its lowest marking, "p=1, q=2" (under a symmetry, an orbit's representative).
  std::string marking;
  std::uint64_t markings = 0;  ///< tangible markings in it
  bool dead = false;           ///< one marking that enables no transition
  double probability = 0;      ///< of ending in it, from the initial marking
  /// A raw net's measures under the component's own steady state π_B (mean tokens,
  /// throughputs, the net's measures), for a component of more than one marking; none for
  /// a dead marking (its marking says everything) and for a system.
  std::optional<NetMeasures> results;
};

/// A chain that ends: dead markings or several bottom components (solver/absorption.hpp;
/// docs/modelling.md, "Chains that end").
struct AbsorptionSolution {
  /// Why the chain has no single steady state: the structure's own words (one dead
  /// marking named, or two bottom components).
  std::string structure;
  std::vector<EndComponent> components;  ///< in the order of their lowest markings
  std::uint64_t transientMarkings = 0;   ///< markings in no bottom component
  /// Of the time to absorption A (reaching any end): E[A] in model time units, Var[A] in
  /// their squares.
  double meanTime = 0;
  double variance = 0;
  /// The renewal chain's solve (solver/absorption.hpp); none when the initial marking is
  /// already an end.
  std::optional<solver::Method> method;
  std::uint64_t iterations = 0;
  double residual = 0;
  double seconds = 0;
  /// A raw net's totals until absorption (none for a system): per place its token-time
  /// E[∫₀^A m(p) dt] (tokens × t) in `meanTokens`, per transition its expected firings in
  /// `throughput`, and the measures evaluated on these totals.
  std::optional<NetMeasures> accumulated;
  /// {"structure", "transient_markings", "time": {"mean", "variance", "standard_deviation"},
  /// "components": [{"marking", "markings", "dead", "probability", "results" (a raw net's
  /// component of more than one marking: resultsJson of its own measures)}], "accumulated":
  /// {"places": {p: {"token_time"}}, "transitions": {t: {"firings"}}, "measures": {m: v}}}
  /// (accumulated only for a raw net; a NaN is null).
  nlohmann::ordered_json json() const;
  /// {"method", "iterations", "residual", "seconds"} of the renewal solve (method null
  /// when there was none).
  nlohmann::ordered_json solverJson() const;
};

/// A model's exact steady-state solution (`chain`: the graph's counts, the chain's
/// structure, π and the solver's account) and what was computed from it. A raw net
/// whose chain ends (dead markings, several bottom components) is solved until it ends:
/// hasSteadyState() is false, `absorption` holds the ends and the time to reach them, and
/// `values` the long-run averages Σ_B P(B) π_B. A system with a batch(n, k) workload ends
/// too: `metrics` are then averages over the run (until the n-th iteration ends) and
/// `metrics->application.makespan` the run's expected length. Any other system whose chain
/// ends is an error (StructureError), except with transient times: then `metrics` is
/// empty and `transient` and `absorption` hold all there is.
struct Solution {
  /// The Markov chain's solution (solver/pipeline.hpp): the explored graph, its structure,
  /// π over the recurrent states with the solver's account, the exploration's seconds.
  solver::ExactSolution chain;
  std::string name;     ///< the system's or the net's
  bool system = false;  ///< a system description (else a raw net)
  /// The process's peak resident memory when the solution was done, in megabytes.
  double peakMemoryMegabytes = 0;
  /// A system's MMT metrics (compiler/metrics.hpp); empty for a raw net.
  std::optional<compiler::SystemMetrics> metrics;
  /// A raw net's mean tokens, throughputs and measures; empty for a system.
  NetMeasures values;
  /// Timed transitions with a declared non-exponential delay, of which the CTMC used only
  /// the mean.
  std::size_t declaredDelays = 0;
  /// The model's phase expansions (Model::expandPhases), if any.
  std::vector<gspn::PhaseExpansion> phases;
  /// The transient measures, when times were requested.
  std::optional<TransientSolution> transient;
  /// With Settings::deterministicExact: how the DSPN was solved; `metrics` and `values`
  /// are then the DSPN's (`chain.steadyState` stays the exponential chain's, which checked the
  /// structure).
  std::optional<DeterministicSolution> deterministic;
  /// The response-time distributions, when requested (api/passage.hpp). For a system they
  /// are computed on its net with the restarts tagged: `explored` counts that net's markings.
  std::optional<PassageSolution> passages;

  /// A chain that ends, solved until it does (not with TransientRequest::only).
  std::optional<AbsorptionSolution> absorption;

  /// The steady state was not solved: only the transient measures were asked for
  /// (TransientRequest::only).
  bool transientOnly = false;
  /// What was lumped by symmetry (the graph's markings are then the orbits'
  /// representatives), and why a proposed symmetry was not used.
  SymmetryReport symmetry;

  bool isSystem() const { return system; }
  bool hasSteadyState() const {
    return chain.structure.kind == solver::ChainStructure::Kind::Ergodic && !transientOnly;
  }
  /// Results to report: the steady state's, a raw net's long-run averages over the ends
  /// of its chain, or a batch's averages over its run.
  bool hasResults() const { return hasSteadyState() || (absorption && (!system || metrics)); }
  /// A system with a batch(n, k) workload: its results are averages over the run, and
  /// `metrics->application.makespan` its expected length.
  bool isBatch() const { return system && absorption && metrics; }
  /// Why there is no steady state: the chain's structure, or that none was asked for.
  std::string noSteadyState() const {
    return transientOnly && chain.structure.kind == solver::ChainStructure::Kind::Ergodic
               ? "not solved: the transient measures only were asked for"
               : chain.structure.message;
  }
  /// The results tree (resultsJson): the metrics per element, or the net's measures.
  nlohmann::ordered_json results() const { return resultsJson(metrics, values); }
  /// The whole document `mmt solve --format json` prints (docs/schema/solve.json).
  nlohmann::ordered_json json() const;
};

/// Called with the graph, edges included, before the solver takes them (to export the
/// chain, gspn/writers.hpp writePrism). What it throws goes to the caller.
using ExploredHook = std::function<void(const gspn::TangibleReachabilityGraph&)>;

/// Explores and solves `model`, and with `transient` times also computes the transient
/// measures. Throws SettingError for a setting out of range; then StateLimitError,
/// MemoryLimitError, TimelessTrapError or ExplorationError (exploration), StructureError
/// (a system whose chain ends: a dead marking, several bottom components; the message says
/// with what probability and after how long on average; not with transient times, which
/// such a chain has), SolverError (no convergence, breakdown, inaccuracy: no numbers; for a
/// chain that ends too), UndefinedMeasureError (a steady-state measure dividing by 0),
/// InterruptedError. With a `passage` request, also SettingError or ModelError for a request
/// the model has no passage for (api/passage.hpp), and StructureError when the chain has no
/// steady state to start the passages from. With Settings::deterministicExact,
/// DeterministicError when the model is no DSPN mmt solves exactly, and SettingError
/// ("deterministic") with transient or passage requests.
Solution solve(const Model& model, const Settings& settings = {}, const ExploredHook& explored = {},
               const TransientRequest& transient = {}, const PassageRequest& passage = {});

/// The process's peak resident memory so far, in megabytes.
double peakMemoryMegabytes();

/// Throws the typed failure (api/errors.hpp) of an exploration that stopped with `r`'s
/// status and message under `settings`: StateLimitError (saying, from the net's
/// P-invariants, whether the net is bounded and only large), MemoryLimitError,
/// TimelessTrapError, InterruptedError or ExplorationError. Its state count is
/// r.graph.stateCount().
[[noreturn]] void throwExplorationFailure(const gspn::Net& net, const gspn::ExplorationResult& r,
                                          const gspn::ExplorationSettings& settings);

}  // namespace mmt::api
