#pragma once
/// \file
/// `mpirun -n P mmt solve FILE`: one model's steady state over the ranks (docs/
/// distributed.md, "One state space over the ranks"): the chain explored with markings
/// owned by hash, then by a few places' tokens (mpi/state_space.hpp, mpi/partition.hpp),
/// solved by Gauss–Seidel and SOR over the ranks and then PETSc's Krylov methods
/// (mpi/steady_state.hpp), and the measures reduced across the
/// ranks into the same metrics as on one machine (compiler::computeMetrics,
/// api::netMeasures).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/model.hpp"
#include "api/results.hpp"
#include "api/settings.hpp"
#include "api/symmetry.hpp"
#include "compiler/metrics.hpp"
#include "mpi/session.hpp"

namespace mmt::mpi {

/// One rank's figures (complete on rank 0 for every rank).
struct RankFigures {
  std::uint64_t states = 0;        ///< tangible markings it owns
  std::uint64_t edges = 0;         ///< CTMC edges into them
  double peakMemoryMegabytes = 0;  ///< peak resident memory of the process
  /// The first pass, the move and the delivery of the kept rows (which builds the matrix).
  double explorationSeconds = 0;
  std::uint64_t explorationBytesSent = 0;  ///< the same phases
  double solveSeconds = 0;
  std::uint64_t bytesPerProduct = 0;  ///< ghost values received per sweep or product
  std::uint64_t crossEdges = 0;       ///< edges into its states from other ranks'
};

struct DistributedSolution {
  std::string name;
  bool system = false;
  std::uint64_t states = 0, edges = 0;
  std::uint64_t rounds = 0;  ///< exchanges of the first pass (mpi/state_space.hpp)
  /// Who owns which marking in the solve (Partition::describe: "hash", "places P1, P2").
  std::string partition;
  /// The fraction of the edges that join states of two ranks.
  double crossEdgeFraction() const;
  std::string method;  ///< the PETSc method that converged
  std::uint64_t iterations = 0;
  double residual = 0;
  double imbalance = 0;  ///< the worst flow imbalance over single states
  std::optional<compiler::SystemMetrics> metrics;
  api::NetMeasures values;
  std::vector<RankFigures> ranks;
  double seconds = 0;  ///< the whole solve, on rank 0
  /// What was lumped by symmetry, as api::Solution::symmetry says it.
  api::SymmetryReport symmetry;
  nlohmann::ordered_json results() const { return api::resultsJson(metrics, values); }
  /// {"schema": "mmt/solve-distributed@1", "system"|"net", "states", "solver", "ranks":
  /// [per rank], then the results tree's sections as `mmt solve --format json` has them}.
  nlohmann::ordered_json json() const;
};

/// Collective: every rank calls it with the same model and settings. Throws the errors of
/// api::solve: ExplorationError (its subclasses' messages, e.g. the state limit, the
/// timeless trap, a deadlock), SolverError when neither method reaches the tolerance
/// (with the residual), UndefinedMeasureError. Transient measures, passage times and
/// exact constant delays are not computed over ranks (one process computes them).
DistributedSolution solve(const Session& session, const api::Model& model,
                          const api::Settings& settings);

}  // namespace mmt::mpi
