// The direct methods of the steady state: GTH and sparse LU (steady_state_methods.hpp).
#include <Eigen/SparseLU>
#include <utility>

#include "solver/gth.hpp"
#include "solver/steady_state_methods.hpp"

namespace mmt::solver::methods {
namespace {

/// The end of a direct method: π normalised with its residual and Converged, or, when the
/// method failed (`ok` false) or π is no probability vector, NumericalIssue with `failure`.
SteadyStateResult finishDirect(SteadyStateResult r, const Generator& q, bool ok,
                               const char* failure) {
  if (!ok || !normalise(r.pi)) {
    r.status = Status::NumericalIssue;
    r.note = failure;
    r.pi = Vector();
    return r;
  }
  r.residual = relativeResidual(q, r.pi);
  r.status = Status::Converged;
  return r;
}

}  // namespace

SteadyStateResult solveLU(const Generator& q) {
  const Index n = static_cast<Index>(q.size());
  SteadyStateResult r;
  r.method = Method::LU;
  r.iterations = 1;
  // Qᵀ πᵀ = 0 with its last equation replaced by Σ π = 1 (Stewart §2.3.1).
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(q.entries() + 2 * n);
  for (Index j = 0; j < n - 1; ++j)
    for (int k = q.offset[j]; k < q.offset[j + 1]; ++k)
      triplets.emplace_back(j, q.source(k), q.rate(k));
  for (Index i = 0; i < n - 1; ++i) triplets.emplace_back(i, i, -q.exitRate[i]);
  for (Index i = 0; i < n; ++i) triplets.emplace_back(n - 1, i, 1.0);
  Eigen::SparseMatrix<double> a(n, n);
  a.setFromTriplets(triplets.begin(), triplets.end());
  a.makeCompressed();

  Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;
  lu.compute(a);
  if (lu.info() != Eigen::Success) {
    r.status = Status::NumericalIssue;
    r.note = "sparse LU factorisation failed: " + lu.lastErrorMessage();
    return r;
  }
  Vector rhs = Vector::Zero(n);
  rhs[n - 1] = 1.0;
  r.pi = lu.solve(rhs);
  return finishDirect(std::move(r), q, lu.info() == Eigen::Success,
                      "sparse LU produced no probability vector");
}

/// Largest chain `--method gth` accepts: GTH holds the dense n × n matrix (800 MB here).
constexpr std::size_t kGthLimit = 10'000;

SteadyStateResult solveGTH(const Generator& q) {
  SteadyStateResult r;
  r.method = Method::GTH;
  r.iterations = 1;
  if (q.size() > kGthLimit) {
    r.status = Status::NumericalIssue;
    r.note = "gth is dense (n^2 memory, n^3 time): " + std::to_string(q.size()) +
             " states are more than the " + std::to_string(kGthLimit) + " it takes";
    return r;
  }
  r.pi = gthSolve(q);
  const bool irreducible = r.pi.size() != 0;
  return finishDirect(std::move(r), q, irreducible, "GTH found the chain not irreducible");
}

}  // namespace mmt::solver::methods
