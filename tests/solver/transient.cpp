// Transient distributions by uniformization (solver/transient.hpp) against independent
// truths: Poisson probabilities from the closed form in extended precision, and the
// matrix exponential e^{Qt} (Eigen's Padé approximant with scaling and squaring) for the
// distribution at t and, through the block matrix [[Q, I], [0, 0]] whose exponential holds
// ∫₀ᵗ e^{Qu} du in its upper right block (Van Loan, IEEE TAC 23(3), 1978), for the time
// average.
#include "solver/transient.hpp"

#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cmath>
#include <limits>
#include <unsupported/Eigen/MatrixFunctions>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "api/model.hpp"
#include "gspn/reachability.hpp"
#include "solve_helpers.hpp"
#include "solver/ctmc.hpp"

using namespace mmt;

TEST_CASE(
    "Poisson window: the closed form's probabilities, at least 1 - eps of the mass, "
    "and no shorter window would do") {
  for (double lambda : {0.3, 7.5, 123.4, 1e5, 4e6}) {
    CAPTURE(lambda);
    for (double epsilon : {1e-6, 1e-12}) {
      const solver::PoissonWindow w = solver::poissonWindow(lambda, epsilon);
      CHECK(w.mass >= 1 - epsilon);
      CHECK(w.mass <= 1 + 1e-12);
      REQUIRE(w.weights.size() == w.right - w.left + 1);
      for (std::uint64_t k = w.left; k <= w.right; k += 1 + (w.right - w.left) / 50) {
        const long double L = lambda, K = k;
        const double exact = double(std::exp(-L + K * std::log(L) - std::lgamma(K + 1)));
        CHECK(w.weights[k - w.left] == doctest::Approx(exact).epsilon(1e-9));
      }
      // Dropping the smaller end loses more than the window may.
      const double smaller = std::min(w.weights.front(), w.weights.back());
      if (w.weights.size() > 1) CHECK(w.mass - smaller < 1 - epsilon);
    }
  }
  const solver::PoissonWindow zero = solver::poissonWindow(0, 1e-10);
  CHECK(zero.left == 0);
  CHECK(zero.right == 0);
  CHECK(zero.weights.front() == 1);
  CHECK_THROWS_AS(solver::poissonWindow(-1, 1e-10), std::invalid_argument);
  CHECK_THROWS_AS(solver::poissonWindow(1, 0), std::invalid_argument);
}

TEST_CASE("Poisson window start: never after the window's left end, and close to it") {
  for (double lambda : {0.3, 7.5, 123.4, 1e5, 4e6, 3e7}) {
    CAPTURE(lambda);
    for (double epsilon : {0.25, 1e-6, 1e-12}) {
      CAPTURE(epsilon);
      const solver::PoissonWindow w = solver::poissonWindow(lambda, epsilon);
      const std::uint64_t start = solver::poissonWindowStart(lambda, epsilon);
      CHECK(start <= w.left);
      // Within three window widths: a bound, not a guess far below.
      CHECK(double(w.left - start) <= 3.0 * double(w.right - w.left + 1) + 3);
    }
  }
  CHECK(solver::poissonWindowStart(0, 1e-10) == 0);
  const double past = 1e20;
  CHECK(solver::poissonWindowStart(past, 1e-10) == std::numeric_limits<std::uint64_t>::max());
  CHECK(solver::poissonWindowStart(HUGE_VAL, 1e-10) == std::numeric_limits<std::uint64_t>::max());
}

namespace {

/// A closed cycle of three exponential stations with 4 customers, the first with two
/// servers (15 markings), and a start-up transition that leaves a place only once (so the
/// chain has transient states).
const char* kCycle =
    "place boot = 1; place a; place b; place c = 4;\n"
    "timed start rate 3 in boot out a;\n"
    "timed s1 rate 1.5 servers 2 in a out b;\n"
    "timed s2 rate 0.8 in b out c;\n"
    "timed s3 rate 2.2 in c out a;\n";

struct Chain {
  api::Model model;
  gspn::TangibleReachabilityGraph graph;
  solver::Generator q;
  Eigen::MatrixXd dense;
};

Chain explore(const char* text) {
  Chain c;
  c.model = testing::loadModelText(text);
  auto explored = gspn::exploreTangible(c.model.net());
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  c.graph = std::move(explored.graph);
  c.q = solver::buildGenerator(c.graph, solver::everyState(c.graph));
  const auto n = Eigen::Index(c.q.size());
  c.dense = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    for (int k = c.q.offset[j]; k < c.q.offset[j + 1]; ++k)
      c.dense(c.q.source(std::size_t(k)), j) += c.q.rate(std::size_t(k));
    c.dense(j, j) -= c.q.exitRate[j];
  }
  return c;
}

}  // namespace

TEST_CASE("uniformization equals the matrix exponential, at t and averaged over [0, t]") {
  Chain c = explore(kCycle);
  const auto n = Eigen::Index(c.q.size());
  REQUIRE(n == 36);  // 15 markings with 4 customers before the start, 21 with 5 after
  Eigen::RowVectorXd p0 = Eigen::RowVectorXd::Zero(n);
  for (const auto& [s, p] : c.graph.initial) p0[s] += p;

  solver::TransientSettings settings;
  settings.times = {0, 0.05, 0.7, 3, 40};
  for (bool cumulative : {false, true}) {
    CAPTURE(cumulative);
    settings.cumulative = cumulative;
    const solver::TransientResult r = solver::solveTransient(c.q, c.graph.initial, settings);
    REQUIRE(r.status == solver::Status::Converged);
    for (std::size_t i = 0; i < settings.times.size(); ++i) {
      const double t = settings.times[i];
      CAPTURE(t);
      Eigen::RowVectorXd exact;
      if (!cumulative || t == 0) {
        exact = p0 * (c.dense * t).exp();
      } else {
        Eigen::MatrixXd block = Eigen::MatrixXd::Zero(2 * n, 2 * n);
        block.topLeftCorner(n, n) = c.dense * t;
        block.topRightCorner(n, n) = Eigen::MatrixXd::Identity(n, n) * t;
        exact = p0 * block.exp().topRightCorner(n, n) / t;
      }
      CHECK((r.distributions[i].transpose() - exact).lpNorm<1>() <= 1e-10);
    }
  }
}

TEST_CASE(
    "uniformization: a limit given ends the iterations once it is reached, with the "
    "same distributions") {
  Chain c = explore(kCycle);
  const auto n = Eigen::Index(c.q.size());
  solver::TransientSettings settings;
  settings.times = {2, 5000};
  const solver::TransientResult plain = solver::solveTransient(c.q, c.graph.initial, settings);
  // The limit: the distribution at a time long past the cycle's mixing.
  Eigen::RowVectorXd p0 = Eigen::RowVectorXd::Zero(n);
  for (const auto& [s, p] : c.graph.initial) p0[s] += p;
  const Eigen::VectorXd limit = (p0 * (c.dense * 1000).exp()).transpose();
  settings.limit = &limit;
  const solver::TransientResult limited = solver::solveTransient(c.q, c.graph.initial, settings);
  // Both stop long before the window of t = 5000 ends (qt is about 46,000).
  const std::uint64_t window = solver::poissonWindow(plain.rate * 5000, 1e-10).right;
  REQUIRE(limited.stationaryAt);
  CHECK(limited.iterations == *limited.stationaryAt);
  CHECK(*limited.stationaryAt * 20 < window);
  // Without a limit the iterates become stationary too (by the contraction heuristic).
  REQUIRE(plain.stationaryAt);
  CHECK(*plain.stationaryAt * 20 < window);
  for (std::size_t i = 0; i < 2; ++i)
    CHECK((limited.distributions[i] - plain.distributions[i]).lpNorm<1>() <= 1e-10);
  CHECK((limited.distributions[1] - limit).lpNorm<1>() <= 1e-10);
}

TEST_CASE(
    "uniformization at times whose window is never reached: the limit after the products "
    "that reach it, at the distribution and averaged, with or without the limit given") {
  Chain c = explore(kCycle);
  const auto n = Eigen::Index(c.q.size());
  Eigen::RowVectorXd p0 = Eigen::RowVectorXd::Zero(n);
  for (const auto& [s, p] : c.graph.initial) p0[s] += p;
  const Eigen::VectorXd limit = (p0 * (c.dense * 1000).exp()).transpose();
  // qt from 10^12 (a window far away) to past 2^53 and past a double's range.
  const std::vector<double> times = {1e11, 1e15, 1e20, 1e300, 1e308};
  for (bool cumulative : {false, true})
    for (bool withLimit : {false, true}) {
      CAPTURE(cumulative);
      CAPTURE(withLimit);
      solver::TransientSettings settings;
      settings.times = times;
      settings.cumulative = cumulative;
      settings.limit = withLimit ? &limit : nullptr;
      const solver::TransientResult r = solver::solveTransient(c.q, c.graph.initial, settings);
      REQUIRE(r.status == solver::Status::Converged);
      REQUIRE(r.stationaryAt);
      CHECK(r.iterations < 10'000);
      for (std::size_t i = 0; i < times.size(); ++i) {
        CAPTURE(times[i]);
        CHECK(r.distributions[i].sum() == doctest::Approx(1).epsilon(1e-12));
        CHECK((r.distributions[i] - limit).lpNorm<1>() <= 1e-9);
      }
    }
  // A time whose window is reached, asked with one that is never: the reached one is as
  // when asked alone.
  solver::TransientSettings settings;
  settings.times = {40};
  const solver::TransientResult alone = solver::solveTransient(c.q, c.graph.initial, settings);
  settings.times = {40, 1e300};
  const solver::TransientResult both = solver::solveTransient(c.q, c.graph.initial, settings);
  CHECK((alone.distributions[0] - both.distributions[0]).lpNorm<1>() <= 1e-10);
}

TEST_CASE("Poisson window end: never before the window's right end, and close to it") {
  for (double lambda : {0.0, 0.3, 7.5, 123.4, 1e5, 4e6, 3e7}) {
    CAPTURE(lambda);
    for (double epsilon : {0.25, 1e-6, 1e-12}) {
      CAPTURE(epsilon);
      const solver::PoissonWindow w = solver::poissonWindow(lambda, epsilon);
      const std::uint64_t end = solver::poissonWindowEnd(lambda, epsilon);
      CHECK(end >= w.right);
      // Within three window widths, and the bound's additive 2 ln(2/ε) at small λ.
      CHECK(double(end - w.right) <=
            3.0 * double(w.right - w.left + 1) + 2 * std::log(2 / epsilon) + 3);
    }
  }
  CHECK(solver::poissonWindowEnd(1e20, 1e-10) == std::numeric_limits<std::uint64_t>::max());
}

namespace {

/// π(0) e^{Qt} by uniformization written out plainly: Eigen's sparse P, the Poisson
/// weights from the closed form in extended precision far past any window (qt + 20√qt +
/// 50), no truncation of the iterates.
Eigen::VectorXd plainUniformization(const Chain& c, double t) {
  const auto n = Eigen::Index(c.q.size());
  const double q = 1.5 * c.q.exitRate.largest();
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index j = 0; j < n; ++j) {
    for (int k = c.q.offset[j]; k < c.q.offset[j + 1]; ++k)
      entries.emplace_back(c.q.source(std::size_t(k)), j, c.q.rate(std::size_t(k)) / q);
    entries.emplace_back(j, j, 1 - c.q.exitRate[j] / q);
  }
  Eigen::SparseMatrix<double, Eigen::RowMajor> p(n, n);
  p.setFromTriplets(entries.begin(), entries.end());
  Eigen::RowVectorXd v = Eigen::RowVectorXd::Zero(n), sum = Eigen::RowVectorXd::Zero(n);
  for (const auto& [s, mass] : c.graph.initial) v[s] += mass;
  const long double lambda = q * t;
  const auto last = int(lambda + 20 * std::sqrt(lambda) + 50);
  for (int k = 0; k <= last; ++k) {
    const long double K = k;
    sum += double(std::exp(-lambda + K * std::log(lambda) - std::lgamma(K + 1))) * v;
    v = v * p;
  }
  return sum.transpose();
}

}  // namespace

TEST_CASE(
    "uniformization over the states held: a walk on 20,000 states held in a few hundred "
    "gives the distributions of plain uniformization, and drops at most a quarter of eps") {
  // A walk reflected at 0 and at 19,999 that starts at 0: at t = 50 it has spread over a
  // few hundred states, under a 32nd of the chain, so after the first 32 products the
  // rest go over the states held.
  Chain c = explore(
      "place n;\n"
      "timed up rate 1.5 out n inhibit n * 19999;\n"
      "timed down rate 1 in n;\n");
  REQUIRE(c.q.size() == 20'000);
  solver::TransientSettings settings;
  settings.times = {0.5, 5, 50};
  const solver::TransientResult r = solver::solveTransient(c.q, c.graph.initial, settings);
  REQUIRE(r.status == solver::Status::Converged);
  CHECK(r.heldProducts + 32 == r.iterations);
  CHECK(r.mostHeld < 20'000 / 32);
  CHECK(r.dropped > 0);
  CHECK(r.dropped <= settings.epsilon / 4);
  settings.heldFrom = std::numeric_limits<std::size_t>::max();
  const solver::TransientResult full = solver::solveTransient(c.q, c.graph.initial, settings);
  CHECK(full.heldProducts == 0);
  CHECK(full.dropped <= settings.epsilon / 4);
  for (std::size_t i = 0; i < settings.times.size(); ++i) {
    CAPTURE(settings.times[i]);
    const Eigen::VectorXd reference = plainUniformization(c, settings.times[i]);
    CHECK((r.distributions[i] - reference).lpNorm<1>() <= settings.epsilon);
    CHECK((full.distributions[i] - reference).lpNorm<1>() <= settings.epsilon);
  }
#if defined(__SSE2__)
  // Subnormals are flushed during the solve only.
  CHECK((_mm_getcsr() & 0x8040) == 0);
#endif
}

TEST_CASE("uniformization stops when interrupted") {
  Chain c = explore(kCycle);
  std::atomic<bool> stop{true};
  solver::TransientSettings settings;
  settings.times = {1e6};
  settings.run.interrupt = &stop;
  const solver::TransientResult r = solver::solveTransient(c.q, c.graph.initial, settings);
  CHECK(r.status == solver::Status::Interrupted);
}
