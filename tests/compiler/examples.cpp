// The published case studies (examples/*.hdl) against numbers that follow from their
// parameters alone: sequential sums where nothing overlaps, and the utilization law.
#include <doctest/doctest.h>

#include <cmath>

#include "compile_helpers.hpp"
#include "gspn/phases.hpp"
#include "sim/replications.hpp"

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
    if (p > 2)
      CHECK(*m.application.responseTime <
            *solveExample("image_filter.hdl", {{"P", p - 1}, {"N", n}}).application.responseTime);
  }
}

TEST_CASE("LU on a Paragon (E3): threads in lockstep, the utilization law on the mesh") {
  for (int n : {2, 3}) {
    CAPTURE(n);
    const double m = 16;
    const auto r = solveExample("lu_paragon.hdl", {{"n", n}, {"m", m}});
    const double x = r.application.throughput;
    const double loop = 0.1378 / (n * m), message = 8 * m / 200e6;
    // No thread runs more than one loop ahead of another: all loop at the same rate.
    for (int i = 1; i <= n; ++i)
      CHECK(testing::named(r.actors, "T[" + std::to_string(i) + "]").throughput ==
            doctest::Approx(x).epsilon(1e-9));
    CHECK(*r.application.responseTime == doctest::Approx(1 / x).epsilon(1e-12));
    CHECK(testing::named(r.processors, "N[1][1]").utilization ==
          doctest::Approx(x * loop).epsilon(1e-9));
    // T[1] on N[1][1] sends its n - 1 messages east over H[1][1]; T[2] sends to T[1] west
    // over it too: H[1][1] carries 2(n - 1) messages per loop when all threads are in row 1.
    CHECK(testing::named(r.links, "H[1][1]").utilization ==
          doctest::Approx(x * 2 * (n - 1) * message).epsilon(1e-9));
    // The mesh's nodes beyond row 1 run no thread and its vertical links carry no message:
    // idle, exactly 0 (not 1 − Σπ's rounding).
    CHECK(testing::named(r.processors, "N[2][1]").utilization == 0.0);
    CHECK(testing::named(r.links, "V[1][1]").utilization == 0.0);
    // A loop cannot be shorter than the computation, nor than the slowest of n exponential
    // computations in a row when they run in lockstep (a bound, not the value).
    CHECK(1 / x > loop);
    CHECK(1 / x < loop * (1 + 1.0 / 2 + 1.0 / 3) * 1.01 + 2 * message);
  }
}

TEST_CASE("fork-join with constant delays: phases move the exact answer towards the simulation") {
  // E1 with every demand and size declared constant.
  std::string text = testing::readExample("forkjoin.hdl");
  for (const char* key : {"demand: ", "size: "})
    for (std::size_t at = 0; (at = text.find(key, at)) != std::string::npos;) {
      at += std::string(key).size();
      const std::size_t end = text.find(';', at);
      text.replace(at, end - at, "const(" + text.substr(at, end - at) + ")");
    }
  auto model = testing::compileText(text);
  auto exponential = testing::solve(model->compiled.net, solver::Method::GTH);
  const double rExponential =
      *compiler::computeMetrics(model->compiled, *exponential.measures).application.responseTime;

  compiler::CompiledSystem phased = model->compiled;
  phased.net = gspn::expandPhases(model->compiled.net, 10).net;
  auto expanded = testing::solve(phased.net, solver::Method::GTH);
  const double rPhases =
      *compiler::computeMetrics(phased, *expanded.measures).application.responseTime;

  sim::ReplicationSettings settings;
  settings.delays = sim::Delays::Constant;
  settings.events = 20'000;
  settings.warmupEvents = 100;
  auto runs = sim::runReplications<double>(
      model->compiled.net, settings, 0, 2, 1, [&](const sim::Replication& r) {
        return *compiler::computeMetrics(model->compiled, r).application.responseTime;
      });
  const double rConstant = runs[0];
  CAPTURE(rExponential);
  CAPTURE(rPhases);
  CAPTURE(rConstant);
  CHECK(rConstant < rPhases);
  CHECK(rPhases < rExponential);
  // Ten phases take most of the way: closer to the constant answer than to the exponential.
  CHECK(rPhases - rConstant < rExponential - rPhases);
}
