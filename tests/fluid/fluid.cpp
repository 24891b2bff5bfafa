// The fluid approximation (fluid/) against closed forms and against the exact chain as the
// population grows ([Kurtz71]; [Ying16]: O(1/N) away from a kink, N^(-1/2) at one).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "api/solve.hpp"
#include "fluid/solve.hpp"
#include "solve_helpers.hpp"

namespace mmt {
namespace {

/// N machines failing at rate λ each, repaired by c repairers of rate μ: as a c-server
/// transition, or with the repairers as tokens of a place (`repairmenPlace`).
std::string repairman(int n, int c, double lambda, double mu, bool repairmenPlace) {
  std::string text = "place up = " + std::to_string(n) + "; place down;\n" + "timed fail rate " +
                     std::to_string(lambda) + " servers infinite in up out down;\n";
  if (repairmenPlace)
    text += "place crew = " + std::to_string(c) + ";\ntimed repair rate " + std::to_string(mu) +
            " servers infinite in down, crew out up, crew;\n";
  else
    text += "timed repair rate " + std::to_string(mu) + " servers " + std::to_string(c) +
            " in down out up;\n";
  return text;
}

double fluidRepairs(const gspn::Net& net) {
  const fluid::Equilibrium e = fluid::equilibrium(net, {});
  return e.flows[*net.findTransition("repair")];
}

double exactRepairs(const std::string& text) {
  const api::Solution s = api::solve(testing::loadModelText(text));
  for (const auto& [name, value] : s.values.throughput)
    if (name == "repair") return value;
  FAIL("no repair transition");
  return 0;
}

TEST_CASE("fluid machine repairman: the throughput is min(lambda mu N / (lambda + mu), mu c)") {
  const double lambda = 1, mu = 2;
  for (bool place : {false, true})
    for (int c : {5, 10, 20, 40}) {
      const int n = 60;
      CAPTURE(place);
      CAPTURE(c);
      const gspn::Net net = testing::loadGspnText(repairman(n, c, lambda, mu, place));
      const fluid::Equilibrium e = fluid::equilibrium(net, {});
      const double closed = std::min(lambda * mu * n / (lambda + mu), mu * c);
      CHECK(std::abs(e.flows[*net.findTransition("repair")] - closed) <= 1e-9 * closed);
      CHECK(std::abs(e.flows[*net.findTransition("fail")] - closed) <= 1e-9 * closed);
      CHECK(e.stable);
      CHECK(e.residual <= 1e-10);
      // c = 20 is the critical load λN/(λ+μ): the repair flow sits on its kink.
      CHECK((c == 20) == !e.kinks.empty());
    }
}

TEST_CASE("fluid machine repairman: the exact answer approaches the fluid one as N grows") {
  const double lambda = 1, mu = 2;
  SUBCASE("below the critical load (c = N/2) the distance falls with N") {
    double previous = 1;
    for (int n : {8, 32, 128}) {
      const std::string text = repairman(n, n / 2, lambda, mu, false);
      const double fluid = fluidRepairs(testing::loadGspnText(text));
      const double distance = std::abs(exactRepairs(text) - fluid) / fluid;
      CAPTURE(n);
      CHECK(distance < previous / 4);
      previous = distance;
    }
  }
  SUBCASE("at the critical load (c = N/3) it halves for each fourfold N") {
    double previous = 0;
    for (int n : {48, 192, 768, 3072}) {
      const std::string text = repairman(n, n / 3, lambda, mu, false);
      const double fluid = fluidRepairs(testing::loadGspnText(text));
      const double exact = exactRepairs(text);
      const double distance = std::abs(exact - fluid) / fluid;
      CAPTURE(n);
      if (previous > 0) {
        CHECK(distance / previous > 0.45);
        CHECK(distance / previous < 0.55);
      }
      previous = distance;
    }
  }
}

TEST_CASE("fluid immediate transitions split a free choice by their weights") {
  // Jobs leave a timed station and choose one of two routes by weights 1 and 3.
  const gspn::Net net = testing::loadGspnText(
      "place queue = 40; place choose; place a; place b;\n"
      "timed serve rate 2 servers 4 in queue out choose;\n"
      "immediate left weight 1 in choose out a;\n"
      "immediate right weight 3 in choose out b;\n"
      "timed backA rate 1 servers infinite in a out queue;\n"
      "timed backB rate 0.5 servers infinite in b out queue;\n");
  const fluid::Equilibrium e = fluid::equilibrium(net, {});
  CHECK(e.extrapolated);
  // The four servers are saturated (queue > 4): X = 8, a = X/4 / 1, b = 3X/4 / 0.5.
  const auto flow = [&](const char* t) { return e.flows[*net.findTransition(t)]; };
  const auto amount = [&](const char* p) { return e.amounts[*net.findPlace(p)]; };
  CHECK(flow("serve") == doctest::Approx(8).epsilon(1e-9));
  CHECK(flow("left") == doctest::Approx(2).epsilon(1e-9));
  CHECK(flow("right") == doctest::Approx(6).epsilon(1e-9));
  CHECK(amount("a") == doctest::Approx(2).epsilon(1e-9));
  CHECK(amount("b") == doctest::Approx(12).epsilon(1e-9));
  CHECK(amount("queue") == doctest::Approx(26).epsilon(1e-9));
  CHECK(amount("choose") < 1e-10);
}

TEST_CASE("fluid trajectory: exponential decay toward the equilibrium") {
  // N tokens leave at rate λ each (infinite server) and come back at once: x(t) = N e^(−λt).
  const gspn::Net net = testing::loadGspnText(
      "place p = 100; place q;\ntimed go rate 0.5 servers infinite in p out q;\n");
  const std::vector<double> times{4, 0, 1};
  const fluid::Trajectory r = fluid::trajectory(net, times, {});
  for (std::size_t i = 0; i < times.size(); ++i)
    CHECK(r.amounts[i][0] == doctest::Approx(100 * std::exp(-0.5 * times[i])).epsilon(1e-7));
}

TEST_CASE("fluid refusals name the element") {
  const auto refusal = [](const std::string& text) {
    try {
      fluid::equilibrium(testing::loadGspnText(text), {});
    } catch (const fluid::UnsupportedNet& e) {
      return e.element() + ": " + e.what();
    }
    return std::string("none");
  };
  CHECK(refusal(
            "place p = 1; place q; timed t rate 1 in p out q inhibit q; timed u rate 1 in q out p;")
            .starts_with("t: transition t has an inhibitor arc"));
  CHECK(refusal("place p = 1; place q; place r;\n"
                "immediate a in p out q; immediate b in p, r out q; timed u rate 1 in q out p;")
            .starts_with("a: immediate transition a shares input place p with b"));
  CHECK(refusal("place p = 1; immediate a in p out p;").find("no timed transition") !=
        std::string::npos);
  // An unbounded net has no equilibrium: said, not looped on.
  CHECK_THROWS_AS(
      fluid::equilibrium(testing::loadGspnText("place p; timed arrive rate 1 out p;"), {}),
      fluid::NotSettledError);
}

}  // namespace
}  // namespace mmt
