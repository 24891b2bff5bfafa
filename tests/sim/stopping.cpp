// The stopping rule's statistics on typed samples (sim/stopping.hpp), against numbers
// worked by hand: Student's t quantiles from tables, and the undefined-number rules.
#include "sim/stopping.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace mmt;

TEST_CASE(
    "summarizeSamples: Student-t half-widths, the worst relative interval, undefined numbers") {
  const double nan = std::nan("");
  // Number 0: 1, 3 → mean 2, s = √2, h = t(1, 0.975) · √2 / √2 = 12.7062047.
  // Number 1: 10, 10 → h = 0, never imprecise.
  // Number 2: undefined in one replication of two. Number 3: in both (never completes).
  const std::vector<sim::Sample> samples = {{1, 10, 5, nan}, {3, 10, nan, nan}};
  const sim::SampleSummary s = sim::summarizeSamples(samples, 0.95, 0.01);
  REQUIRE(s.numbers.size() == 4);
  CHECK(s.numbers[0].estimate.mean == doctest::Approx(2));
  CHECK(s.numbers[0].estimate.halfWidth == doctest::Approx(12.7062047).epsilon(1e-7));
  CHECK(s.numbers[1].estimate.halfWidth == 0);
  CHECK(s.imprecise == 1);
  REQUIRE(s.worst);
  CHECK(*s.worst == 0);
  CHECK(s.worstRelative == doctest::Approx(12.7062047 / 2).epsilon(1e-7));
  CHECK(s.numbers[2].undefinedIn == 1);
  CHECK(s.numbers[3].undefinedIn == 2);
  CHECK(s.undefined == 1);  // only the number some replications did define
  REQUIRE(s.firstUndefined);
  CHECK(*s.firstUndefined == 2);

  // Five replications: t(4, 0.975) = 2.7764451.
  const std::vector<sim::Sample> five = {{1}, {2}, {3}, {4}, {5}};
  const sim::SampleSummary f = sim::summarizeSamples(five, 0.95, 1.0);
  CHECK(f.numbers[0].estimate.halfWidth ==
        doctest::Approx(2.7764451 * std::sqrt(2.5) / std::sqrt(5.0)).epsilon(1e-7));
  CHECK(f.imprecise == 0);  // relative 0.65 is within a precision of 1
  CHECK_THROWS_AS(sim::summarizeSamples({{1, 2}, {1}}, 0.95, 0.01), std::logic_error);
}
