// Passage-time distributions (solver/passage.hpp) against closed forms: the
// hypoexponential time through two exponential stages (its distribution function, mean and
// quantiles), the busy period of an M/M/1/K queue (its mean by the renewal argument
// P(busy) = E[B] / (E[B] + 1/λ), and the mean again as ∫ (1 − F)), a passage that
// reaches its target with probability 1/2 only, and passages between firings of a
// transition (the parity tag): the hypoexponential cycle, and a cycle of one tangible
// marking that only the tag tells apart.
#include "solver/passage.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "gspn/tagging.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

/// The tangible graph of `text` with its edges, and its steady state over every state
/// (from the exact solution, matched by marking).
struct Chain {
  gspn::TangibleReachabilityGraph graph;
  Eigen::VectorXd pi;
  /// Marks the states whose marking satisfies `holds`.
  std::vector<char> where(const std::function<bool(gspn::MarkingView)>& holds) const {
    std::vector<char> mask(graph.stateCount());
    for (std::uint32_t s = 0; s < mask.size(); ++s) mask[s] = holds(graph.marking(s));
    return mask;
  }
};

/// With `tag`, the net with that transition's firings tagged (gspn/tagging.hpp).
Chain chainOf(const char* text, const char* tag = nullptr) {
  gspn::Net net = testing::loadGspnText(text);
  if (tag) net = gspn::tagFirings(net, *net.findTransition(tag)).net;
  auto explored = gspn::exploreTangible(net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  Chain c{std::move(explored.graph), {}};
  const testing::Solved solved = testing::solve(net, solver::Method::GTH);
  c.pi = Eigen::VectorXd::Zero(Eigen::Index(c.graph.stateCount()));
  for (std::uint32_t s = 0; s < c.graph.stateCount(); ++s) {
    c.pi[s] = solved.probability(c.graph.marking(s));
  }
  return c;
}

using testing::inverse;

}  // namespace

TEST_CASE("passage through stages of rates 1 and 2: the hypoexponential distribution") {
  // A token enters a, moves to b at rate 1, to c at rate 2, back to a at rate 3.5: from
  // entering a to entering c takes Exp(1) + Exp(2), F(t) = 1 − 2e^{−t} + e^{−2t}.
  const Chain c = chainOf(
      "place a = 1; place b; place c;"
      "timed s1 rate 1 in a out b; timed s2 rate 2 in b out c; timed s3 rate 3.5 in c out a;");
  const auto in = [](gspn::PlaceId p) { return [p](gspn::MarkingView m) { return m[p] == 1; }; };
  const auto alpha = solver::entranceDistribution(c.graph, c.pi, c.where(in(0)));
  REQUIRE(alpha.size() == 1);
  CHECK(alpha[0].second == doctest::Approx(1));
  const auto closed = [](double t) { return 1 - 2 * std::exp(-t) + std::exp(-2 * t); };
  solver::PassageSettings settings;
  settings.times = {0, 0.1, 1, 2.5, 10};
  settings.quantiles = {0.5, 0.9, 0.95, 0.99};
  const solver::PassageResult r =
      solver::solvePassage(c.graph, alpha, solver::PassageEnd::entering(c.where(in(2))), settings);
  REQUIRE(r.status == solver::Status::Converged);
  for (std::size_t i = 0; i < settings.times.size(); ++i) {
    CAPTURE(settings.times[i]);
    CHECK(std::abs(r.distribution[i] - closed(settings.times[i])) < 1e-9);
  }
  CHECK(r.mean == doctest::Approx(1.5).epsilon(1e-12));
  CHECK(r.reached == 1);
  for (std::size_t i = 0; i < settings.quantiles.size(); ++i) {
    CAPTURE(settings.quantiles[i]);
    CHECK(std::abs(r.quantiles[i] - inverse(closed, settings.quantiles[i])) < 1e-6);
  }
}

TEST_CASE("passage: the busy period of an M/M/1/K queue, its mean two ways") {
  // Arrivals 0.7 while fewer than 4, service 1.3. Busy periods start at one job (α = δ_1)
  // and alternate with idle periods of mean 1/λ: E[B] = (1 − π_0) / (λ π_0).
  const double lambda = 0.7;
  const Chain c =
      chainOf("place q; timed arrive rate 0.7 out q inhibit q * 4; timed serve rate 1.3 in q;");
  const auto busy = c.where([](gspn::MarkingView m) { return m[0] >= 1; });
  const auto idle = c.where([](gspn::MarkingView m) { return m[0] == 0; });
  const auto alpha = solver::entranceDistribution(c.graph, c.pi, busy);
  REQUIRE(alpha.size() == 1);
  CHECK(c.graph.marking(alpha[0].first)[0] == 1);
  double pi0 = 0;
  for (std::uint32_t s = 0; s < idle.size(); ++s)
    if (idle[s]) pi0 += c.pi[s];
  const double renewal = (1 - pi0) / (lambda * pi0);

  solver::PassageSettings settings;
  const double step = 0.02;
  for (int k = 0; k <= 10'000; ++k) settings.times.push_back(k * step);
  settings.quantiles = {0.5};
  const solver::PassageResult r =
      solver::solvePassage(c.graph, alpha, solver::PassageEnd::entering(idle), settings);
  CHECK(r.mean == doctest::Approx(renewal).epsilon(1e-10));
  // ∫ (1 − F) dt by the trapezoid rule up to t = 200, where 1 − F is at the level of the
  // uniformization's error (1e-10).
  REQUIRE(1 - r.distribution.back() < 1e-9);
  double integral = 0;
  for (std::size_t k = 1; k < r.distribution.size(); ++k)
    integral += step * (2 - r.distribution[k - 1] - r.distribution[k]) / 2;
  CHECK(integral == doctest::Approx(renewal).epsilon(1e-4));
  // The median is where F is one half.
  settings.times = {r.quantiles[0]};
  settings.quantiles = {};
  CHECK(solver::solvePassage(c.graph, alpha, solver::PassageEnd::entering(idle), settings)
            .distribution[0] == doctest::Approx(0.5).epsilon(1e-8));
}

TEST_CASE("passage: a target reached with probability 1/2 has no mean and no upper quantiles") {
  // From a the token goes to b or to c at rate 1 each; c is a dead end. F(t) = (1 − e^{−2t})/2.
  const Chain c = chainOf(
      "place a = 1; place b; place c; place d;"
      "timed x rate 1 in a out b; timed y rate 1 in a out c; timed back rate 1 in b out a;"
      "timed on rate 1 in c out d; timed off rate 1 in d out c;");
  const auto at = [&](gspn::PlaceId p) {
    return c.where([p](gspn::MarkingView m) { return m[p] == 1; });
  };
  const std::vector<char> a = at(0);
  std::vector<std::pair<std::uint32_t, double>> start;
  for (std::uint32_t s = 0; s < a.size(); ++s)
    if (a[s]) start.emplace_back(s, 1.0);
  solver::PassageSettings settings;
  settings.times = {1};
  settings.quantiles = {0.25, 0.75};
  const solver::PassageResult r =
      solver::solvePassage(c.graph, start, solver::PassageEnd::entering(at(1)), settings);
  CHECK(r.reached == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(std::isinf(r.mean));
  CHECK(r.distribution[0] == doctest::Approx((1 - std::exp(-2.0)) / 2).epsilon(1e-9));
  CHECK(r.quantiles[0] == doctest::Approx(std::log(2.0) / 2).epsilon(1e-8));
  CHECK(std::isnan(r.quantiles[1]));
  // In steady state the token is never in a again: no passage starts.
  CHECK_THROWS_AS(solver::entranceDistribution(c.graph, c.pi, a), std::invalid_argument);
}

TEST_CASE("passage between firings of a tagged transition") {
  // The token goes a -> b at rate 1, b -> c at rate 2, and back to a at once (c vanishes):
  // between firings of `back`, Exp(1) + Exp(2) again, F(t) = 1 − 2e^{−t} + e^{−2t}.
  const char* cycle =
      "place a = 1; place b; place c;"
      "timed s1 rate 1 in a out b; timed s2 rate 2 in b out c; immediate back in c out a;";
  const Chain c = chainOf(cycle, "back");
  CHECK(c.graph.stateCount() == 4);  // a and b, at each parity
  const gspn::PlaceId odd =
      *gspn::tagFirings(testing::loadGspnText(cycle), 2).net.findPlace("back.odd");
  const auto edges = gspn::parityEdges(c.graph, odd);
  const auto alpha = solver::entranceAlong(c.graph, c.pi, edges);
  REQUIRE(alpha.size() == 2);  // state a, at either parity
  for (const auto& [s, p] : alpha) CHECK(c.graph.marking(s)[0] == 1);
  solver::PassageSettings settings;
  settings.times = {0.5, 3};
  settings.quantiles = {0.95};
  const auto r = solver::solvePassage(c.graph, alpha, solver::PassageEnd::along(edges), settings);
  const auto closed = [](double t) { return 1 - 2 * std::exp(-t) + std::exp(-2 * t); };
  CHECK(std::abs(r.distribution[0] - closed(0.5)) < 1e-9);
  CHECK(std::abs(r.distribution[1] - closed(3)) < 1e-9);
  CHECK(r.mean == doctest::Approx(1.5).epsilon(1e-12));
  CHECK(std::abs(r.quantiles[0] - inverse(closed, 0.95)) < 1e-6);

  // One tangible marking whose only move returns to it: without the tag the chain has no
  // edge to see; with it, the time between firings is Exp(3).
  const Chain loop = chainOf(
      "place a = 1; place c; timed s rate 3 in a out c; immediate back in c out a;", "back");
  REQUIRE(loop.graph.stateCount() == 2);
  const auto loopEdges = gspn::parityEdges(loop.graph, 3);  // a, c, back.even, back.odd
  const auto start = solver::entranceAlong(loop.graph, loop.pi, loopEdges);
  settings.times = {0.2};
  const auto e =
      solver::solvePassage(loop.graph, start, solver::PassageEnd::along(loopEdges), settings);
  CHECK(e.mean == doctest::Approx(1.0 / 3).epsilon(1e-12));
  CHECK(std::abs(e.distribution[0] - (1 - std::exp(-0.6))) < 1e-9);
  CHECK(std::abs(e.quantiles[0] - std::log(20.0) / 3) < 1e-6);
}

TEST_CASE("passage: the mean by the renewal argument equals the direct solve's") {
  // The same passages with every mean solved on the restarting chain's steady state (the
  // path large chains take): the closed forms again.
  solver::PassageSettings renewal;
  renewal.directStates = 0;
  const Chain stages = chainOf(
      "place a = 1; place b; place c;"
      "timed s1 rate 1 in a out b; timed s2 rate 2 in b out c; timed s3 rate 3.5 in c out a;");
  const auto in = [&](gspn::PlaceId p) {
    return stages.where([p](gspn::MarkingView m) { return m[p] == 1; });
  };
  const auto alpha = solver::entranceDistribution(stages.graph, stages.pi, in(0));
  CHECK(solver::solvePassage(stages.graph, alpha, solver::PassageEnd::entering(in(2)), renewal)
            .mean == doctest::Approx(1.5).epsilon(1e-9));

  const double lambda = 0.7;
  const Chain queue =
      chainOf("place q; timed arrive rate 0.7 out q inhibit q * 4; timed serve rate 1.3 in q;");
  const auto idle = queue.where([](gspn::MarkingView m) { return m[0] == 0; });
  const auto busy = queue.where([](gspn::MarkingView m) { return m[0] >= 1; });
  double pi0 = 0;
  for (std::uint32_t s = 0; s < idle.size(); ++s)
    if (idle[s]) pi0 += queue.pi[s];
  const auto start = solver::entranceDistribution(queue.graph, queue.pi, busy);
  CHECK(
      solver::solvePassage(queue.graph, start, solver::PassageEnd::entering(idle), renewal).mean ==
      doctest::Approx((1 - pi0) / (lambda * pi0)).epsilon(1e-9));

  const Chain loop = chainOf(
      "place a = 1; place c; timed s rate 3 in a out c; immediate back in c out a;", "back");
  const auto edges = gspn::parityEdges(loop.graph, 3);
  CHECK(solver::solvePassage(loop.graph, solver::entranceAlong(loop.graph, loop.pi, edges),
                             solver::PassageEnd::along(edges), renewal)
            .mean == doctest::Approx(1.0 / 3).epsilon(1e-9));
}
