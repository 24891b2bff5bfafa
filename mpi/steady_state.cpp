#include "mpi/steady_state.hpp"

#include <mpi.h>
#include <petscksp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "solver/accuracy.hpp"

namespace mmt::mpi {

namespace {

/// PETSc's error codes as exceptions (std::runtime_error with PETSc's code).
void check(PetscErrorCode code, const char* what) {
  if (code != 0)
    throw std::runtime_error(std::string("PETSc failed in ") + what + " (error " +
                             std::to_string(int(code)) + ")");
}

/// PETSc for the duration of one solve (MPI is already initialized and stays so).
struct PetscScope {
  PetscScope() { check(PetscInitializeNoArguments(), "PetscInitialize"); }
  ~PetscScope() { PetscFinalize(); }
};

}  // namespace

DistributedSteadyState solveDistributed(const Session& session, const gspn::Net& net,
                                        const gspn::ExplorationSettings& exploration,
                                        LocalChain& chain, double tolerance,
                                        std::uint64_t maxIterations) {
  PetscScope petsc;
  DistributedSteadyState out;
  const PetscInt n = PetscInt(chain.size()), N = PetscInt(chain.states);
  const PetscInt first = PetscInt(chain.first);

  // Preallocated from the first pass's counts: per row the entries in this rank's columns
  // (the diagonal among them) and in the others'.
  std::vector<PetscInt> diagonal(n), offDiagonal(n);
  for (PetscInt t = 0; t < n; ++t) {
    diagonal[t] = PetscInt(chain.localIn[t]) + 1;
    offDiagonal[t] = PetscInt(chain.remoteIn[t]);
  }
  std::vector<std::uint32_t>().swap(chain.localIn);
  std::vector<std::uint32_t>().swap(chain.remoteIn);
  Mat A;
  check(MatCreateAIJ(PETSC_COMM_WORLD, n, n, N, N, 0, diagonal.data(), 0, offDiagonal.data(), &A),
        "MatCreateAIJ");
  std::vector<PetscInt>().swap(diagonal);
  std::vector<PetscInt>().swap(offDiagonal);
  check(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE), "MatSetOption");
  double largestExit = 0;
  for (PetscInt t = 0; t < n; ++t) {
    const PetscInt row = first + t;
    const PetscScalar value = -chain.exitRate[t];
    largestExit = std::max(largestExit, chain.exitRate[t]);
    check(MatSetValues(A, 1, &row, 1, &row, &value, INSERT_VALUES), "MatSetValues");
  }
  // The second pass: each edge into one of this rank's states, into its row.
  deliverEdges(session, net, exploration, chain,
               [&](std::uint32_t target, std::uint64_t source, double rate) {
                 const PetscInt row = first + PetscInt(target), column = PetscInt(source);
                 const PetscScalar value = rate;
                 check(MatSetValues(A, 1, &row, 1, &column, &value, INSERT_VALUES), "MatSetValues");
               });
  const auto start = std::chrono::steady_clock::now();
  check(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  {
    Mat local, ghosts;
    const PetscInt* map = nullptr;
    check(MatMPIAIJGetSeqAIJ(A, &local, &ghosts, &map), "MatMPIAIJGetSeqAIJ");
    PetscInt rows = 0, ghostColumns = 0;
    check(MatGetSize(ghosts, &rows, &ghostColumns), "MatGetSize");
    out.bytesPerProduct = std::uint64_t(ghostColumns) * sizeof(PetscScalar);
  }
  double scale = 0;
  MPI_Allreduce(&largestExit, &scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  Vec x, b, r;
  check(MatCreateVecs(A, &x, &b), "MatCreateVecs");
  check(VecDuplicate(b, &r), "VecDuplicate");
  check(VecSet(b, 0.0), "VecSet");

  // Normalizes v, then: its residual ‖πQ‖∞ / max_i |q_ii|, and its worst flow imbalance
  // over single states by solver/accuracy.hpp's rule (imbalanceError over the states whose
  // flow is above kFlowFloor of the total, ν_min the smallest exit rate among them), with
  // in(j) = (πQ)_j + out(j) and out(j) = π_j · exit_j, the exit rates being this rank's.
  const std::vector<double>& exits = chain.exitRate;
  auto judge = [&](Vec v) {
    PetscScalar total = 0;
    check(VecSum(v, &total), "VecSum");
    if (!(std::abs(total) > 0)) {
      out.residual = out.imbalance = INFINITY;
      return;
    }
    check(VecScale(v, 1.0 / total), "VecScale");
    check(MatMult(A, v, r), "MatMult");
    PetscReal largest = 0;
    check(VecNorm(r, NORM_INFINITY, &largest), "VecNorm");
    out.residual = scale > 0 ? double(largest) / scale : 0.0;
    const PetscScalar *rows = nullptr, *p = nullptr;
    check(VecGetArrayRead(r, &rows), "VecGetArrayRead");
    check(VecGetArrayRead(v, &p), "VecGetArrayRead");
    double flow = 0, totalFlow = 0;
    for (PetscInt j = 0; j < n; ++j) flow += p[j] * exits[j];
    MPI_Allreduce(&flow, &totalFlow, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double floor = solver::kFlowFloor * totalFlow;
    double slowest = INFINITY, mySlowest = INFINITY;
    for (PetscInt j = 0; j < n; ++j)
      if (p[j] * exits[j] >= floor) mySlowest = std::min(mySlowest, exits[j]);
    MPI_Allreduce(&mySlowest, &slowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    double worst = 0;
    for (PetscInt j = 0; j < n; ++j) {
      const double outflow = p[j] * exits[j], inflow = std::max(0.0, rows[j] + outflow);
      if (totalFlow > 0 && std::max(inflow, outflow) >= floor)
        worst = std::max(worst, solver::imbalanceError(inflow, outflow, slowest));
    }
    check(VecRestoreArrayRead(v, &p), "VecRestoreArrayRead");
    check(VecRestoreArrayRead(r, &rows), "VecRestoreArrayRead");
    MPI_Allreduce(&worst, &out.imbalance, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  };

  KSP ksp;
  check(KSPCreate(PETSC_COMM_WORLD, &ksp), "KSPCreate");
  check(KSPSetOperators(ksp, A, A), "KSPSetOperators");
  // Each method runs in rounds from the last iterate, the relative tolerance of its own
  // residual 1e-4 and then 1e-3 of that each round, until the true residual and the flow
  // imbalance both meet the tolerance (as on one machine); a method that breaks down
  // hands over to the next.
  const auto allowed = PetscInt(std::min<std::uint64_t>(maxIterations, 1u << 30));
  check(VecSet(x, 1.0 / double(N)), "VecSet");
  check(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE), "KSPSetInitialGuessNonzero");
  auto attempt = [&](KSPType type, PCType preconditioner, const char* name) {
    check(KSPSetType(ksp, type), "KSPSetType");
    PC pc;
    check(KSPGetPC(ksp, &pc), "KSPGetPC");
    check(PCSetType(pc, preconditioner), "PCSetType");
    out.method = name;
    for (double relative = 1e-4; relative > 1e-18 && out.iterations < std::uint64_t(allowed);
         relative *= 1e-3) {
      check(KSPSetTolerances(ksp, relative, 0.0, PETSC_DEFAULT, allowed - PetscInt(out.iterations)),
            "KSPSetTolerances");
      check(KSPSetFromOptions(ksp), "KSPSetFromOptions");
      check(KSPSolve(ksp, b, x), "KSPSolve");
      KSPConvergedReason reason;
      PetscInt done = 0;
      check(KSPGetConvergedReason(ksp, &reason), "KSPGetConvergedReason");
      check(KSPGetIterationNumber(ksp, &done), "KSPGetIterationNumber");
      out.iterations += std::uint64_t(done);
      judge(x);  // normalizes x
      out.converged = out.residual <= tolerance && out.imbalance <= tolerance;
      if (out.converged || reason < 0) return;
    }
  };
  attempt(KSPBCGS, PCBJACOBI, "bicgstab+bjacobi");
  if (!out.converged && out.iterations < std::uint64_t(allowed))
    attempt(KSPGMRES, PCBJACOBI, "gmres+bjacobi");
  if (!out.converged && out.iterations < std::uint64_t(allowed))
    attempt(KSPRICHARDSON, PCJACOBI, "jacobi");

  const PetscScalar* local = nullptr;
  check(VecGetArrayRead(x, &local), "VecGetArrayRead");
  out.pi.assign(local, local + n);
  check(VecRestoreArrayRead(x, &local), "VecRestoreArrayRead");
  KSPDestroy(&ksp);
  VecDestroy(&x);
  VecDestroy(&b);
  VecDestroy(&r);
  MatDestroy(&A);
  out.solve.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace mmt::mpi
