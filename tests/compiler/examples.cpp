// The published case studies (examples/*.hdl) against numbers that follow from their
// parameters alone: sequential sums where nothing overlaps, and the utilization law.
#include <doctest/doctest.h>

#include <cmath>

#include "compile_helpers.hpp"

using namespace mmt;

namespace {

compiler::SystemMetrics solveExample(const char* name, const grammar::ParameterOverrides& d) {
  const std::string text = testing::readExample(name);
  grammar::SourceFile source{name, text};
  grammar::Diagnostics diagnostics(source);
  auto parsed = grammar::parseSystem(source, diagnostics);
  REQUIRE_MESSAGE(parsed, diagnostics.str());
  auto compiled = compiler::compile(*parsed, diagnostics, nullptr, d);
  REQUIRE_MESSAGE(compiled, diagnostics.str());
  auto solved = testing::solveBoth(compiled->net);
  return compiler::computeMetrics(*compiled, *solved.measures);
}

}  // namespace

TEST_CASE("image filter (E2): one workstation runs S, A and M in a row") {
  for (double n : {512.0, 1024.0}) {
    CAPTURE(n);
    const auto m = solveExample("image_filter.hdl", {{"P", 1}, {"N", n}});
    const double split = n * n / 200000, filter = 0.0002 * n * n;
    CHECK(*m.application.responseTime == doctest::Approx(2 * split + filter).epsilon(1e-12));
  }
}

TEST_CASE("image filter (E2): the bus carries 2(P - 1) pieces per image") {
  for (int p : {2, 3, 4}) {
    CAPTURE(p);
    const double n = 1024;
    const auto m = solveExample("image_filter.hdl", {{"P", p}, {"N", n}});
    const double piece = std::ceil(n * n / p) + 8 * n;
    const double perMessage = 0.000415 + piece / 200000;
    const double x = m.application.throughput;
    const auto& bus = testing::named(m.links, "Ether");
    CHECK(bus.utilization == doctest::Approx(x * 2 * (p - 1) * perMessage).epsilon(1e-9));
    CHECK(bus.throughput == doctest::Approx(x * 2 * (p - 1)).epsilon(1e-9));
    // W[2] only filters: U = X · 0.0002 N² / P.
    CHECK(testing::named(m.processors, "W[2]").utilization ==
          doctest::Approx(x * 0.0002 * n * n / p).epsilon(1e-9));
    // More workstations, shorter runs (the speed-up of MMT's Figure 9).
    if (p > 2) CHECK(*m.application.responseTime < *solveExample("image_filter.hdl", {{"P", p - 1}, {"N", n}}).application.responseTime);
  }
}
