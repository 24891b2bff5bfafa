#include "solver/gmres.hpp"

#include <cmath>
#include <utility>
#include <vector>

namespace mmt::solver {
namespace {

using Index = Eigen::Index;

/// Vectors shorter than this are handled on one thread (a parallel region costs a barrier;
/// see kParallelStates in solver/steady_state_methods.hpp).
constexpr Index kParallelRows = 50'000;
/// The fixed row blocks of every reduction: their partial sums are added in block order.
constexpr Index kBlocks = 64;

Index blockBegin(Index n, Index c) { return n * c / kBlocks; }

/// h_i = Σ_r V(r, i) w(r) for i < k.
void project(const Eigen::MatrixXd& v, Index k, const double* w, double* h,
             std::vector<double>& partial) {
  const Index n = v.rows();
  partial.assign(static_cast<std::size_t>(kBlocks * k), 0.0);
#pragma omp parallel for schedule(static) if (n >= kParallelRows)
  for (Index c = 0; c < kBlocks; ++c) {
    const Index begin = blockBegin(n, c), end = blockBegin(n, c + 1);
    for (Index i = 0; i < k; ++i) {
      const double* column = v.col(i).data();
      double sum = 0;
      for (Index r = begin; r < end; ++r) sum += column[r] * w[r];
      partial[static_cast<std::size_t>(c * k + i)] = sum;
    }
  }
  for (Index i = 0; i < k; ++i) {
    double sum = 0;
    for (Index c = 0; c < kBlocks; ++c) sum += partial[static_cast<std::size_t>(c * k + i)];
    h[i] = sum;
  }
}

/// w ← w + sign Σ_{i<k} V(:, i) h_i.
void combine(const Eigen::MatrixXd& v, Index k, const double* h, double sign, double* w) {
  const Index n = v.rows();
#pragma omp parallel for schedule(static) if (n >= kParallelRows)
  for (Index c = 0; c < kBlocks; ++c) {
    const Index begin = blockBegin(n, c), end = blockBegin(n, c + 1);
    for (Index i = 0; i < k; ++i) {
      const double* column = v.col(i).data();
      const double f = sign * h[i];
      for (Index r = begin; r < end; ++r) w[r] += f * column[r];
    }
  }
}

double norm(const double* w, Index n) {
  double partial[kBlocks];
#pragma omp parallel for schedule(static) if (n >= kParallelRows)
  for (Index c = 0; c < kBlocks; ++c) {
    double sum = 0;
    for (Index r = blockBegin(n, c); r < blockBegin(n, c + 1); ++r) sum += w[r] * w[r];
    partial[c] = sum;
  }
  double sum = 0;
  for (double p : partial) sum += p;
  return std::sqrt(sum);
}

}  // namespace

RestartedGmres::RestartedGmres(const Matrix& a, Preconditioner m, std::size_t restart)
    : a_(a),
      m_(std::move(m)),
      restart_(restart),
      basis_(a.rows(), static_cast<Index>(restart) + 1) {}

void RestartedGmres::multiply(const double* x, double* y) const {
  const Index n = a_.rows();
  const int* offset = a_.outerIndexPtr();
  const int* column = a_.innerIndexPtr();
  const double* value = a_.valuePtr();
#pragma omp parallel for schedule(static) if (n >= kParallelRows)
  for (Index i = 0; i < n; ++i) {
    double sum = 0;
    for (int p = offset[i]; p < offset[i + 1]; ++p) sum += value[p] * x[column[p]];
    y[i] = sum;
  }
}

double RestartedGmres::residualNorm(const Eigen::VectorXd& b, const Eigen::VectorXd& x) const {
  Eigen::VectorXd r(b.size());
  multiply(x.data(), r.data());
  r = b - r;
  return norm(r.data(), r.size());
}

RestartedGmres::Cycle RestartedGmres::cycle(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                            std::size_t limit,
                                            const std::function<bool(std::size_t, double)>& stop) {
  const Index n = a_.rows();
  const Index m = static_cast<Index>(std::min(restart_, limit));
  Cycle out;
  if (m == 0) return out;
  double* v0 = basis_.col(0).data();
  multiply(x.data(), v0);
  for (Index r = 0; r < n; ++r) v0[r] = b[r] - v0[r];
  const double beta = norm(v0, n);
  out.residualEstimate = beta;
  if (!(beta > 0)) {
    out.brokeDown = !std::isfinite(beta);
    return out;
  }
  basis_.col(0) /= beta;

  // The Hessenberg matrix H ((m + 1) × m, upper triangular once rotated), the rotations
  // (c_i, s_i) and the rotated right-hand side g = β e_1.
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(m + 1, m);
  std::vector<double> cs(static_cast<std::size_t>(m)), sn(static_cast<std::size_t>(m));
  Eigen::VectorXd g = Eigen::VectorXd::Zero(m + 1);
  g[0] = beta;
  std::vector<double> partial, coefficients(static_cast<std::size_t>(m) + 1);
  Index k = 0;
  while (k < m) {
    const Index j = k;
    const Eigen::VectorXd z = m_(basis_.col(j));
    double* w = basis_.col(j + 1).data();
    multiply(z.data(), w);
    for (int pass = 0; pass < 2; ++pass) {  // classical Gram–Schmidt, twice
      project(basis_, j + 1, w, coefficients.data(), partial);
      combine(basis_, j + 1, coefficients.data(), -1.0, w);
      for (Index i = 0; i <= j; ++i) h(i, j) += coefficients[static_cast<std::size_t>(i)];
    }
    const double next = norm(w, n);
    h(j + 1, j) = next;
    if (!std::isfinite(next)) {
      out.brokeDown = true;
      return out;
    }
    if (next > 0) basis_.col(j + 1) /= next;
    for (Index i = 0; i < j; ++i) {  // the earlier rotations on column j
      const double top = cs[std::size_t(i)] * h(i, j) + sn[std::size_t(i)] * h(i + 1, j);
      h(i + 1, j) = -sn[std::size_t(i)] * h(i, j) + cs[std::size_t(i)] * h(i + 1, j);
      h(i, j) = top;
    }
    const double d = std::hypot(h(j, j), h(j + 1, j));
    cs[std::size_t(j)] = d > 0 ? h(j, j) / d : 1.0;
    sn[std::size_t(j)] = d > 0 ? h(j + 1, j) / d : 0.0;
    h(j, j) = d;
    h(j + 1, j) = 0;
    g[j + 1] = -sn[std::size_t(j)] * g[j];
    g[j] = cs[std::size_t(j)] * g[j];
    k = j + 1;
    out.residualEstimate = std::abs(g[k]);
    // An exact solution (next = 0: the Krylov space is invariant), or the caller's stop.
    if (!(next > 0) || stop(static_cast<std::size_t>(k), out.residualEstimate)) break;
  }
  out.iterations = static_cast<std::size_t>(k);
  const Eigen::VectorXd y = h.topLeftCorner(k, k).triangularView<Eigen::Upper>().solve(g.head(k));
  Eigen::VectorXd u = Eigen::VectorXd::Zero(n);
  combine(basis_, k, y.data(), 1.0, u.data());
  const Eigen::VectorXd step = m_(u);
  if (!step.allFinite()) {
    out.brokeDown = true;
    return out;
  }
  x += step;
  return out;
}

}  // namespace mmt::solver
