// Response-time distributions through api::solve (api/passage.hpp): a raw net's passage
// between two marking conditions through three exponential stages against the
// hypoexponential distribution function and its percentiles; every closed(1) example's
// distributions against the response times mmt reports (their means, to 1e-8); a
// one-actor system whose iteration is its actor's exponential demand; and the requests
// refused with their reasons.
#include "api/passage.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include "api/contract.hpp"
#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/settings.hpp"
#include "api/solve.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

using testing::inverse;
using testing::loadModelText;

/// A system description, loaded.
api::Model loadSystemText(const std::string& text) { return loadModelText(text, ".hdl"); }

}  // namespace

TEST_CASE("passage --from/--to through three stages: the hypoexponential distribution") {
  // The token waits in w, then passes a, b, c at rates 1, 2, 3: from entering a to
  // entering w again, F(t) = 1 − Σ_i Π_{j≠i} λ_j / (λ_j − λ_i) e^{−λ_i t}.
  const api::Model model = loadModelText(
      "place w = 1; place a; place b; place c;"
      "timed go rate 0.5 in w out a; timed s1 rate 1 in a out b;"
      "timed s2 rate 2 in b out c; timed s3 rate 3 in c out w;");
  const double rate[] = {1, 2, 3};
  const auto closed = [&](double t) {
    double survive = 0;
    for (int i = 0; i < 3; ++i) {
      double weight = 1;
      for (int j = 0; j < 3; ++j)
        if (j != i) weight *= rate[j] / (rate[j] - rate[i]);
      survive += weight * std::exp(-rate[i] * t);
    }
    return 1 - survive;
  };
  api::PassageRequest request;
  request.from = "#a == 1";
  request.to = "#w >= 1";
  request.times = {0.25, 1, 2, 5};
  request.percentiles = {50, 90, 95, 99};
  const api::Solution solution = api::solve(model, {}, {}, {}, request);
  REQUIRE(solution.passages);
  REQUIRE(solution.passages->distributions.size() == 1);
  const api::PassageDistribution& d = solution.passages->distributions[0];
  CHECK(d.section == "passage");
  CHECK(d.unavailable.empty());
  CHECK(d.mean == doctest::Approx(1 + 0.5 + 1.0 / 3).epsilon(1e-12));
  for (std::size_t i = 0; i < request.times.size(); ++i) {
    CAPTURE(request.times[i]);
    CHECK(std::abs(d.cdf[i] - closed(request.times[i])) < 1e-9);
  }
  for (std::size_t i = 0; i < request.percentiles.size(); ++i) {
    CAPTURE(request.percentiles[i]);
    CHECK(std::abs(d.percentiles[i] - inverse(closed, request.percentiles[i] / 100)) < 1e-6);
  }
}

TEST_CASE(
    "response-time distributions of the closed(1) examples: their means are the response times") {
  for (const char* name : {"forkjoin", "image_filter"}) {
    CAPTURE(name);
    const api::Model model =
        api::loadModel(std::string(MMT_SOURCE_DIR) + "/examples/" + name + ".hdl");
    api::PassageRequest request;
    request.percentiles = {50, 99};
    const api::Solution solution = api::solve(model, {}, {}, {}, request);
    REQUIRE(solution.passages);
    const compiler::SystemMetrics& m = *solution.metrics;
    // The tag doubles the markings: the untagged net's throughput is the same.
    const api::Solution plain = api::solve(model);
    CHECK(solution.chain.explored.graph.stateCount() ==
          2 * plain.chain.explored.graph.stateCount());
    CHECK(m.application.throughput ==
          doctest::Approx(plain.metrics->application.throughput).epsilon(1e-12));
    const auto& all = solution.passages->distributions;
    REQUIRE(all.size() == 1 + m.actors.size());
    CHECK(all[0].section == "application");
    CHECK(std::abs(all[0].mean / *m.application.responseTime - 1) < 1e-8);
    for (std::size_t a = 0; a < m.actors.size(); ++a) {
      const api::PassageDistribution& d = all[1 + a];
      CAPTURE(d.element);
      REQUIRE(d.unavailable.empty());
      CHECK(std::abs(d.mean / m.actors[a].responseTime - 1) < 1e-8);
      CHECK(d.percentiles[0] < d.percentiles[1]);
    }
  }
}

TEST_CASE("one actor, closed(1): the iteration is its exponential demand; the actor has none") {
  // Demand 2 at speed 1: every iteration is one Exp(1/2) execution, p95 = 2 ln 20.
  const api::Model model = loadSystemText(
      "system one { hardware { processor P; } application { actor A { demand: 2; } }"
      " mapping { A on P; } workload: closed(1); }");
  api::PassageRequest request;
  request.times = {1};
  request.percentiles = {95};
  const api::Solution solution = api::solve(model, {}, {}, {}, request);
  const auto& all = solution.passages->distributions;
  REQUIRE(all.size() == 2);
  CHECK(all[0].mean == doctest::Approx(2).epsilon(1e-12));
  CHECK(std::abs(all[0].cdf[0] - (1 - std::exp(-0.5))) < 1e-9);
  CHECK(std::abs(all[0].percentiles[0] - 2 * std::log(20.0)) < 1e-6);
  // A is never without an input set: its next one arrives as an execution ends.
  CHECK(!all[1].unavailable.empty());
}

TEST_CASE(
    "response-time distributions refused: other workloads, conditions on systems, bad conditions") {
  api::PassageRequest percentiles;
  percentiles.percentiles = {95};
  const api::Model open = loadSystemText(
      "system o { hardware { processor P; } application { actor A { demand: 1; } }"
      " mapping { A on P; } workload: open(0.5, 4); }");
  try {
    api::solve(open, {}, {}, {}, percentiles);
    FAIL("an open workload was accepted");
  } catch (const api::SettingError& e) {
    CHECK(e.setting() == "percentiles");
    CHECK(std::string(e.what()).find("closed(1)") != std::string::npos);
  }
  const api::Model net =
      loadModelText("place a = 1; place b; timed x rate 1 in a out b; timed y rate 1 in b out a;");
  CHECK_THROWS_AS(api::solve(net, {}, {}, {}, percentiles), api::SettingError);
  api::PassageRequest unknown;
  unknown.from = "#a == 1";
  unknown.to = "#c >= 1";
  try {
    api::solve(net, {}, {}, {}, unknown);
    FAIL("an unknown place was accepted");
  } catch (const api::ModelError& e) {
    CHECK(e.path() == "--to");
    CHECK(e.location().column == 2);
  }
  api::PassageRequest half;
  half.from = "#a == 1";
  CHECK_THROWS_AS(api::solve(net, {}, {}, {}, half), api::SettingError);
}

TEST_CASE(
    "contract on a percentile: the fewest workstations whose p95 iteration time meets a bound" *
    doctest::test_suite("slow")) {
  CHECK(api::percentileOf("application.response_time_p95") == 95);
  CHECK(api::percentileOf("actors.A[1].response_time_p99.9") == 99.9);
  CHECK(!api::percentileOf("application.response_time"));
  CHECK(!api::percentileOf("application.response_time_px"));
  const api::Model model =
      api::loadModel(std::string(MMT_SOURCE_DIR) + "/examples/image_filter.hdl");
  api::ContractSettings settings;
  settings.requirement = api::parseRequirement("application.response_time_p95 <= 55");
  settings.parameter = api::parseSweepParameter("P=1..6");
  const api::ContractResult result = api::contract(model, settings);
  REQUIRE(result.answer);
  const api::ContractTry& answer = result.tries[*result.answer];
  // Each side of the answer, solved on its own: the p95 the contract saw, and the value
  // below it failing the bound.
  const auto p95 = [&](double workstations) {
    api::PassageRequest request;
    request.percentiles = {95};
    return api::solve(model.at({{"P", workstations}}), {}, {}, {}, request)
        .passages->distributions[0]
        .percentiles[0];
  };
  CHECK(answer.metric == doctest::Approx(p95(answer.value)).epsilon(1e-12));
  CHECK(answer.metric <= 55);
  CHECK(p95(answer.value - 1) > 55);
}
