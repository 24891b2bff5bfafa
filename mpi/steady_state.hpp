#pragma once
/// \file
/// The steady state πQ = 0, Σπ = 1 of a chain spread over the ranks (mpi/state_space.hpp),
/// solved by PETSc: A = Qᵀ as an MPIAIJ matrix whose rows each rank already holds, and the
/// singular system Aπ = 0 solved by a Krylov method from the uniform distribution: on a
/// consistent singular system the iterates converge to a null vector, π once normalized
/// (Stewart, "Introduction to the Numerical Solution of Markov Chains" (1994) §4.4 and
/// §5: projection methods for the singular CTMC system; Philippe, Saad & Stewart (1992)).
/// BiCGStab first, then restarted GMRES, each preconditioned by block Jacobi with ILU(0)
/// in each rank's block (PETSc's defaults for MPIAIJ); when neither converges, Jacobi
/// iterations (PETSc's Richardson method with a Jacobi preconditioner: the power method on
/// the uniformized chain's diagonal scaling), the robust fallback. Each method runs in
/// rounds, and π is judged after each by its true residual ‖πQ‖∞ / max_i |q_ii| against
/// the tolerance and by its flow balance at every state against the tolerance too, as
/// on one machine (solver/steady_state.hpp, solver/accuracy.hpp). PETSC_OPTIONS may set other
/// methods and preconditioners (-ksp_type, -pc_type): they replace every attempt's.

#include <cstdint>
#include <string>
#include <vector>

#include "mpi/state_space.hpp"

namespace mmt::mpi {

struct DistributedSteadyState {
  bool converged = false;
  std::string method;  ///< "bicgstab+bjacobi", "gmres+bjacobi" or "jacobi"
  std::uint64_t iterations = 0;
  double residual = 0;  ///< ‖πQ‖∞ / max_i |q_ii|
  /// The worst flow imbalance over single states (solver/accuracy.hpp's check on single
  /// states; the blocks of nearly decomposable partitions are not checked over ranks):
  /// at most the tolerance when converged.
  double imbalance = 0;
  std::vector<double> pi;  ///< this rank's states' probabilities, by local id
  PhaseFigures solve;      ///< this rank's
  /// Bytes this rank receives per matrix-vector product: 8 per ghost value, the columns
  /// of its rows that other ranks own.
  std::uint64_t bytesPerProduct = 0;
};

/// Collective. Builds the matrix from the chain's counts and the edges of the second pass
/// (deliverEdges, under `exploration`), then solves; `tolerance` and `maxIterations` as
/// solver::SteadyStateSettings reads them. Frees the chain's counts.
DistributedSteadyState solveDistributed(const Session& session, const gspn::Net& net,
                                        const gspn::ExplorationSettings& exploration,
                                        LocalChain& chain, double tolerance,
                                        std::uint64_t maxIterations);

}  // namespace mmt::mpi
