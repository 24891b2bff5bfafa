// `mmt solve --at`: transient measures through api::solve against closed forms: a two-state
// on/off chain (P(on at t) = b/(a+b) + a/(a+b) e^{-(a+b)t} and its time average), the
// probability e^{-ct} of a start-up place not yet left (states outside the bottom
// component), and the steady state itself at a time long past mixing.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/settings.hpp"
#include "api/solve.hpp"

using namespace mmt;

namespace {

api::Model modelOf(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("mmt_api_transient_" + std::to_string(::getpid()) + ".gspn");
  std::ofstream(path) << text;
  api::Model model = api::loadModel(path.string());
  std::filesystem::remove(path);
  return model;
}

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
  const api::Model model = modelOf(kOnOff);
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
  const api::Model model = modelOf(
      "place boot = 1; place on; place off;\n"
      "timed start rate 0.25 in boot out on;\n"
      "timed fail rate 2 in on out off;\n"
      "timed repair rate 0.5 in off out on;\n");
  api::TransientRequest request;
  request.times = {0, 0.5, 4, 30};
  const api::Solution solution = api::solve(model, {}, {}, request);
  CHECK(solution.structure.transientCount == 1);
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
  const api::Model model = modelOf(kOnOff);
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
