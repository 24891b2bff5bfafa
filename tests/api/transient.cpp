// `mmt solve --at`: transient measures through api::solve against closed forms: a two-state
// on/off chain (P(on at t) = b/(a+b) + a/(a+b) e^{-(a+b)t} and its time average), the
// probability e^{-ct} of a start-up place not yet left (states outside the bottom
// component), and the steady state itself at a time long past mixing.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/settings.hpp"
#include "api/solve.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

using testing::loadModelText;

/// The value at `path` ("places.on.mean_tokens") of a transient point.
double valueAt(const api::TransientPoint& point, const std::string& path) {
  for (const api::NamedNumber& n : point.results.numbers)
    if (api::pathText(n.path) == path) return n.value;
  FAIL("no " << path);
  return 0;
}

const char* kOnOff =
    "param a = 2; param b = 0.5;\n"
    "place on = 1; place off;\n"
    "timed fail rate a in on out off;\n"
    "timed repair rate b in off out on;\n"
    "measure available = mean(#on);\n";

}  // namespace

TEST_CASE("transient: a two-state chain's P(on at t) and its time average, closed forms") {
  const double a = 2, b = 0.5, s = a + b;
  const api::Model model = loadModelText(kOnOff);
  api::TransientRequest request;
  request.times = {0.1, 1, 10};
  for (bool cumulative : {false, true}) {
    CAPTURE(cumulative);
    request.cumulative = cumulative;
    const api::Solution solution = api::solve(model, {}, {}, request);
    REQUIRE(solution.transient);
    REQUIRE(solution.transient->points.size() == 3);
    for (const api::TransientPoint& p : solution.transient->points) {
      const double t = p.time;
      CAPTURE(t);
      const double on = cumulative ? b / s + a / (s * s * t) * (1 - std::exp(-s * t))
                                   : b / s + a / s * std::exp(-s * t);
      CHECK(std::abs(valueAt(p, "places.on.mean_tokens") - on) <= 1e-9);
      CHECK(std::abs(valueAt(p, "measures.available") - on) <= 1e-9);
      CHECK(std::abs(valueAt(p, "transitions.fail.throughput") - a * on) <= 1e-9);
      CHECK(std::abs(valueAt(p, "transitions.repair.throughput") - b * (1 - on)) <= 1e-9);
    }
  }
}

TEST_CASE("transient: a start-up state outside the bottom component is left at rate c") {
  const api::Model model = loadModelText(
      "place boot = 1; place on; place off;\n"
      "timed start rate 0.25 in boot out on;\n"
      "timed fail rate 2 in on out off;\n"
      "timed repair rate 0.5 in off out on;\n");
  api::TransientRequest request;
  request.times = {0, 0.5, 4, 30};
  const api::Solution solution = api::solve(model, {}, {}, request);
  CHECK(solution.chain.structure.transientCount == 1);
  for (const api::TransientPoint& p : solution.transient->points)
    CHECK(std::abs(valueAt(p, "places.boot.mean_tokens") - std::exp(-0.25 * p.time)) <= 1e-9);
}

TEST_CASE(
    "transient: long after mixing every number is the steady state's, and no response "
    "time is reported at an instant") {
  const api::Model model = api::loadModel(std::string(MMT_SOURCE_DIR) + "/examples/forkjoin.hdl");
  api::TransientRequest request;
  request.times = {0, 1e5};
  const api::Solution solution = api::solve(model, {}, {}, request);
  const api::NamedResults steady = api::namedResults(solution.metrics, solution.values);
  const api::TransientSolution& t = *solution.transient;
  REQUIRE(t.stationaryAt);  // the window of t = 1e5 would take some 200,000 products
  CHECK(*t.stationaryAt < 10'000);
  std::size_t compared = 0;
  for (const api::NamedNumber& n : steady.numbers) {
    const std::string path = api::pathText(n.path);
    const std::string& metric = n.path.back();
    if (metric == "response_time" || metric == "synchronization_delay") {
      for (const api::NamedNumber& m : t.points[1].results.numbers) CHECK(m.path != n.path);
      continue;
    }
    CHECK(std::abs(valueAt(t.points[1], path) - n.value) <= 1e-9 * std::max(1.0, n.value));
    ++compared;
  }
  CHECK(compared >= 20);
  // At t = 0 only A1, the first actor, is executing.
  CHECK(valueAt(t.points[0], "processors.P1.utilization") == doctest::Approx(1));
  CHECK(valueAt(t.points[0], "application.throughput") == 0);
}

TEST_CASE("transient: a negative time or an error bound out of range is a SettingError") {
  const api::Model model = loadModelText(kOnOff);
  api::TransientRequest request;
  request.times = {1, -2};
  try {
    api::solve(model, {}, {}, request);
    FAIL("no error");
  } catch (const api::SettingError& e) {
    CHECK(e.setting() == "at");
  }
  request.times = {1};
  request.epsilon = 0.7;
  CHECK_THROWS_AS(api::solve(model, {}, {}, request), api::SettingError);
}

TEST_CASE(
    "transient without a steady state: a token through three exponential stages is "
    "absorbed by the hypoexponential distribution function") {
  // F(t) = 1 − Σ_i e^{−λ_i t} Π_{j≠i} λ_j / (λ_j − λ_i) for distinct rates (Ross,
  // Introduction to Probability Models, §5.2.4).
  const double rates[] = {1, 2, 3.5};
  const api::Model model = loadModelText(
      "place s0 = 1; place s1; place s2; place done;\n"
      "timed t0 rate 1 in s0 out s1;\n"
      "timed t1 rate 2 in s1 out s2;\n"
      "timed t2 rate 3.5 in s2 out done;\n");
  // The chain ends in a dead marking: E[A] = 1 + 1/2 + 1/3.5, the long run all in done.
  const api::Solution ends = api::solve(model);
  REQUIRE(ends.absorption);
  CHECK(ends.absorption->meanTime == doctest::Approx(1 + 0.5 + 1 / 3.5).epsilon(1e-12));
  api::TransientRequest request;
  request.times = {0.25, 1, 2, 5, 20};
  const api::Solution solution = api::solve(model, {}, {}, request);
  CHECK_FALSE(solution.hasSteadyState());
  REQUIRE(solution.absorption);
  CHECK(solution.values.meanTokens[3].second == doctest::Approx(1).epsilon(1e-12));
  for (const api::TransientPoint& p : solution.transient->points) {
    double survival = 0;
    for (int i = 0; i < 3; ++i) {
      double product = std::exp(-rates[i] * p.time);
      for (int j = 0; j < 3; ++j)
        if (j != i) product *= rates[j] / (rates[j] - rates[i]);
      survival += product;
    }
    CAPTURE(p.time);
    CHECK(std::abs(valueAt(p, "places.done.mean_tokens") - (1 - survival)) <= 1e-9);
    // The last stage's throughput is the density f(t) = 3.5 P(in s2 at t).
    CHECK(valueAt(p, "transitions.t2.throughput") ==
          doctest::Approx(3.5 * valueAt(p, "places.s2.mean_tokens")).epsilon(1e-12));
  }
  const nlohmann::ordered_json json = solution.json();
  CHECK(json.at("absorption").at("structure").get<std::string>().find("dead") != std::string::npos);
  CHECK(json.at("places").at("done").at("mean_tokens").get<double>() ==
        doctest::Approx(1).epsilon(1e-12));
  // Only the transient asked for: no absorption, no long run.
  request.only = true;
  const nlohmann::ordered_json only = api::solve(model, {}, {}, request).json();
  CHECK(only.at("no_steady_state").get<std::string>().find("not solved") != std::string::npos);
  CHECK_FALSE(only.contains("places"));
  CHECK_FALSE(only.contains("absorption"));
}

TEST_CASE(
    "transient without a steady state: an immediate choice into two bottom components "
    "keeps its weights at every time") {
  const api::Model model = loadModelText(
      "place start = 1; place a1; place a2; place b1; place b2;\n"
      "immediate toA weight 1 in start out a1;\n"
      "immediate toB weight 3 in start out b1;\n"
      "timed ta1 rate 2 in a1 out a2;\n"
      "timed ta2 rate 5 in a2 out a1;\n"
      "timed tb1 rate 1 in b1 out b2;\n"
      "timed tb2 rate 1 in b2 out b1;\n"
      "measure inA = mean(#a1 + #a2);\n"
      "measure inA1 = mean(#a1);\n");
  api::TransientRequest request;
  request.times = {0, 0.3, 7};
  const api::Solution solution = api::solve(model, {}, {}, request);
  CHECK(solution.chain.structure.kind == solver::ChainStructure::Kind::MultipleBottomComponents);
  for (const api::TransientPoint& p : solution.transient->points) {
    CHECK(std::abs(valueAt(p, "measures.inA") - 0.25) <= 1e-10);
    // Within the A cycle: P(a1 | A) = 5/7 + 2/7 e^{−7t}.
    CHECK(std::abs(valueAt(p, "measures.inA1") -
                   0.25 * (5.0 / 7 + 2.0 / 7 * std::exp(-7 * p.time))) <= 1e-9);
  }
}

TEST_CASE("transient: --transient-only gives the same values without a steady state") {
  // The on/off chain's closed form at t = 0.1, 1, 10, as with the steady state solved.
  const double a = 2, b = 0.5, s = a + b;
  const api::Model model = loadModelText(kOnOff);
  api::TransientRequest request;
  request.times = {0.1, 1, 10};
  request.only = true;
  const api::Solution only = api::solve(model, {}, {}, request);
  CHECK_FALSE(only.hasSteadyState());
  CHECK(only.noSteadyState() == "not solved: the transient measures only were asked for");
  CHECK(only.values.measures.empty());
  REQUIRE(only.transient);
  for (const api::TransientPoint& p : only.transient->points)
    CHECK(std::abs(valueAt(p, "measures.available") - (b / s + a / s * std::exp(-s * p.time))) <=
          1e-9);
  CHECK(only.json()["no_steady_state"] == only.noSteadyState());

  // Without times, or with response-time distributions (they start from the steady state).
  api::TransientRequest none;
  none.only = true;
  CHECK_THROWS_AS(api::solve(model, {}, {}, none), api::SettingError);
  api::PassageRequest passage;
  passage.from = "#on > 0";
  passage.to = "#off > 0";
  passage.percentiles = {50};
  CHECK_THROWS_AS(api::solve(model, {}, {}, request, passage), api::SettingError);
}
