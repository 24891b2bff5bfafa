// `--deterministic exact` through the library: api::solve's DSPN results and typed
// refusal, and `compare`'s exact constant-delay column against a closed form and the
// constant-delay simulation of a run without randomness (exact by its cycle).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/settings.hpp"
#include "api/simulate.hpp"
#include "api/solve.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

TEST_CASE("deterministic exact: a cycle of three stages, solved and compared") {
  // One token through stages of mean 1, 0.5 and 2: with constant delays a cycle takes
  // exactly 3.5, so P(a) = 1 / 3.5 and every stage fires 1 / 3.5 times per t.
  const api::Model model = testing::loadModelText(
      "place a = 1; place b; place c;"
      "timed s1 rate 1 in a out b; timed s2 rate 2 in b out c; timed s3 rate 0.5 in c out a;");
  api::SimulationSettings simulation;
  simulation.events = 20'000;
  const api::Comparison c = api::compare(model, {}, simulation);
  REQUIRE(c.constantExact);
  REQUIRE(c.constantDeterministic);
  CHECK(c.constantDeterministic->transitions == 3);
  const auto& cell = c.tree.tree.at("places").at("a").at("mean_tokens");
  CHECK(cell.at("constant_exact").get<double>() == doctest::Approx(1 / 3.5).epsilon(1e-12));
  // The constant-delay simulation has no randomness: periodic, its long-run value exact.
  CHECK(cell.at("constant").at("mean").get<double>() == doctest::Approx(1 / 3.5).epsilon(1e-9));
  CHECK(
      c.tree.tree.at("transitions").at("s2").at("throughput").at("constant_exact").get<double>() ==
      doctest::Approx(1 / 3.5).epsilon(1e-12));
  CHECK(c.json().at("constant_exact").contains("deterministic"));
}

TEST_CASE("deterministic exact: two constant delays at once, refused with their names") {
  const std::string md1k = std::string(MMT_SOURCE_DIR) + "/tests/cli/md1k.gspn";
  api::Settings settings;
  settings.deterministicExact = true;
  const api::Solution exact = api::solve(api::loadModel(md1k), settings);
  REQUIRE(exact.deterministic);
  CHECK(exact.deterministic->embeddedMarkings == 4);
  CHECK(exact.values.measures[0].second == doctest::Approx(1.47835).epsilon(1e-5));
  // compare makes the arrivals constant too: a D/D/1/K queue, two at once.
  api::SimulationSettings simulation;
  simulation.events = 20'000;
  const api::Comparison c = api::compare(api::loadModel(md1k), {}, simulation);
  CHECK(!c.constantExact);
  CHECK(c.constantExactUnavailable.find("'arrive' and 'serve' are deterministic") !=
        std::string::npos);
  try {
    api::solve(api::loadModel(std::string(MMT_SOURCE_DIR) + "/tests/cli/two_deterministic.gspn"),
               settings);
    FAIL("two deterministic transitions at once were solved");
  } catch (const api::DeterministicError& e) {
    CHECK(e.first() == "x");
    CHECK(e.second() == "y");
    CHECK(e.marking() == "{a=1, b=1}");
  }
}
