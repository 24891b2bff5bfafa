// Chains that end (solver/absorption.hpp, api::solve on a raw net whose chain ends): the
// probabilities of the ends, the mean and variance of the time to absorption, the totals
// until then and the long-run averages, against closed forms, and the solvers agreeing.
#include "solver/absorption.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "api/solve.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

/// A batch of n jobs served by W workers at rate mu each: the makespan is a sum of
/// exponential phases, the j-th of rate mu · min(W, n − j), so
/// E[A] = Σ_j 1 / (mu min(W, n − j)) and Var[A] = Σ_j 1 / (mu min(W, n − j))².
std::string batchNet(int n, int workers, double mu) {
  return "place jobs = " + std::to_string(n) + "; place free = " + std::to_string(workers) +
         "; place busy; place done;\n"
         "immediate start in jobs, free out busy;\n"
         "timed finish rate " +
         std::to_string(mu) + " * #busy in busy out done, free;\n";
}

struct Moments {
  double mean = 0, variance = 0;
};

Moments batchMoments(int n, int workers, double mu) {
  Moments out;
  for (int j = 0; j < n; ++j) {
    const double phase = 1 / (mu * std::min(workers, n - j));
    out.mean += phase;
    out.variance += phase * phase;
  }
  return out;
}

solver::AbsorptionResult absorb(const gspn::Net& net, solver::Method method) {
  const gspn::ExplorationResult explored = gspn::exploreTangible(net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  solver::SteadyStateSettings settings;
  settings.method = method;
  settings.tolerance = 1e-13;
  settings.directLimit = 0;  // Auto sweeps too
  solver::AbsorptionResult a = solver::solveAbsorption(net, explored.graph, settings);
  REQUIRE(a.status == solver::Status::Converged);
  return a;
}

}  // namespace

TEST_CASE("absorption: a batch's makespan has the closed form's mean and variance") {
  const int n = 40, workers = 3;
  const double mu = 2;
  const gspn::Net net = testing::loadGspnText(batchNet(n, workers, mu));
  const Moments exact = batchMoments(n, workers, mu);
  for (solver::Method method : {solver::Method::GTH, solver::Method::LU,
                                solver::Method::GaussSeidel, solver::Method::GMRES}) {
    CAPTURE(solver::toString(method));
    const solver::AbsorptionResult a = absorb(net, method);
    REQUIRE(a.bottoms.components.size() == 1);
    CHECK(a.bottoms.components[0].dead);
    CHECK(a.probability[0] == doctest::Approx(1).epsilon(1e-12));
    CHECK(a.meanTime == doctest::Approx(exact.mean).epsilon(1e-9));
    CHECK(a.variance() == doctest::Approx(exact.variance).epsilon(1e-8));
    // The occupancy sums to the mean; each state's is its sojourn 1 / exit rate, since
    // the batch passes every transient marking once.
    CHECK(a.occupancy.sum() == doctest::Approx(exact.mean).epsilon(1e-9));
  }
}

TEST_CASE("absorption: a race into a cycle or a dead end, with the long run weighted") {
  // From `start`, rate 1 into a cycle a <-> c (rates 2 and 5), rate 3 into the dead `b`:
  // P(cycle) = 1/4, A ~ Exp(4); in the cycle π_a = 5/7, π_c = 2/7.
  const api::Model model = testing::loadModelText(
      "place start = 1; place a; place b; place c;\n"
      "timed ta rate 1 in start out a;\n"
      "timed tb rate 3 in start out b;\n"
      "timed ac rate 2 in a out c;\n"
      "timed ca rate 5 in c out a;\n"
      "measure busy = prob(#a + #c > 0);\n"
      "measure per = mean(#a) / throughput(ac);\n");
  const api::Solution s = api::solve(model);
  REQUIRE(s.absorption);
  CHECK(!s.hasSteadyState());
  CHECK(s.hasResults());
  const api::AbsorptionSolution& a = *s.absorption;
  REQUIRE(a.components.size() == 2);
  CHECK(a.components[0].marking == "a=1");
  CHECK(a.components[0].markings == 2);
  CHECK(!a.components[0].dead);
  CHECK(a.components[0].probability == doctest::Approx(0.25).epsilon(1e-12));
  CHECK(a.components[1].marking == "b=1");
  CHECK(a.components[1].dead);
  CHECK(a.components[1].probability == doctest::Approx(0.75).epsilon(1e-12));
  CHECK(a.transientMarkings == 1);
  CHECK(a.meanTime == doctest::Approx(0.25).epsilon(1e-12));
  CHECK(a.variance == doctest::Approx(1.0 / 16).epsilon(1e-12));
  CHECK(a.structure.find("deadlock: the reachable marking {b=1}") != std::string::npos);
  // Totals until absorption: start is held for E[A]; ta fires with probability 1/4.
  REQUIRE(a.accumulated);
  CHECK(a.accumulated->meanTokens[0].second == doctest::Approx(0.25).epsilon(1e-12));
  CHECK(a.accumulated->throughput[0].second == doctest::Approx(0.25).epsilon(1e-12));
  CHECK(a.accumulated->throughput[1].second == doctest::Approx(0.75).epsilon(1e-12));
  CHECK(a.accumulated->throughput[2].second == 0);
  // The long run: 1/4 of the cycle's π, 3/4 in b.
  const auto& tokens = s.values.meanTokens;
  CHECK(tokens[1].second == doctest::Approx(0.25 * 5 / 7).epsilon(1e-12));
  CHECK(tokens[2].second == doctest::Approx(0.75).epsilon(1e-12));
  CHECK(tokens[3].second == doctest::Approx(0.25 * 2 / 7).epsilon(1e-12));
  CHECK(s.values.throughput[2].second == doctest::Approx(0.25 * 2 * 5 / 7).epsilon(1e-12));
  CHECK(s.values.measures[0].second == doctest::Approx(0.25).epsilon(1e-12));
  CHECK(s.values.measures[1].second == doctest::Approx(0.5).epsilon(1e-12));
  // The accumulated ratio is 0 / 0: undefined, not an error.
  CHECK(std::isnan(a.accumulated->measures[1].second));
  const nlohmann::ordered_json json = s.json();
  CHECK(json["absorption"]["accumulated"]["measures"]["per"].is_null());
  CHECK(json["absorption"]["time"]["standard_deviation"].get<double>() ==
        doctest::Approx(0.25).epsilon(1e-12));
  CHECK(json["places"]["b"]["mean_tokens"].get<double>() == doctest::Approx(0.75).epsilon(1e-12));
}

TEST_CASE("absorption: a vanishing initial marking splits the start between two ends") {
  // An immediate choice (weights 1 and 3) before any time passes: the ends have
  // probabilities 1/4 and 3/4 and A = 0 from the ends themselves, or Exp(1) on one branch.
  const api::Model model = testing::loadModelText(
      "place s = 1; place x; place y; place z;\n"
      "immediate toX weight 1 in s out x;\n"
      "immediate toY weight 3 in s out y;\n"
      "timed xz rate 1 in x out z;\n");
  const api::Solution s = api::solve(model);
  REQUIRE(s.absorption);
  const api::AbsorptionSolution& a = *s.absorption;
  REQUIRE(a.components.size() == 2);
  double toY = 0, toZ = 0;
  for (const api::EndComponent& c : a.components) (c.marking == "y=1" ? toY : toZ) = c.probability;
  CHECK(toY == doctest::Approx(0.75).epsilon(1e-12));
  CHECK(toZ == doctest::Approx(0.25).epsilon(1e-12));
  // A is 0 with probability 3/4 and Exp(1) otherwise: mean 1/4, E[A²] = 2/4.
  CHECK(a.meanTime == doctest::Approx(0.25).epsilon(1e-12));
  CHECK(a.variance == doctest::Approx(0.5 - 0.0625).epsilon(1e-12));
}

TEST_CASE("absorption under symmetry: interchangeable jobs lumped give the same makespan") {
  // Three identical jobs, each a two-phase exponential (rates 1 then 2) on its own
  // server: the makespan is the maximum of three hypoexponentials, lumped or not.
  const std::string net =
      "place a1 = 1; place b1; place d1; place a2 = 1; place b2; place d2;\n"
      "place a3 = 1; place b3; place d3;\n"
      "timed s1 rate 1 in a1 out b1; timed f1 rate 2 in b1 out d1;\n"
      "timed s2 rate 1 in a2 out b2; timed f2 rate 2 in b2 out d2;\n"
      "timed s3 rate 1 in a3 out b3; timed f3 rate 2 in b3 out d3;\n";
  api::Settings lumped, full;
  full.symmetry = false;
  const api::Solution l = api::solve(testing::loadModelText(net), lumped);
  const api::Solution f = api::solve(testing::loadModelText(net), full);
  REQUIRE(l.absorption);
  REQUIRE(f.absorption);
  CHECK(l.symmetry.used());
  CHECK(l.chain.explored.graph.stateCount() < f.chain.explored.graph.stateCount());
  // E[max] = ∫ 1 − F(t)³ dt with F(t) = 1 − 2e^{−t} + e^{−2t} (hypoexponential 1, 2).
  double mean = 0;
  const double dt = 1e-4;
  for (double t = dt / 2; t < 60; t += dt) {
    const double F = 1 - 2 * std::exp(-t) + std::exp(-2 * t);
    mean += (1 - F * F * F) * dt;
  }
  CHECK(f.absorption->meanTime == doctest::Approx(mean).epsilon(1e-7));
  CHECK(l.absorption->meanTime == doctest::Approx(f.absorption->meanTime).epsilon(1e-11));
  CHECK(l.absorption->variance == doctest::Approx(f.absorption->variance).epsilon(1e-10));
  // Token-time of the lumped places: each job's share is the same.
  REQUIRE(l.absorption->accumulated);
  for (std::size_t p = 0; p < 9; ++p)
    CHECK(l.absorption->accumulated->meanTokens[p].second ==
          doctest::Approx(f.absorption->accumulated->meanTokens[p].second).epsilon(1e-10));
}

TEST_CASE("a system whose chain ends is still an error, now saying how likely and how soon") {
  try {
    api::solve(api::loadModel(std::string(MMT_SOURCE_DIR) + "/tests/cli/deadlock.hdl"));
    FAIL("no StructureError");
  } catch (const api::StructureError& e) {
    CHECK((e.kind() == solver::ChainStructure::Kind::Deadlock));
    CHECK(std::string(e.what()).find("reached with probability 1, and the chain ends after") !=
          std::string::npos);
  }
}

TEST_CASE("absorption: gambler's ruin has its closed-form probabilities") {
  // Fortune x from i, up at rate p, down at rate q, until 0 or N:
  // P(reach N) = (1 − (q/p)^i) / (1 − (q/p)^N).
  const int n = 12;
  const double p = 1.5, q = 1;
  for (int i : {1, 5, 11}) {
    CAPTURE(i);
    const api::Model model =
        testing::loadModelText("place x = " + std::to_string(i) +
                               ";\n"
                               "timed up rate 1.5 guard #x > 0 && #x < 12 out x;\n"
                               "timed down rate 1 guard #x < 12 in x;\n");
    const api::Solution s = api::solve(model);
    REQUIRE(s.absorption);
    REQUIRE(s.absorption->components.size() == 2);
    double win = 0, ruin = 0;
    for (const api::EndComponent& c : s.absorption->components) {
      CHECK(c.dead);
      (c.marking == "x=12" ? win : ruin) = c.probability;
    }
    const double r = q / p;
    CHECK(win == doctest::Approx((1 - std::pow(r, i)) / (1 - std::pow(r, n))).epsilon(1e-11));
    CHECK(win + ruin == doctest::Approx(1).epsilon(1e-13));
    // E[A]: the embedded walk's expected steps, i/(q' − p') − (N/(q' − p')) (1 − r^i)/(1 − r^N)
    // with p' = p/(p + q), q' = q/(p + q), each step of mean 1/(p + q).
    const double time = i / (q - p) - (n / (q - p)) * (1 - std::pow(r, i)) / (1 - std::pow(r, n));
    CHECK(s.absorption->meanTime == doctest::Approx(time).epsilon(1e-10));
  }
}

TEST_CASE("absorption: a first choice between two cycles gives p π1 + (1 − p) π2") {
  // The first firing picks cycle 1 (a1 <-> b1, rates 1 and 4) with p = 2/5, or cycle 2
  // (a2 <-> b2, rates 3 and 1) with 3/5. In the long run #b1 = p · 1/5, #b2 = (1 − p) · 3/4.
  const api::Model model = testing::loadModelText(
      "place s = 1; place a1; place b1; place a2; place b2;\n"
      "timed go1 rate 2 in s out a1;\n"
      "timed go2 rate 3 in s out a2;\n"
      "timed f1 rate 1 in a1 out b1; timed g1 rate 4 in b1 out a1;\n"
      "timed f2 rate 3 in a2 out b2; timed g2 rate 1 in b2 out a2;\n"
      "measure b = mean(#b1 + #b2);\n");
  for (const char* method : {"gth", "gauss-seidel"}) {
    CAPTURE(method);
    api::Settings settings;
    settings.method = solver::parseMethod(method);
    const api::Solution s = api::solve(model, settings);
    REQUIRE(s.absorption);
    REQUIRE(s.absorption->components.size() == 2);
    CHECK(s.absorption->components[0].probability == doctest::Approx(0.4).epsilon(1e-12));
    CHECK(s.absorption->components[1].probability == doctest::Approx(0.6).epsilon(1e-12));
    CHECK(s.absorption->structure.find("2 bottom strongly connected components") !=
          std::string::npos);
    const double b1 = 0.4 * 1 / 5, b2 = 0.6 * 3 / 4;
    CHECK(s.values.meanTokens[2].second == doctest::Approx(b1).epsilon(1e-10));
    CHECK(s.values.meanTokens[4].second == doctest::Approx(b2).epsilon(1e-10));
    CHECK(s.values.measures[0].second == doctest::Approx(b1 + b2).epsilon(1e-10));
    CHECK(s.values.throughput[2].second == doctest::Approx(0.4 * 4 / 5).epsilon(1e-10));
    // Each component under its own steady state: cycle 1 has #b1 = 1/5 and g1 fires at
    // 4 · 1/5; cycle 2 has #b2 = 3/4; the places of the other cycle hold nothing.
    const auto& one = s.absorption->components[0].results;
    const auto& two = s.absorption->components[1].results;
    REQUIRE(one);
    REQUIRE(two);
    CHECK(one->meanTokens[2].second == doctest::Approx(1.0 / 5).epsilon(1e-10));
    CHECK(one->meanTokens[4].second == 0);
    CHECK(one->throughput[3].second == doctest::Approx(4.0 / 5).epsilon(1e-10));
    CHECK(one->measures[0].second == doctest::Approx(1.0 / 5).epsilon(1e-10));
    CHECK(two->meanTokens[4].second == doctest::Approx(3.0 / 4).epsilon(1e-10));
    CHECK(two->measures[0].second == doctest::Approx(3.0 / 4).epsilon(1e-10));
    // The long run is their mixture by the probabilities of reaching them.
    for (std::size_t p = 0; p < s.values.meanTokens.size(); ++p)
      CHECK(s.values.meanTokens[p].second ==
            doctest::Approx(0.4 * one->meanTokens[p].second + 0.6 * two->meanTokens[p].second)
                .epsilon(1e-10));
  }
}

TEST_CASE("absorption: the time to absorption's distribution on a raw net") {
  // Two stages of rates 1 and 3: F(t) = 1 − 3/2 e^{−t} + 1/2 e^{−3t}.
  const api::Model model = testing::loadModelText(
      "place s0 = 1; place s1; place done;\n"
      "timed t0 rate 1 in s0 out s1;\n"
      "timed t1 rate 3 in s1 out done;\n");
  api::PassageRequest request;
  request.times = {0.5, 1, 4};
  request.percentiles = {50, 99};
  const api::Solution s = api::solve(model, {}, {}, {}, request);
  REQUIRE(s.passages);
  const api::PassageDistribution& d = s.passages->distributions.at(0);
  CHECK(d.section == "absorption");
  CHECK(d.mean == doctest::Approx(4.0 / 3).epsilon(1e-9));
  const auto F = [](double t) { return 1 - 1.5 * std::exp(-t) + 0.5 * std::exp(-3 * t); };
  for (std::size_t i = 0; i < request.times.size(); ++i)
    CHECK(d.cdf[i] == doctest::Approx(F(request.times[i])).epsilon(1e-9));
  for (std::size_t i = 0; i < request.percentiles.size(); ++i)
    CHECK(F(d.percentiles[i]) == doctest::Approx(request.percentiles[i] / 100).epsilon(1e-8));
  // A net with a steady state has no time to absorption: --from and --to are needed.
  const api::Model cycle = testing::loadModelText(
      "place a = 1; place b;\ntimed ab rate 1 in a out b;\ntimed ba rate 2 in b out a;\n");
  CHECK_THROWS_AS(api::solve(cycle, {}, {}, {}, request), api::SettingError);
}

TEST_CASE("absorption: the tandem batch of 1000 jobs has PRISM's makespan to 1e-9" *
          doctest::test_suite("slow")) {
  // tools/bench/models/batch.gspn (501,501 markings), which Auto solves by GMRES: PRISM's
  // R{"time"}=? [ F "done" ] on batch.sm is 334.791666667 (tools/bench/prism). The mean
  // sums the error of every transient marking, so the renewal chain is solved deeper than
  // the steady state's tolerance (at 1e-10 it was 2.3e-9 off).
  const api::Model model =
      api::loadModel(std::string(MMT_SOURCE_DIR) + "/tools/bench/models/batch.gspn", {{"n", 1000}});
  const api::Solution s = api::solve(model);
  REQUIRE(s.absorption);
  CHECK(s.absorption->meanTime == doctest::Approx(334.791666667).epsilon(1e-9));
}
