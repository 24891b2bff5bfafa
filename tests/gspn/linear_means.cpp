// The mean of an expression linear in the token counts, taken from the mean token counts:
// exact against the expectation over markings, and what lets a simulation skip its record
// of markings.
#include <doctest/doctest.h>

#include "gspn/measure_source.hpp"
#include "sim/simulator.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

/// Places a and b, which the expectations below read.
const gspn::PlaceId kAB[] = {0, 1};

TEST_CASE("linear forms: the mean of a linear expression from the mean token counts") {
  const gspn::Net net = mmt::testing::loadGspnText(
      "place a = 2; place b; timed t rate 1 in a out b; timed u rate 3 in b out a;"
      "measure lin = mean(2 * #a - #b / 4 + 3 - -(#a) * 0.5);"
      "measure scaled = mean((#a + #b) * 3 / 2);"
      "measure product = mean(#a * #b);"
      "measure divided = mean(#a / #b);"
      "measure byzero = mean(#a / 0);"
      "measure clipped = mean(min(#a, 1));");
  const auto& m = net.measures();
  auto form = [&](std::size_t i) { return m.at(i).expression.operands().at(0).linearForm(); };
  const auto lin = form(0);
  REQUIRE(lin);
  CHECK(lin->constant == 3);
  REQUIRE(lin->terms.size() == 2);
  CHECK(lin->terms[0] == std::pair<std::uint32_t, double>{0, 2.5});
  CHECK(lin->terms[1] == std::pair<std::uint32_t, double>{1, -0.25});
  const auto scaled = form(1);
  REQUIRE(scaled);
  CHECK(scaled->constant == 0);
  CHECK(scaled->terms == std::vector<std::pair<std::uint32_t, double>>{{0, 1.5}, {1, 1.5}});
  CHECK(!form(2));
  CHECK(!form(3));
  CHECK(!form(4));
  CHECK(!form(5));
  CHECK(gspn::measuresNeedExpectations(net));

  // Exactly: the linear measures from the mean token counts equal the expectation over
  // the markings, which the nonlinear ones still take.
  auto s = mmt::testing::solve(net, solver::Method::LU);
  const std::vector<double> values = gspn::evaluateMeasures(net, *s.measures);
  const double expectLin = s.measures->expectation(
      [](gspn::MarkingView x) { return 2.0 * x[0] - x[1] / 4.0 + 3 + x[0] * 0.5; }, kAB);
  CHECK(values[0] == doctest::Approx(expectLin).epsilon(1e-14));
  CHECK(values[1] == doctest::Approx(1.5 * 2).epsilon(1e-14));  // a + b = 2 always
  const double expectProduct =
      s.measures->expectation([](gspn::MarkingView x) { return double(x[0]) * x[1]; }, kAB);
  CHECK(values[2] == expectProduct);
}

TEST_CASE("a simulation whose means are linear keeps no record of markings, same numbers") {
  const gspn::Net net = mmt::testing::loadGspnText(
      "place a = 3; place b; place c; timed t rate 1 in a out b; timed u rate 2 in b out c;"
      "timed v rate 1.5 in c out a; measure wip = mean(#b + #c); measure w = mean(#b * 2);");
  CHECK(!gspn::measuresNeedExpectations(net));
  sim::ReplicationSettings settings;
  settings.events = 50'000;
  settings.warmupEvents = 1'000;
  const auto recorded = sim::simulate(net, settings, 0);
  settings.recordMarkings = false;
  const auto bare = sim::simulate(net, settings, 0);
  const std::vector<double> a = gspn::evaluateMeasures(net, recorded);
  const std::vector<double> b = gspn::evaluateMeasures(net, bare);
  REQUIRE(a.size() == 2);
  CHECK(a[0] == doctest::Approx(recorded.meanTokens(1) + recorded.meanTokens(2)).epsilon(1e-14));
  CHECK(b[0] == a[0]);
  CHECK(b[1] == a[1]);
  CHECK_THROWS_AS(bare.expectation([](gspn::MarkingView) { return 1.0; }, {}), std::logic_error);
  // The record agrees with the place integrals it no longer replaces.
  const gspn::PlaceId bc[] = {1, 2};
  CHECK(recorded.expectation([](gspn::MarkingView x) { return double(x[1]) + x[2]; }, bc) ==
        doctest::Approx(a[0]).epsilon(1e-12));
}
