#pragma once
/// \file
/// Is a computed steady state accurate? The residual ‖πQ‖∞ / max|q_ii| that every method
/// stops on is blind where rates span many orders of magnitude: in a nearly completely
/// decomposable (NCD) chain the flow between two fast blocks is a rounding error of the
/// flows inside them, so a vector with the blocks' masses wrong by 50% has a residual of
/// 1e-16 (Stewart 1994, ch. 6; P.-J. Courtois, "Decomposability", Academic Press 1977).
/// This unit checks the balance of probability flow where the residual cannot see it,
/// and corrects the block masses by aggregation–disaggregation.
///
/// The check (docs/modelling.md § Accuracy). For a set S of states, the flow into S,
/// in(S) = Σ_{i∉S, j∈S} π_i q_ij, and the flow out of it, out(S) = Σ_{i∈S, j∉S} π_i q_ij,
/// are sums of non-negative terms, so both are computed to full relative precision however
/// small they are next to the flows inside S; in steady state they are equal. The error
/// estimate of S is min(|in − out| / max(in, out), |in − out| / ν_min): the relative
/// imbalance, or the probability the imbalance displaces into the slowest set of its kind
/// (ν_min, the smallest exit rate out(S)/π(S) among them), whichever is smaller. Weighting
/// by S's own probability instead lets an error in an improbable state that feeds a slow
/// one go unseen (the differential test of tests/solver/accuracy.cpp found one). It is
/// taken over
///  - every single state (S = {j}: the local balance, scaled by j's own flow and not by
///    the fastest state's, so slow states are checked too), and
///  - every block of every NCD partition: the connected components of the transitions
///    that carry at least a fraction θ of their source state's exit rate, for
///    θ = 10⁻², 10⁻⁴, …, 10⁻¹⁴ (only those that split the chain). These are the cuts
///    across which a residual cannot see an imbalance.
///
/// The correction is one step of Koury, McAllister and Stewart's iterative
/// aggregation–disaggregation ("Iterative methods for computing stationary distributions
/// of nearly completely decomposable Markov chains", SIAM J. Alg. Disc. Meth. 5(2), 1984;
/// Stewart 1994 §6.3): the coupling matrix C_IJ = Σ_{i∈I} φ_i Σ_{j∈J} q_ij, with φ the
/// distribution within each block, is solved for the block masses ξ (by GTH, which keeps
/// the weak couplings exactly), and π_i ← ξ_I φ_i.

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "solver/ctmc.hpp"

namespace mmt::solver {

/// States grouped into blocks joined only by weak transitions: i → j is weak when
/// q_ij < threshold · (exit rate of i).
struct BlockPartition {
  double threshold = 0;
  std::uint32_t blockCount = 0;
  std::vector<std::uint32_t> blockOf;  ///< n block numbers in 0..blockCount−1
};

/// The NCD partitions of Q for θ = 10⁻², 10⁻⁴, …, 10⁻¹⁴ that have more than one block,
/// each different from the one before (finest first). Empty for most chains: one pass
/// over Q finds that no transition is weak. O(nnz) per partition (union–find).
std::vector<BlockPartition> nearlyDecomposablePartitions(const Generator& q);

/// The number a message gives a generator's state (its id in the reachability graph where
/// the generator's states are renumbered).
using StateNumber = std::function<std::uint64_t(std::size_t)>;

/// The worst flow imbalance of π over single states and the blocks of `partitions` (the
/// error estimate of the file comment), and where it is.
struct FlowImbalance {
  double error = 0;  ///< max over sets S of the error estimate of S
  /// Index into the partitions of the worst set, or `kState` for a single state.
  std::size_t partition = kState;
  std::uint32_t where = 0;  ///< the state or the block
  std::size_t setSize = 1;  ///< states in the worst set
  static constexpr std::size_t kState = static_cast<std::size_t>(-1);
  /// "state 12" (numbered by `number` where given) or "a block of 300 states (transitions
  /// below 1e-06 of their state's exit rate left out)".
  std::string describe(const std::vector<BlockPartition>& partitions,
                       const StateNumber* number = nullptr) const;
};

FlowImbalance flowImbalance(const Generator& q, const Eigen::VectorXd& pi,
                            const std::vector<BlockPartition>& partitions);

/// Sets whose flows are below this fraction of the chain's total flow Σ_j π_j · exit_j
/// are not judged: there the relative imbalance is rounding noise at the end of double's
/// range, and such sets hold no probability that shows.
constexpr double kFlowFloor = 1e-250;

/// The error estimate of one set with inflow `in` and outflow `out`, among sets whose
/// smallest exit rate (out / mass) is `slowest`: min(|in − out| / max(in, out),
/// |in − out| / slowest), the relative imbalance or the probability it displaces,
/// whichever is smaller (the file comment).
double imbalanceError(double in, double out, double slowest);

/// One aggregation–disaggregation step over `partition` on π (normalised, length n): the
/// coupling matrix is solved by GTH up to `denseLimit` blocks and by `coarseSolve`
/// beyond (which returns a probability vector, or an empty one when it fails). Returns
/// false, leaving π unchanged, when the coarse chain cannot be solved.
bool aggregateDisaggregate(const Generator& q, const BlockPartition& partition, Eigen::VectorXd& pi,
                           std::size_t denseLimit,
                           const std::function<Eigen::VectorXd(const Generator&)>& coarseSolve);

/// The sweeps of the next round of correction, between 2 and `most`. Where the last
/// round's `swept` sweeps took the worst state imbalance from `before` to `after` (no
/// aggregation step among them), the imbalance left falls geometrically, by
/// (after/before)^(1/swept) a sweep (the slowest mode of the iteration matrix, Stewart
/// 1994 §3.2): as many sweeps as that rate needs to bring it to `target`, with a
/// quarter more as margin. `most` where it did not fall or is already at the target.
/// Kanban N = 5: 14 sweeps of correction where whole rounds of 10 took 20.
int correctionSweeps(double before, double after, int swept, double target, int most);

/// The coupling matrix of the file comment as a generator over the blocks, and in `phi`
/// the distribution within each block (π_i / π_I; uniform over a block with no mass).
Generator couplingMatrix(const Generator& q, const BlockPartition& partition,
                         const Eigen::VectorXd& pi, Eigen::VectorXd& phi);

/// π of a small irreducible chain by GTH in double precision (dense: n² memory, n³/3
/// operations); empty when the chain is not irreducible.
Eigen::VectorXd gthSolve(const Generator& q);

}  // namespace mmt::solver
