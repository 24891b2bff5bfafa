#pragma once
/// \file
/// Passage-time distributions of a CTMC: the time from entering a source set S of states
/// to first entering a target set T (P. G. Harrison, W. J. Knottenbelt, "Passage time
/// distributions in large Markov chains", Proc. ACM SIGMETRICS 2002, §2 and §3). In steady
/// state, S is entered at state i with probability
///
///     α_i ∝ Σ_{k ∉ S} π_k q_ki,   i ∈ S,
///
/// the probability flux into i from outside S. With T made absorbing (the rates out of it
/// dropped), the distribution function of the passage time is F(t) = Σ_{j ∈ T} p_j(t), p(t)
/// the transient distribution from α (uniformization, solver/transient.hpp; a state of
/// S ∩ T gives time 0). Its mean is E[τ] = Σ_i α_i m_i, where m solves (−Q_AA) m = 1 over
/// the non-target states A reachable from α (sparse LU); a p-quantile is the t with
/// F(t) = p, found by repeated sections of a bracket, each F from one uniformization.
///
/// Not yet reached from the command line: the library call the next step builds on.

#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "gspn/reachability.hpp"
#include "solver/steady_state.hpp"

namespace mmt::solver {

/// α over the states `source` marks (by state of g): (state, probability), summing to 1.
/// `pi` is the steady-state distribution over every state of g (0 on transient states).
/// Throws std::invalid_argument when no probability flows into the source set from outside
/// it (an empty set, every recurrent state, or states never entered in steady state).
std::vector<std::pair<std::uint32_t, double>> entranceDistribution(
    const gspn::TangibleReachabilityGraph& g, const Eigen::VectorXd& pi,
    const std::vector<char>& source);

struct PassageSettings {
  std::vector<double> times;      ///< F at each (model time units, ≥ 0)
  std::vector<double> quantiles;  ///< probabilities in (0, 1): the times at which F reaches each
  double epsilon = 1e-10;         ///< error of each value of F
  /// A quantile is bracketed to this width relative to its value.
  double quantileTolerance = 1e-9;
  const std::atomic<bool>* interrupt = nullptr;
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

/// The passage time from `entrance` (as entranceDistribution gives, or any distribution)
/// to the states `target` marks (by state of g), on the chain of g. Throws
/// std::invalid_argument for a time < 0 or a quantile outside (0, 1).
PassageResult solvePassage(const gspn::TangibleReachabilityGraph& g,
                           const std::vector<std::pair<std::uint32_t, double>>& entrance,
                           const std::vector<char>& target, const PassageSettings& settings);

}  // namespace mmt::solver
