#pragma once
/// \file
/// Passage-time distributions of a CTMC: the time from entering a source set S of states
/// to first entering a target set T (P. G. Harrison, W. J. Knottenbelt, "Passage time
/// distributions in large Markov chains", Proc. ACM SIGMETRICS 2002, §2 and §3). In steady
/// state, S is entered at state i with probability
///
///     α_i ∝ Σ_{k ∉ S} π_k q_ki,   i ∈ S,
///
/// the probability flux into i from outside S. A passage may also start and end on
/// *marked edges* of the chain instead of sets of states (the firings of a transition, told
/// apart by a tag the net carries, gspn/tagging.hpp): it starts at j with probability
/// ∝ Σ_{marked k→j} π_k q_kj and ends at the first jump along a marked edge.
///
/// The chain is killed where the passage ends (the edges into T and the marked edges leave
/// it, their rates kept in the exit rates), and F(t) = 1 − Σ_i p_i(t), p(t) the transient
/// distribution of the killed chain from α (uniformization, solver/transient.hpp; a state
/// of S ∩ T gives time 0). Its mean is E[τ] = Σ_i α_i m_i, where m solves (−Q_AA) m = 1
/// over the states A met before the end (sparse LU; on large chains by the renewal
/// argument, E[τ] = 1 / the rate of passages in a chain that restarts each one as it
/// ends, from a steady-state solve); a p-quantile is the t with
/// F(t) = p, found by repeated sections of a bracket, each F from one uniformization.

#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "gspn/reachability.hpp"
#include "gspn/run_control.hpp"
#include "solver/steady_state.hpp"

namespace mmt::solver {

/// α over the states `source` marks (by state of g): (state, probability), summing to 1.
/// `pi` is the steady-state distribution over every state of g (0 on transient states).
/// Throws std::invalid_argument when no probability flows into the source set from outside
/// it (an empty set, every recurrent state, or states never entered in steady state).
std::vector<std::pair<std::uint32_t, double>> entranceDistribution(
    const gspn::TangibleReachabilityGraph& g, const Eigen::VectorXd& pi,
    const std::vector<char>& source);

/// α along the edges `marked` (by edge of g, in g's incoming order): each state j with
/// probability ∝ Σ_{marked k→j} π_k q_kj. Throws std::invalid_argument when no probability
/// flows along them in steady state.
std::vector<std::pair<std::uint32_t, double>> entranceAlong(
    const gspn::TangibleReachabilityGraph& g, const Eigen::VectorXd& pi,
    const std::vector<char>& marked);

/// Where a passage ends: on entering a state `states` marks (by state of g), or on a jump
/// along an edge `edges` marks (by edge of g, in its incoming order); an empty mask marks
/// nothing.
struct PassageEnd {
  std::vector<char> states;
  std::vector<char> edges;
  static PassageEnd entering(std::vector<char> states) { return {std::move(states), {}}; }
  static PassageEnd along(std::vector<char> edges) { return {{}, std::move(edges)}; }
};

struct PassageSettings {
  std::vector<double> times;      ///< F at each (model time units, ≥ 0)
  std::vector<double> quantiles;  ///< probabilities in (0, 1): the times at which F reaches each
  double epsilon = 1e-10;         ///< error of each value of F
  /// A quantile is bracketed to this width relative to its value.
  double quantileTolerance = 1e-9;
  /// The mean is solved by sparse LU over at most this many states, and beyond by the
  /// renewal argument on a steady-state solve (passage.cpp, meanByRenewal).
  std::size_t directStates = 5'000;
  RunControl run;  ///< its interrupt
};

struct PassageResult {
  Status status = Status::Converged;  ///< Interrupted when PassageSettings::interrupt stopped it
  std::vector<double> distribution;   ///< F(t), by PassageSettings::times
  /// By PassageSettings::quantiles, in model time units; NaN where F never reaches it.
  std::vector<double> quantiles;
  double mean = 0;               ///< E[τ]; infinity when the target may never be reached
  double reached = 1;            ///< P(τ < ∞): the probability the target is ever entered
  std::uint64_t iterations = 0;  ///< products with P over every F evaluated
};

/// The passage time from `entrance` (as entranceDistribution or entranceAlong give, or any
/// distribution) to `end`, on the chain of g. Throws std::invalid_argument for a time < 0
/// or a quantile outside (0, 1).
PassageResult solvePassage(const gspn::TangibleReachabilityGraph& g,
                           const std::vector<std::pair<std::uint32_t, double>>& entrance,
                           const PassageEnd& end, const PassageSettings& settings);

}  // namespace mmt::solver
