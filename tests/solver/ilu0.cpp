// ILU(0) against what it must be: the exact LU factors where A's pattern admits no fill
// (a tridiagonal matrix, and an arrow with its point at the end), factors that reproduce A
// on its pattern on a matrix with fill (Saad 2003, §10.3.2: (L U)_ij = a_ij for every
// stored (i, j)), and its errors; GMRES(m) of solver/gmres.hpp against dense LU.
#include "solver/ilu0.hpp"

#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <Eigen/IterativeLinearSolvers>
#include <atomic>
#include <random>

#include "solver/gmres.hpp"

using mmt::solver::IncompleteLU0;
using Sparse = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

namespace {

/// A random diagonally dominant M-matrix on the pattern `pattern` (plus the diagonal).
Sparse mMatrix(int n, const std::vector<std::pair<int, int>>& pattern, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> rate(0.1, 10.0);
  std::vector<double> rowSum(static_cast<std::size_t>(n), 0.0);
  std::vector<Eigen::Triplet<double>> t;
  for (auto [i, j] : pattern) {
    const double r = rate(rng);
    t.emplace_back(i, j, -r);
    rowSum[static_cast<std::size_t>(i)] += r;
  }
  for (int i = 0; i < n; ++i) t.emplace_back(i, i, rowSum[static_cast<std::size_t>(i)] + 1.0);
  Sparse a(n, n);
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

/// The largest |x_i − y_i| over i.
double gap(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  return (x - y).lpNorm<Eigen::Infinity>();
}

}  // namespace

TEST_CASE("ILU(0) is the exact LU where the pattern has no fill") {
  const int n = 200;
  std::vector<std::pair<int, int>> tridiagonal, arrow;
  for (int i = 0; i + 1 < n; ++i) {
    tridiagonal.emplace_back(i, i + 1);
    tridiagonal.emplace_back(i + 1, i);
    arrow.emplace_back(i, n - 1);  // the last column and row: eliminating never fills
    arrow.emplace_back(n - 1, i);
  }
  for (const auto& pattern : {tridiagonal, arrow}) {
    const Sparse a = mMatrix(n, pattern, 7);
    IncompleteLU0 ilu;
    ilu.compute(a);
    REQUIRE(ilu.info() == Eigen::Success);
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, 1.0, 2.0);
    const Eigen::VectorXd x = ilu.solve(b);
    const Eigen::VectorXd exact = Eigen::MatrixXd(a).partialPivLu().solve(b);
    CHECK(gap(x, exact) <= 1e-12 * exact.lpNorm<Eigen::Infinity>());
  }
}

TEST_CASE("ILU(0)'s factors reproduce A on its pattern and drop the fill") {
  // A random sparse M-matrix: L U agrees with A at every stored entry (Saad 2003,
  // Proposition 10.4's consequence for the zero-fill pattern) and differs off it.
  const int n = 60;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pick(0, n - 1);
  std::vector<std::pair<int, int>> pattern;
  for (int k = 0; k < 4 * n; ++k) {
    const int i = pick(rng), j = pick(rng);
    if (i != j) pattern.emplace_back(i, j);
  }
  Sparse a = mMatrix(n, pattern, 3);
  IncompleteLU0 ilu;
  ilu.compute(a);
  REQUIRE(ilu.info() == Eigen::Success);
  // (L U) column by column: (L U) e_j = L (U e_j); the preconditioner gives (L U)⁻¹, so
  // take M = (L U) from solving against each unit vector and inverting densely.
  Eigen::MatrixXd inverse(n, n);
  for (int j = 0; j < n; ++j) inverse.col(j) = ilu.solve(Eigen::VectorXd::Unit(n, j));
  const Eigen::MatrixXd product = inverse.inverse();
  const Eigen::MatrixXd dense(a);
  double onPattern = 0, offPattern = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double d = std::abs(product(i, j) - dense(i, j));
      if (a.coeff(i, j) != 0)
        onPattern = std::max(onPattern, d);
      else
        offPattern = std::max(offPattern, d);
    }
  CHECK(onPattern <= 1e-9);
  CHECK(offPattern > 1e-6);  // the pattern has fill, and ILU(0) drops it
}

TEST_CASE("GMRES(m) with ILU(0) solves a sparse M-matrix system; BiCGSTAB agrees") {
  const int n = 2000;
  std::vector<std::pair<int, int>> pattern;
  for (int i = 0; i < n; ++i) {
    pattern.emplace_back(i, (i + 1) % n);
    pattern.emplace_back(i, (i + 37) % n);
    pattern.emplace_back((i + 5) % n, i);
  }
  const Sparse a = mMatrix(n, pattern, 5);
  IncompleteLU0 ilu;
  ilu.compute(a);
  REQUIRE(ilu.info() == Eigen::Success);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 3.0);
  mmt::solver::RestartedGmres gmres(
      a, [&ilu](const Eigen::VectorXd& v) { return ilu.solve(v); }, 10);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::size_t cycles = 0;
  double estimate = INFINITY;
  while (estimate > 1e-12 * b.norm() && cycles < 100) {
    const auto cycle = gmres.cycle(b, x, 10, [](std::size_t, double) { return false; });
    REQUIRE_FALSE(cycle.brokeDown);
    CHECK(cycle.iterations == 10);
    estimate = cycle.residualEstimate;
    // Right preconditioning: the rotations' estimate is the true residual ‖b − A x‖.
    CHECK(gmres.residualNorm(b, x) == doctest::Approx(estimate).epsilon(1e-6).scale(b.norm()));
    ++cycles;
  }
  CHECK(cycles < 100);
  CHECK((a * x - b).norm() <= 1e-11 * b.norm());

  Eigen::BiCGSTAB<Sparse, IncompleteLU0> bicg;
  bicg.setTolerance(1e-13);
  bicg.compute(a);
  REQUIRE(bicg.info() == Eigen::Success);
  CHECK(gap(bicg.solve(b), x) <= 1e-9 * x.lpNorm<Eigen::Infinity>());
}

TEST_CASE("GMRES ends a cycle when asked and is exact once the space is the whole space") {
  // A small non-symmetric system with a poor preconditioner's worth of work: m = n
  // iterations give the exact solution (Saad 2003, Proposition 6.10), and a stop after
  // k iterations leaves a cycle of k.
  const int n = 12;
  std::vector<std::pair<int, int>> pattern;
  for (int i = 0; i + 1 < n; ++i) pattern.emplace_back(i, i + 1);
  pattern.emplace_back(n - 1, 0);
  const Sparse a = mMatrix(n, pattern, 9);
  IncompleteLU0 ilu;
  ilu.compute(Sparse(Eigen::MatrixXd::Identity(n, n).sparseView()));  // M = I: plain GMRES
  REQUIRE(ilu.info() == Eigen::Success);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, 1.0, 2.0);
  mmt::solver::RestartedGmres gmres(
      a, [&ilu](const Eigen::VectorXd& v) { return ilu.solve(v); }, n);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  const auto stopped = gmres.cycle(b, x, n, [](std::size_t k, double) { return k == 3; });
  CHECK(stopped.iterations == 3);
  x.setZero();
  const auto full = gmres.cycle(b, x, n, [](std::size_t, double) { return false; });
  CHECK(full.iterations <= std::size_t(n));
  const Eigen::VectorXd exact = Eigen::MatrixXd(a).partialPivLu().solve(b);
  CHECK(gap(x, exact) <= 1e-10 * exact.lpNorm<Eigen::Infinity>());
}

TEST_CASE("ILU(0) refuses a zero pivot and stops when interrupted") {
  Sparse a(3, 3);
  std::vector<Eigen::Triplet<double>> t{
      {0, 0, 1.0}, {0, 1, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}, {2, 2, 1.0}};
  a.setFromTriplets(t.begin(), t.end());  // row 1's pivot is 1 − 1·1 = 0
  IncompleteLU0 ilu;
  ilu.compute(a);
  CHECK(ilu.info() == Eigen::NumericalIssue);
  CHECK(ilu.note() == "the ILU(0) factorisation met a zero pivot in row 1");
  CHECK_FALSE(ilu.interrupted());

  Sparse missing(2, 2);  // no diagonal entry in row 1
  std::vector<Eigen::Triplet<double>> m{{0, 0, 2.0}, {1, 0, 1.0}};
  missing.setFromTriplets(m.begin(), m.end());
  ilu.compute(missing);
  CHECK(ilu.info() == Eigen::NumericalIssue);
  CHECK(ilu.note() == "the ILU(0) factorisation met a zero pivot in row 1");

  std::atomic<bool> stop{true};
  ilu.setInterrupt(&stop);
  ilu.compute(Sparse(mMatrix(10, {{0, 1}}, 1)));
  CHECK(ilu.info() == Eigen::NumericalIssue);
  CHECK(ilu.interrupted());
}
