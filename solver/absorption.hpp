#pragma once
/// \file
/// Chains that end: a tangible reachability graph with dead markings or several bottom
/// strongly connected components (BSCCs), solved from its initial distribution
/// (docs/modelling.md, "Chains that end").
///
/// With T the transient states (in no BSCC), α the initial distribution and
/// N = (−Q_TT)⁻¹ the fundamental matrix of the chain stopped on leaving T (Kemeny and
/// Snell, "Finite Markov Chains", 1960, §3.2–3.3, in continuous time):
///
///     τ = α_T N                       expected time in each transient state before the end,
///     P(B) = α(B) + Σ_{s∈T} τ_s Σ_{b∈B} q_sb      the probability of ending in B,
///     E[A] = τ 1,   E[A²] = 2 α_T N² 1            A the time to absorption (reaching any B),
///     π_long-run = Σ_B P(B) π_B                   π_B the steady state of B alone
///
/// (the last as PRISM and Storm compute long-run averages: Kwiatkowska, Norman and Parker,
/// "Stochastic Model Checking", SFM 2007, §3.3). A dead marking is a BSCC of one marking.
///
/// The linear systems are not solved as such: each is the steady state of a *renewal
/// chain* in which every BSCC is one state, left at rate c into the initial distribution.
/// Its cycles are an absorption followed by a sojourn of mean 1/c, so by the renewal
/// reward theorem π_s = τ_s c π_E for s ∈ T and π_B = P(B) π_E with π_E = Σ_B π_B
/// (the same argument as solver/passage.cpp's mean passage time). That puts every solve
/// through solveSteadyState: the same methods, `--method`, tolerance and accuracy check as
/// a steady state. E[A²] comes from a second renewal chain restarting from τ / E[A]:
/// α_T N² 1 = τ N 1 = E[A] · E_{τ/E[A]}[A].

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gspn/net.hpp"
#include "gspn/reachability.hpp"
#include "solver/ctmc.hpp"
#include "solver/steady_state.hpp"

namespace mmt::solver {

/// What a chain that ends does from its initial distribution.
struct AbsorptionResult {
  /// Converged, or the status of the solve that failed (`failed` says which).
  Status status = Status::Converged;
  /// Which solve failed: "the absorption", "the spread of the time to absorption" or "the
  /// bottom component of {marking}"; empty when every solve converged.
  std::string failed;
  BottomComponents bottoms;
  /// By component of `bottoms`: the probability of ending in it.
  std::vector<double> probability;
  /// By component: its states, ascending.
  std::vector<std::vector<std::uint32_t>> componentStates;
  /// By component: the solver's account of its own steady state, with π_B over its states
  /// (componentStates); nothing for a component of one marking (π_B = 1).
  std::vector<std::optional<SteadyStateResult>> componentSolves;
  /// The renewal chains' solves (π dropped): the absorption's, and the second moment's;
  /// none when the initial distribution lies in the bottom components.
  std::optional<SteadyStateResult> renewal, spread;
  /// E[A] and E[A²] of the time to absorption A, in model time units (and their squares).
  double meanTime = 0;
  double secondMoment = 0;
  /// Var[A] = E[A²] − E[A]², at least 0.
  double variance() const;
  /// The account of the solve that failed; null when none failed (or when an interrupt
  /// came between two solves).
  const SteadyStateResult* failedSolve() const;
  /// Over every state of the graph: τ, the expected time in each state before absorption
  /// (0 on the bottom components), in model time units.
  Eigen::VectorXd occupancy;
  /// Over every state: Σ_B P(B) π_B, the long-run distribution (0 on transient states).
  Eigen::VectorXd longRun;
  double seconds = 0;
};

/// Solves the chain of `g` (its edges still in it) until it ends. The renewal chains and
/// the components' steady states are solved under `settings` (its `levels` and
/// `stateNumber` are the whole graph's and are not used: each component gets the levels of
/// its own markings for IAD, the renewal chains none). Never throws for numerical
/// trouble: `status` and `failed` say what failed.
AbsorptionResult solveAbsorption(const gspn::Net& net, const gspn::TangibleReachabilityGraph& g,
                                 SteadyStateSettings settings);

}  // namespace mmt::solver
