#pragma once
/// \file
/// Transient distributions of a CTMC by uniformization (Jensen 1953; Stewart, "Introduction
/// to the Numerical Solution of Markov Chains", 1994, §8.2): with q ≥ max_i |q_ii| and
/// P = I + Q/q,
///
///     π(t) = Σ_k e^{−qt} (qt)^k / k! · π(0) P^k,
///
/// the Poisson weights truncated to a window [L, R] that holds all but ε/4 of their mass
/// (Fox & Glynn, "Computing Poisson probabilities", CACM 31(4), 1988). Entries of π(0) P^k
/// below a threshold are set to 0, their probability counted and kept under ε/4 in all
/// (P is a contraction in the 1-norm, so what is dropped is never amplified); while few
/// states hold probability, a product costs only their out-edges (the fast adaptive
/// uniformisation of Mateescu, Wolf, Didier and Henzinger, IET Systems Biology 4(6), 2010,
/// without its adaptive rate). π(t) is off by at most ε in total variation: a quarter of
/// it to truncation, a quarter to dropped states, half to steady-state detection. The time
/// average (1/t) ∫₀ᵗ π(u) du weights π(0) P^k by (1 − F(k)) / (qt), F the Poisson distribution
/// function (Reibman & Trivedi, "Numerical transient analysis of Markov models", Computers &
/// Operations Research 15(1), 1988, §3). When the iterates stop changing (steady-state detection,
/// as PRISM and Storm do) the remaining weight goes to the last iterate, so a large qt costs the
/// iterations to converge, not qt of them.

#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gspn/run_control.hpp"
#include "solver/ctmc.hpp"
#include "solver/steady_state.hpp"

namespace mmt::solver {

/// The Poisson(λ) probabilities p_k = e^{−λ} λ^k / k! for k in [left, right], the shortest
/// window around the mode that holds at least 1 − ε of the mass. weights[k − left] = p_k.
struct PoissonWindow {
  std::uint64_t left = 0, right = 0;
  std::vector<double> weights;
  /// Σ weights: the mass inside the window, at least 1 − ε.
  double mass = 0;
};

/// The window for rate·time λ ≥ 0 and truncation error ε in (0, 1). The weights are
/// computed from the mode outwards by the ratios p_{k+1}/p_k = λ/(k+1), the mode's own
/// value from Stirling's series (no overflow or underflow at any λ up to 2^53; Fox and
/// Glynn scale instead). Throws std::invalid_argument for λ < 0 or ε outside (0, 1).
PoissonWindow poissonWindow(double lambda, double epsilon);

/// A first iterate that poissonWindow(λ, ε) never starts before, in O(1) time, so that a
/// large λ whose chain becomes stationary first never builds its window. The window is the
/// N most probable counts, N the fewest that hold 1 − ε, and so contiguous around the mode
/// m; any interval I = [λ − a, λ + b] holding 1 − ε has at least N counts, so the window
/// starts at or after m − |I| + 1. The tails give a and b: P(X ≤ λ − a) ≤ exp(−a²/(2λ))
/// and P(X ≥ λ + b) ≤ exp(−b²/(2(λ + b))) (the Chernoff bounds of a Poisson variable in
/// Bernstein's form; C. Canonne, "A short note on Poisson tail bounds", 2017), each ε/2:
/// about λ − 14√λ at ε = 10⁻¹⁰. UINT64_MAX for λ past 2^53 or infinite, where consecutive
/// counts are no longer doubles: such a window is never reached.
std::uint64_t poissonWindowStart(double lambda, double epsilon);

/// An iterate that poissonWindow(λ, ε) never ends after, in O(1) time: the mode plus the
/// length of the interval of poissonWindowStart, so ⌊λ⌋ + ⌈a + b⌉ + 2.
std::uint64_t poissonWindowEnd(double lambda, double epsilon);

struct TransientSettings {
  /// Times t ≥ 0 (model time units), in any order; each gets one distribution.
  std::vector<double> times;
  /// Time averages over [0, t] instead of the distribution at t (t = 0 gives π(0)).
  bool cumulative = false;
  /// Probability mass lost to truncation at each time (total variation error of π(t)).
  double epsilon = 1e-10;
  /// The chain's steady-state distribution over the same states, when it has one (not
  /// owned). With it, the iterates are stationary once within ε/4 of it in the 1-norm
  /// (P contracts that distance, so no later iterate is further); without it, once their
  /// changes shrink geometrically to a tail under ε/4 (a heuristic, as PRISM's).
  const Eigen::VectorXd* limit = nullptr;
  /// solveNet: the transient distributions only, without solving the steady state (the
  /// limit is then unknown, and stationarity is told from the iterates' changes).
  bool withoutSteadyState = false;
  /// In chains of this many states or more, once 32 products in a row have left at most a
  /// 32nd of the states holding probability, the products go over those states and their
  /// successors only, while they are at most a 16th of the chain (smaller chains are
  /// cheaper in full, on both cores).
  std::size_t heldFrom = 10'000;
  /// Progress lines, and the interrupt, checked at every product.
  RunControl run;
};

struct TransientResult {
  Status status = Status::Converged;
  /// One distribution per requested time, in the order of TransientSettings::times, over
  /// the generator's states.
  std::vector<Eigen::VectorXd> distributions;
  /// The uniformization rate q (1.02 × the largest exit rate: every state keeps a
  /// self-loop, so P is aperiodic and steady-state detection sees convergence).
  double rate = 0;
  /// Products with P computed (the largest window's right end, or fewer when the iterates
  /// became stationary).
  std::uint64_t iterations = 0;
  /// The iteration after which the iterates no longer changed (by more than ε/2 in all;
  /// TransientSettings::limit says how that is told), when that came before the last
  /// window ended.
  std::optional<std::uint64_t> stationaryAt;
  /// Probability set to 0 in entries below a threshold, at most ε/4 in all.
  double dropped = 0;
  /// Products computed over the states held only (the first ones, while few states hold
  /// probability), and the most states held after one of them.
  std::uint64_t heldProducts = 0;
  std::size_t mostHeld = 0;
  double seconds = 0;
  std::string note;  ///< "interrupted" when status is Interrupted
};

/// π(t) (or its time average) from the initial distribution `initial` (state, probability)
/// for every time of `settings`, on the chain with generator `q` (any chain: absorbing and
/// transient states are fine). Never throws for a model's fault; an interruption is
/// reported in `status` (Interrupted), which is otherwise Converged. The cost is one
/// product with P per iteration up to the largest window's right end (about qt + 6√(qt)),
/// or fewer when the iterates become stationary.
///
/// Products over every state run on a copy of q's entries in slices of four columns
/// (solver/sliced_columns.hpp) where q is packed, on q's columns otherwise.
TransientResult solveTransient(const Generator& q,
                               const std::vector<std::pair<std::uint32_t, double>>& initial,
                               const TransientSettings& settings);
/// As above, but q's entries are given back to the system as they are copied into slices
/// (SlicedColumns::from; its exit rates stay): the two copies are never resident at once.
TransientResult solveTransient(Generator&& q,
                               const std::vector<std::pair<std::uint32_t, double>>& initial,
                               const TransientSettings& settings);

}  // namespace mmt::solver
