#pragma once
/// \file
/// The steady state πQ = 0, Σπ = 1 of a chain spread over the ranks (mpi/state_space.hpp).
/// Each rank holds its rows of A = Qᵀ in the one-process solver's storage (solver::
/// Generator: 4–6 bytes an edge, compact rates, sources numbered locally with the other
/// ranks' states as ghosts) behind a PETSc shell matrix, whose product and Gauss–Seidel
/// sweep fetch the ghosts' values from the ranks that own them (a neighbourhood
/// exchange, MPI_Neighbor_alltoallv). The method is Gauss–Seidel
/// first, over each rank's states a round of the first pass at a time, each round's new
/// values sent on before the next (Gauss–Seidel in the order the markings were found,
/// block Jacobi only among the ranks' markings of the same round), which
/// holds one vector of the rank's length (Stewart, "Introduction to the Numerical
/// Solution of Markov Chains" (1994) §3.2, and the block methods of §3.5), relaxed to SOR
/// while it converges faster so, each round of sweeps with an aggregation step over the
/// ranks' blocks
/// (Koury, McAllister & Stewart 1984) and, where the convergence rate is steady, an
/// extrapolation along the slowest mode (Aitken); when it does not converge within
/// kGaussSeidelSweeps, the singular system Aπ = 0 is solved from its last iterate by
/// BiCGStab, then restarted GMRES, each preconditioned by Jacobi (PETSc's KSP: on a
/// consistent singular system the iterates converge to a null vector, π once normalized;
/// Stewart §4.4 and §5, Philippe, Saad & Stewart (1992)), with about ten vectors. Each
/// method runs in rounds, and π is judged after each by its true residual ‖πQ‖∞ /
/// max_i |q_ii| against the tolerance and by its flow balance at every state against the
/// tolerance too, as on one machine (solver/steady_state.hpp, solver/accuracy.hpp); and,
/// since block Jacobi between the ranks leaves more error at a given residual than one
/// process, the sweeps by their estimated error and the Krylov methods by a residual
/// below the tolerance (kErrorPerTolerance, kKrylovResidualPerTolerance).
/// PETSC_OPTIONS, when set, skips Gauss–Seidel and its -ksp_type / -pc_type replace the
/// Krylov attempts' (-pc_type sor: the shell's sweeps as the preconditioner).

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mpi/state_space.hpp"

namespace mmt::mpi {

/// Gauss–Seidel sweeps between two judgements of the iterate, and at most in all before
/// the Krylov methods take over (Kanban N = 6 on 4 ranks took 740 at the default
/// tolerance).
constexpr std::uint64_t kSweepsPerRound = 10;
constexpr std::uint64_t kGaussSeidelSweeps = 2000;
/// Extrapolations undone (their next round's residual above theirs) before the sweeps
/// stop extrapolating.
constexpr int kExtrapolationFailures = 3;
/// SOR's relaxation factor over the ranks, and the sweeps of Gauss–Seidel before it.
constexpr double kRelaxation = 1.2;
constexpr std::uint64_t kRelaxedFrom = 30;
/// SOR is tried against Gauss–Seidel only once its residual falls by less than this
/// factor a round (0.87 a sweep): at faster rates the rate's growth from round to round
/// is noise (Kanban N = 5 on 4 ranks went 0.018, 0.055 a round, and the trial cost 30
/// sweeps of 120).
constexpr double kSlowRound = 0.25;
/// Gauss–Seidel stops once the error of π it estimates, in ‖·‖₁, is at most this many
/// times the tolerance (besides the residual and the flow balance): the error one
/// process's answer has at that tolerance (Kanban N = 4 at 1e-10: 8.6e-9 relative in a
/// throughput, with its sweeps over one block).
constexpr double kErrorPerTolerance = 10;
/// The Krylov methods give no such estimate (their error is the residual times the
/// condition of the chain, unknown): they stop at a residual this fraction of the
/// tolerance (a test chain of two counters with rates over 5 decades: 5.3e-7 relative
/// error in a mean at a residual of 1.3e-12).
constexpr double kKrylovResidualPerTolerance = 1e-3;

struct DistributedSteadyState {
  bool converged = false;
  /// "gauss-seidel" or "sor" (the sweeps over the ranks, relaxed at the end or not), or
  /// PETSc's names of the Krylov method and preconditioner that ran
  /// ("bcgs+jacobi", "gmres+jacobi", or as PETSC_OPTIONS chose).
  std::string method;
  std::uint64_t iterations = 0;
  double residual = 0;  ///< ‖πQ‖∞ / max_i |q_ii|
  /// The worst flow imbalance over single states (solver/accuracy.hpp's check on single
  /// states; the blocks of nearly decomposable partitions are not checked over ranks):
  /// at most the tolerance when converged.
  double imbalance = 0;
  /// Gauss–Seidel's estimate of ‖π − π*‖₁ (mpi/steady_state.cpp, gaussSeidelRounds);
  /// not estimated by the Krylov methods (infinity).
  double errorEstimate = INFINITY;
  std::vector<double> pi;  ///< this rank's states' probabilities, by local id
  PhaseFigures solve;      ///< this rank's
  /// Bytes this rank receives per matrix-vector product or sweep: 8 per ghost value, the
  /// sources of its rows that other ranks own.
  std::uint64_t bytesPerProduct = 0;
  /// Edges into this rank's states from other ranks' (mpi/partition.hpp).
  std::uint64_t crossEdges = 0;
};

/// Collective. Builds the rows from the chain's counts and the edges the first pass kept
/// (deliverEdges), then solves; `tolerance` and `maxIterations` as
/// solver::SteadyStateSettings reads them (`maxIterations` bounds the sweeps and the
/// Krylov iterations together). Frees the chain's counts, exit rates and kept rows (the
/// markings stay, for the measures). Runs in the PETSc module (distributedSolver).
DistributedSteadyState solveDistributed(const Session& session, LocalChain& chain, double tolerance,
                                        std::uint64_t maxIterations);

/// solveDistributed's signature, as the module exports it.
using DistributedSolver = DistributedSteadyState(const Session&, LocalChain&, double,
                                                 std::uint64_t);

/// The module that holds everything PETSc does (mpi/steady_state.cpp, linked with PETSc
/// and loaded with dlopen on first use): PETSc and the hundred libraries it loads cost
/// every process 26 MB and 70–100 ms at start, which only a distributed solve needs. Looked
/// for beside the executable as installed (`lib/mmt/`, kModuleName) and in the build tree
/// (`mpi/`). Loading it sets the allocator again (api::useMappedLargeBlocks), which
/// SuperLU_DIST's library constructor changes (it turns off mapped blocks and trimming, so
/// nothing freed would be given back). Throws std::runtime_error naming the paths tried
/// when it cannot load.
DistributedSolver& distributedSolver();

/// The module's file name.
inline constexpr const char* kModuleName = "libmmt_petsc.so";

}  // namespace mmt::mpi
