#include "solver/steady_state.hpp"

#include <chrono>
#include <cmath>

#include <Eigen/SparseLU>

namespace mmt::solver {
namespace {

using Vector = Eigen::VectorXd;
using Index = Eigen::Index;

SteadyStateResult solveLU(const Generator& q) {
  const Index n = static_cast<Index>(q.size());
  SteadyStateResult r;
  r.method = Method::LU;
  r.iterations = 1;
  // Qᵀ πᵀ = 0 with its last equation replaced by Σ π = 1 (Stewart §2.3.1).
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(q.incoming.nonZeros() + 2 * n);
  for (Index j = 0; j < q.incoming.outerSize(); ++j)
    for (Eigen::SparseMatrix<double>::InnerIterator it(q.incoming, j); it; ++it)
      if (j != n - 1) triplets.emplace_back(j, it.row(), it.value());
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
  if (lu.info() != Eigen::Success || !r.pi.allFinite()) {
    r.status = Status::NumericalIssue;
    r.note = "sparse LU solve failed";
    return r;
  }
  // Round-off can leave tiny negative probabilities; anything larger is a real failure.
  if (r.pi.minCoeff() < -1e-9) {
    r.status = Status::NumericalIssue;
    r.note = "sparse LU produced negative probabilities";
    return r;
  }
  r.pi = r.pi.cwiseMax(0.0);
  r.pi /= r.pi.sum();
  r.residual = relativeResidual(q, r.pi);
  r.status = Status::Converged;
  return r;
}

SteadyStateResult solveGaussSeidel(const Generator& q, const SteadyStateSettings& s) {
  const Index n = static_cast<Index>(q.size());
  SteadyStateResult r;
  r.method = Method::GaussSeidel;
  r.pi = Vector::Constant(n, 1.0 / static_cast<double>(n));
  // π_j ← Σ_{i≠j} π_i q_ij / |q_jj|, in place (Stewart §3.2.2). The residual is computed
  // every few sweeps since it costs as much as a sweep.
  const std::size_t checkEvery = 10;
  for (std::size_t sweep = 1; sweep <= s.maxIterations; ++sweep) {
    for (Index j = 0; j < n; ++j) {
      double inflow = 0;
      for (Eigen::SparseMatrix<double>::InnerIterator it(q.incoming, j); it; ++it)
        inflow += r.pi[it.row()] * it.value();
      r.pi[j] = inflow / q.exitRate[j];
    }
    r.pi /= r.pi.sum();
    r.iterations = sweep;
    if (sweep % checkEvery == 0 || sweep == s.maxIterations) {
      if (!r.pi.allFinite()) {
        r.status = Status::NumericalIssue;
        r.note = "Gauss-Seidel produced non-finite values";
        return r;
      }
      r.residual = relativeResidual(q, r.pi);
      if (r.residual <= s.tolerance) {
        r.status = Status::Converged;
        return r;
      }
    }
  }
  r.status = Status::NoConvergence;
  r.note = "Gauss-Seidel did not reach the tolerance in " + std::to_string(s.maxIterations) +
           " sweeps";
  return r;
}

}  // namespace

std::string toString(Method m) {
  switch (m) {
    case Method::Auto: return "auto";
    case Method::LU: return "lu";
    case Method::GaussSeidel: return "gauss-seidel";
  }
  return "?";
}

double relativeResidual(const Generator& q, const Eigen::VectorXd& pi) {
  const double scale = q.exitRate.size() ? q.exitRate.maxCoeff() : 0.0;
  if (scale == 0.0) return 0.0;
  double worst = 0;
  for (Index j = 0; j < q.incoming.outerSize(); ++j) {
    double r = -pi[j] * q.exitRate[j];
    for (Eigen::SparseMatrix<double>::InnerIterator it(q.incoming, j); it; ++it)
      r += pi[it.row()] * it.value();
    worst = std::max(worst, std::abs(r));
  }
  return worst / scale;
}

SteadyStateResult solveSteadyState(const Generator& q, const SteadyStateSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  SteadyStateResult r;
  if (q.size() == 1) {
    r.status = Status::Converged;
    r.method = settings.method == Method::GaussSeidel ? Method::GaussSeidel : Method::LU;
    r.iterations = 1;
    r.pi = Vector::Ones(1);
  } else if (settings.method == Method::GaussSeidel ||
             (settings.method == Method::Auto && q.size() > settings.directLimit)) {
    r = solveGaussSeidel(q, settings);
  } else {
    r = solveLU(q);
    if (r.status == Status::Converged) {
      if (r.residual > settings.tolerance) {
        r.status = Status::NumericalIssue;
        r.note = "sparse LU result misses the tolerance";
      }
    }
    if (r.status != Status::Converged && settings.method == Method::Auto) {
      std::string why = r.note;
      r = solveGaussSeidel(q, settings);
      r.note = why + "; fell back to Gauss-Seidel" + (r.note.empty() ? "" : "; " + r.note);
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace mmt::solver
