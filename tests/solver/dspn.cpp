// Exact constant delays (solver/dspn.hpp) against independent truths: the M/D/1/K queue's
// time-average distribution from its departure-epoch chain (Gross & Harris, "Fundamentals
// of Queueing Theory", M/G/1/K: p_n = π^d_n / (π^d_0 + ρ) for n < K, p_K = 1 − 1/(π^d_0 + ρ)),
// a renewal cycle through a deterministic stage, and a deterministic timeout that an
// exponential firing preempts (enabling memory); and the refusal of two deterministic
// transitions enabled together, naming both and the marking.
#include "solver/dspn.hpp"

#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "gspn/reachability.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

struct Solved {
  gspn::Net net;
  gspn::TangibleReachabilityGraph graph;
  solver::DspnSolution dspn;
  /// π of the marking where place `p` holds `n` tokens, summed.
  double probability(gspn::PlaceId p, gspn::Tokens n) const {
    double sum = 0;
    for (std::uint32_t s = 0; s < graph.stateCount(); ++s)
      if (graph.marking(s)[p] == n) sum += dspn.pi[s];
    return sum;
  }
};

Solved solveText(const std::string& text) {
  Solved out{testing::loadGspnText(text), {}, {}};
  auto explored = gspn::exploreTangible(out.net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  out.graph = std::move(explored.graph);
  out.dspn = solver::solveDspn(out.net, out.graph);
  return out;
}

/// The M/G/1/K queue with deterministic service D: p_0 .. p_K by the departure chain.
std::vector<double> mdk(double lambda, double d, int k) {
  const double rho = lambda * d;
  std::vector<double> a(std::size_t(k) + 1);
  for (int i = 0; i <= k; ++i)
    a[std::size_t(i)] = std::exp(-rho) * std::pow(rho, i) / std::tgamma(i + 1.0);
  Eigen::MatrixXd p = Eigen::MatrixXd::Zero(k, k);
  for (int n = 0; n < k; ++n) {
    const int base = n == 0 ? 0 : n - 1;
    double sum = 0;
    for (int j = base; j < k - 1; ++j) sum += p(n, j) = a[std::size_t(j - base)];
    p(n, k - 1) = 1 - sum;
  }
  // π^d (P − I) = 0, Σ π^d = 1: the transposed system with one equation replaced.
  Eigen::MatrixXd m = (p - Eigen::MatrixXd::Identity(k, k)).transpose();
  m.row(0).setOnes();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(k);
  b[0] = 1;
  const Eigen::VectorXd pid = m.fullPivLu().solve(b);
  std::vector<double> out;
  for (int n = 0; n < k; ++n) out.push_back(pid[n] / (pid[0] + rho));
  out.push_back(1 - 1 / (pid[0] + rho));
  return out;
}

}  // namespace

TEST_CASE("DSPN: the M/D/1/K queue against its departure-epoch chain") {
  for (const auto& row :
       {std::tuple{0.8, 1.0, 4}, std::tuple{1.3, 0.7, 6}, std::tuple{0.2, 3.0, 2}}) {
    const auto [lambda, d, k] = row;
    const double arrivalRate = lambda;
    const int capacity = k;
    CAPTURE(arrivalRate);
    CAPTURE(capacity);
    const Solved s =
        solveText("place q; timed arrive rate " + std::to_string(lambda) + " out q inhibit q * " +
                  std::to_string(k) + "; timed serve delay const(" + std::to_string(d) + ") in q;");
    REQUIRE(s.dspn.status == solver::DspnSolution::Status::Ok);
    const std::vector<double> p = mdk(lambda, d, k);
    for (int n = 0; n <= k; ++n) {
      CAPTURE(n);
      CHECK(std::abs(s.probability(0, gspn::Tokens(n)) - p[std::size_t(n)]) < 1e-8);
    }
    // Every admitted customer is served: X = λ (1 − p_K), for both transitions.
    CHECK(s.dspn.throughput[1] == doctest::Approx(lambda * (1 - p.back())).epsilon(1e-8));
    CHECK(s.dspn.throughput[0] == doctest::Approx(lambda * (1 - p.back())).epsilon(1e-8));
  }
}

TEST_CASE("DSPN: a renewal cycle and a preempted deterministic timeout") {
  // a holds the token for exactly 2, then b for Exp(1): P(a) = 2/3, one cycle per 3.
  const Solved cycle = solveText(
      "place a = 1; place b; timed t delay const(2) in a out b; timed u rate 1 in b out a;");
  REQUIRE(cycle.dspn.status == solver::DspnSolution::Status::Ok);
  CHECK(cycle.probability(0, 1) == doctest::Approx(2.0 / 3).epsilon(1e-12));
  CHECK(cycle.dspn.throughput[0] == doctest::Approx(1.0 / 3).epsilon(1e-12));

  // In a, a timeout of 1 races a cancellation at rate 2 that disables it: the timeout
  // fires with probability e^{-2}, the time in a is (1 − e^{-2}) / 2 per visit, then b
  // (Exp(3)) or c (Exp(4)) returns the token.
  const Solved race = solveText(
      "place a = 1; place b; place c;"
      "timed timeout delay const(1) in a out b; timed cancel rate 2 in a out c;"
      "timed back rate 3 in b out a; timed again rate 4 in c out a;");
  REQUIRE(race.dspn.status == solver::DspnSolution::Status::Ok);
  const double fire = std::exp(-2.0), inA = (1 - fire) / 2;
  const double length = inA + fire / 3 + (1 - fire) / 4;
  CHECK(race.probability(0, 1) == doctest::Approx(inA / length).epsilon(1e-10));
  CHECK(race.probability(1, 1) == doctest::Approx(fire / 3 / length).epsilon(1e-10));
  CHECK(race.dspn.throughput[0] == doctest::Approx(fire / length).epsilon(1e-10));
  CHECK(race.dspn.throughput[1] == doctest::Approx((1 - fire) / length).epsilon(1e-10));
}

TEST_CASE("DSPN: two deterministic transitions enabled together are refused, named") {
  const Solved both = solveText(
      "place a = 1; place b = 1; place c; place d;"
      "timed x delay const(1) in a out c; timed y delay const(2) in b out d;"
      "timed u rate 1 in c out a; timed v rate 1 in d out b;");
  CHECK(both.dspn.status == solver::DspnSolution::Status::Concurrent);
  CHECK(both.dspn.first == "x");
  CHECK(both.dspn.second == "y");
  CHECK(both.dspn.marking == "{a=1, b=1}");
  const Solved uniform = solveText(
      "place a = 1; place b; timed x delay uniform(1, 2) in a out b; timed u rate 1 in b out a;");
  CHECK(uniform.dspn.status == solver::DspnSolution::Status::Unsupported);
}
