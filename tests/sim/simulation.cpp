// The simulator against closed forms and against the exact CTMC solution, at fixed seeds
// (so each check is deterministic), and its reproducibility.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "compiler/compile.hpp"
#include "compiler/metrics.hpp"
#include "grammar/parse.hpp"
#include "io/load_gspn.hpp"
#include "sim/replications.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

using testing::loadGspnText;

/// An estimate over replications: the mean and the half-width of its 95 % interval, and
/// the half-width of its 99.9 % interval, which the checks against exact values use.
struct Estimate {
  double mean = 0, halfWidth = 0, halfWidth999 = 0;
};

/// Estimates f over `count` replications.
Estimate replicate(const gspn::Net& net, const sim::ReplicationSettings& settings,
                   std::size_t count, const std::function<double(const sim::Replication&)>& f) {
  const std::vector<double> samples = sim::runReplications<double>(net, settings, 0, count, 2, f);
  const sim::Estimate at95 = sim::estimate(samples, 0.95);
  return {at95.mean, at95.halfWidth, sim::estimate(samples, 0.999).halfWidth};
}

/// Checks that the exact value lies in the 99.9 % interval. Each check runs one fixed
/// seed; at 95 % one in twenty would fail for a correct simulator, and this file makes a
/// dozen such checks. A bias of a few 95 % half-widths still fails.
void checkCovers(const Estimate& e, double exact) {
  CAPTURE(e.mean);
  CAPTURE(e.halfWidth999);
  CAPTURE(exact);
  CHECK(std::abs(e.mean - exact) <= e.halfWidth999);
}

}  // namespace

TEST_CASE("M/M/1: mean number in system rho/(1-rho) lies in the 99.9% interval") {
  // Arrivals at 0.5, service at 1: E[N] = 1 ([Kleinrock75] §3.2).
  const gspn::Net net =
      loadGspnText("place q; timed arrive rate 0.5 out q; timed serve rate 1 in q;");
  sim::ReplicationSettings settings;
  settings.seed = 7;
  const auto n =
      replicate(net, settings, 20, [](const sim::Replication& r) { return r.meanTokens(0); });
  checkCovers(n, 1.0);
  CHECK(n.halfWidth < 0.05);  // the interval is informative, not merely wide
}

TEST_CASE("constant delays: a deterministic cycle has exactly the period of its delays") {
  // One token alternates between delays 0.5 and 4: throughput exactly 1/4.5, whatever
  // the seed, with no spread between replications.
  const gspn::Net net = loadGspnText(
      "place a = 1; place b; timed go rate 2 in a out b; timed back rate 0.25 in b out a;");
  sim::ReplicationSettings settings;
  settings.delays = sim::Delays::Constant;
  settings.events = 10'000;
  settings.warmupEvents = 1;
  const auto x =
      replicate(net, settings, 4, [](const sim::Replication& r) { return r.throughput(0); });
  CHECK(x.mean == doctest::Approx(1 / 4.5).epsilon(1e-9));
  CHECK(x.halfWidth < 1e-9);
  // Time in `b` is 4 of every 4.5.
  const auto b =
      replicate(net, settings, 2, [](const sim::Replication& r) { return r.meanTokens(1); });
  CHECK(b.mean == doctest::Approx(4 / 4.5).epsilon(1e-6));
}

TEST_CASE("the same seed gives bit-identical results, different seeds differ") {
  const gspn::Net net =
      loadGspnText("place q; timed arrive rate 0.5 out q; timed serve rate 1 in q;");
  sim::ReplicationSettings settings;
  settings.events = 20'000;
  auto run = [&](std::uint64_t seed) {
    settings.seed = seed;
    return sim::runReplications<double>(net, settings, 0, 4, 2,
                                        [](const sim::Replication& r) { return r.meanTokens(0); });
  };
  CHECK(run(3) == run(3));
  CHECK(run(3) != run(4));
}

TEST_CASE("fork-join: exponential simulation agrees with the exact solution" *
          doctest::test_suite("slow")) {
  std::ifstream in(std::string(MMT_SOURCE_DIR) + "/examples/forkjoin.hdl");
  std::stringstream text;
  text << in.rdbuf();
  grammar::SourceFile source{"forkjoin.hdl", text.str()};
  grammar::Diagnostics diagnostics(source);
  auto parsed = grammar::parseSystem(source, diagnostics);
  REQUIRE(parsed);
  auto compiled = compiler::compile(*parsed, diagnostics);
  REQUIRE(compiled);
  const auto exact = testing::solve(compiled->net, solver::Method::LU);
  const compiler::SystemMetrics truth = compiler::computeMetrics(*compiled, *exact.measures);

  sim::ReplicationSettings settings;
  settings.seed = 11;
  auto metric = [&](const std::function<double(const compiler::SystemMetrics&)>& pick) {
    return replicate(compiled->net, settings, 20, [&](const sim::Replication& r) {
      return pick(compiler::computeMetrics(*compiled, r));
    });
  };
  // Each 95 % interval within 1 % of its value: 20 replications of the default length give
  // 0.12 % (throughput, response time) to 0.31 % (a utilization, a synchronization delay).
  const auto checkClose = [](const Estimate& e, double exact) {
    checkCovers(e, exact);
    CHECK(e.halfWidth < 0.01 * exact);
  };
  checkClose(metric([](const auto& m) { return m.application.throughput; }),
             truth.application.throughput);
  checkClose(metric([](const auto& m) { return *m.application.responseTime; }),
             *truth.application.responseTime);
  checkClose(metric([](const auto& m) { return m.processors[3].utilization; }),
             truth.processors[3].utilization);
  checkClose(metric([](const auto& m) { return m.actors[3].synchronizationDelay; }),
             truth.actors[3].synchronizationDelay);
}

TEST_CASE("M/D/1 and M/U/1: declared service distributions give Pollaczek-Khinchine") {
  // M/G/1 mean number in system L = ρ + λ²E[S²] / (2(1-ρ)) ([Kleinrock75] §5.6, P-K).
  // λ = 0.5, E[S] = 1, ρ = 0.5: constant service E[S²] = 1 gives L = 0.75; uniform(0, 2)
  // E[S²] = 4/3 gives L = 0.8333; an exponential service (E[S²] = 2) would give 1.
  struct Case {
    const char* delay;
    double expected;
  };
  for (const Case c : {Case{"const(1)", 0.75}, Case{"uniform(0, 2)", 0.5 + 0.25 * 4 / 3 / 1.0}}) {
    CAPTURE(c.delay);
    const gspn::Net net = loadGspnText(std::string("place q; timed arrive rate 0.5 out q; "
                                                   "timed serve delay ") +
                                       c.delay + " in q;");
    sim::ReplicationSettings settings;
    settings.seed = 5;
    const auto n =
        replicate(net, settings, 20, [](const sim::Replication& r) { return r.meanTokens(0); });
    checkCovers(n, c.expected);
    CHECK(n.halfWidth < 0.03);
    // --delays exponential ignores the declaration: M/M/1, L = 1.
    settings.delays = sim::Delays::Exponential;
    const auto m =
        replicate(net, settings, 20, [](const sim::Replication& r) { return r.meanTokens(0); });
    checkCovers(m, 1.0);
  }
}

TEST_CASE("M/M/1/K: the blocking probability lies in the 99.9% interval") {
  // K = 3, λ = 1, μ = 2 (ρ = 1/2): P(N = K) = (1-ρ)ρ^K / (1-ρ^(K+1)) = 1/15 ([Kleinrock75]
  // §3.6). Arrivals are inhibited while the queue is full, so P(full) is a marking
  // probability (recorded markings).
  const gspn::Net net = loadGspnText(
      "place q; timed arrive rate 1 out q inhibit q * 3; timed serve rate 2 in q;"
      "measure blocking = prob(#q == 3);");
  sim::ReplicationSettings settings;
  settings.seed = 9;
  const auto p = replicate(net, settings, 20, [&](const sim::Replication& r) {
    return gspn::evaluateMeasures(net, r)[0];
  });
  CAPTURE(p.mean);
  checkCovers(p, 1.0 / 15);
  CHECK(p.halfWidth < 0.003);
}

TEST_CASE("immediate weights near the largest double keep their ratio in the simulator") {
  // P(a) = 4e307 / (4e307 + 1.2e308) = 1/4, though the sum overflows a double.
  const gspn::Net net = loadGspnText(
      "place P = 1; place Q; place A; place C; timed t rate 1 in P out Q;"
      "immediate a weight 4e307 in Q out A; immediate c weight 1.2e308 in Q out C;"
      "timed ba rate 1 in A out P; timed bc rate 1 in C out P;"
      "measure share = throughput(a) / throughput(t);");
  sim::ReplicationSettings settings;
  settings.seed = 11;
  const auto p = replicate(net, settings, 20, [&](const sim::Replication& r) {
    return gspn::evaluateMeasures(net, r)[0];
  });
  CAPTURE(p.mean);
  checkCovers(p, 0.25);
  CHECK(p.halfWidth < 0.01);
}

TEST_CASE("the simulator keeps each marking's time only for the metrics that read it") {
  // Each marking's time is kept for expectations over markings (a store of every marking
  // visited, 48 KB an event for 4,000 workers): the fork-join's A4 joins two inputs and
  // needs them; a farm of skeleton tasks reads mean tokens and throughputs alone.
  const auto needs = [](const char* example) {
    std::ifstream in(std::string(MMT_SOURCE_DIR) + "/examples/" + example);
    std::stringstream text;
    text << in.rdbuf();
    grammar::SourceFile source{example, text.str()};
    grammar::Diagnostics diagnostics(source);
    auto parsed = grammar::parseSystem(source, diagnostics);
    REQUIRE(parsed);
    auto compiled = compiler::compile(*parsed, diagnostics);
    REQUIRE(compiled);
    // Without the markings kept, metrics that need them would throw here.
    sim::ReplicationSettings settings;
    settings.events = 2000;
    settings.recordMarkings = compiler::metricsNeedExpectations(*compiled);
    const sim::Replication r = sim::simulate(compiled->net, settings, 0);
    CHECK(compiler::computeMetrics(*compiled, r).application.throughput > 0);
    return settings.recordMarkings;
  };
  CHECK(needs("forkjoin.hdl"));
  CHECK_FALSE(needs("farm.hdl"));
}
