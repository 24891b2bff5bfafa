// The map skeleton (docs/skeletons.md, "Map"): a scatter into one worker per partition, a
// gather out of all of them. Against closed forms (the expected maximum of p exponentials),
// a chain built here by hand from the definition and solved with Eigen's dense LU
// (chain_helpers.hpp), and the
// exact period of a run with constant delays.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "api/simulate.hpp"
#include "api/sweep.hpp"
#include "chain_helpers.hpp"
#include "compile_helpers.hpp"
#include "compiler/bounds.hpp"

using namespace mmt;
using testing::compileErrors;
using testing::named;
using testing::solveText;

namespace {

std::string number(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

/// map(p) of identical workers of mean work m on processors of their own, as the only
/// skeleton (its input and output none: the scatter and the gather take no time).
std::string identicalMap(int p, double m) {
  return "system m { param p = " + std::to_string(p) +
         "; hardware { for k in 1..p { processor P[k]; } }\n" +
         " application { map(p) M { task W { work: " + number(m) + "; size: 0; } } }\n" +
         " mapping { for k in 1..p { W[k] on P[k]; } } }";
}

}  // namespace

TEST_CASE("a map of p exponential workers takes the expected maximum of p exponentials") {
  // Every item waits for its slowest partition: E[max of p Exp(mean m)] = m · H_p.
  const double m = 1.5;
  double harmonic = 0;
  for (int p = 1; p <= 6; ++p) {
    CAPTURE(p);
    harmonic += 1.0 / p;
    const compiler::SystemMetrics metrics = solveText(identicalMap(p, m));
    const compiler::SkeletonMetrics& map = named(metrics.skeletons, "M");
    CHECK(map.responseTime == doctest::Approx(m * harmonic).epsilon(1e-10));
    CHECK(map.throughput == doctest::Approx(1 / (m * harmonic)).epsilon(1e-10));
    CHECK(metrics.application.responseTime.value() == doctest::Approx(m * harmonic).epsilon(1e-10));
    // A worker processes once per item, busy m of every m · H_p.
    CHECK(named(metrics.tasks, "W[1]").throughput ==
          doctest::Approx(map.throughput).epsilon(1e-10));
    CHECK(named(metrics.tasks, "W[" + std::to_string(p) + "]").utilization ==
          doctest::Approx(1 / harmonic).epsilon(1e-10));
  }
}

TEST_CASE("a stage feeding a map of two unequal workers against its chain") {
  // Src processes at rate a, then holds its item until both workers are idle; the scatter
  // starts both (rates b1 and b2, processors of speeds 1 and 2), a finished worker holds
  // its part until the other is done, and the gather frees both. State (src, w1, w2):
  // src 0 processing, 1 holding; worker 0 idle, 1 busy, 2 done.
  const double a = 0.8, b1 = 1.0, b2 = 2.0;
  const std::string text = R"(system s {
    hardware { processor H; processor P1; processor P2 { speed: 2; } link L (H, P1, P2) { kind: bus; } }
    application { pipeline Q { task Src { rate: 0.8; } map(2) M { task W { work: 1; size: 0; } } } }
    mapping { Src on H; W[1] on P1; W[2] on P2; }
  })";
  // The immediate moves as the net makes them: scatter, then gather.
  auto settle = [](std::vector<int> s) {
    if (s[1] == 2 && s[2] == 2) s[1] = s[2] = 0;
    if (s[0] == 1 && s[1] == 0 && s[2] == 0) s = {0, 1, 1};
    return s;
  };
  const testing::Chain chain = testing::solveChain(settle({0, 0, 0}), [&](const testing::State& s) {
    std::vector<std::pair<testing::State, double>> next;
    if (s[0] == 0) next.push_back({settle({1, s[1], s[2]}), a});
    if (s[1] == 1) next.push_back({settle({s[0], 2, s[2]}), b1});
    if (s[2] == 1) next.push_back({settle({s[0], s[1], 2}), b2});
    return next;
  });
  const double throughput = b1 * chain.expect([](const testing::State& s) { return s[1] == 1; });
  const double busy1 = chain.expect([](const testing::State& s) { return s[1] == 1; });
  const double held2 = chain.expect([](const testing::State& s) { return s[2] == 2; });
  std::size_t tangible = 0;
  const compiler::SystemMetrics m = solveText(text, &tangible);
  CHECK(tangible == chain.states.size());
  CHECK(m.application.throughput == doctest::Approx(throughput).epsilon(1e-10));
  CHECK(named(m.tasks, "W[1]").utilization == doctest::Approx(busy1).epsilon(1e-10));
  CHECK(named(m.tasks, "W[2]").blocked == doctest::Approx(held2).epsilon(1e-10));
}

TEST_CASE("a split map with timed scatter and gather: with constant delays, exactly their sum") {
  // split: 10 over 3 gives parts 4, 3, 3; W[k] works `part` on a processor of speed k. The
  // scatter sends the parts one after another from H over the bus (latency 0.1, bandwidth
  // 10): (0.1 + 0.4) + 2 (0.1 + 0.3); the gather brings 3 data units of output, one per
  // part: 3 (0.1 + 0.1). Slowest worker: 4 / 1. One item at a time, so the period is
  // 1.3 + 4 + 0.6.
  const std::string text = R"(system s {
    param n = 10;
    hardware {
      processor H;
      for k in 1..3 { processor P[k] { speed: k; } }
      link L (H, P[1..3]) { kind: bus; bandwidth: 10; latency: 0.1; }
    }
    application {
      map(3) M { input: H; output: H; output_size: const(3); split: n;
                 task W { work: const(part); size: const(part); } }
    }
    mapping { for k in 1..3 { W[k] on P[k]; } }
  })";
  const double period = 1.3 + 4 + 0.6;
  const api::Model model = testing::loadModelText(text, ".hdl");
  api::SimulationSettings settings;
  settings.delays = sim::Delays::Constant;
  const api::Simulation s = api::simulate(model, settings);
  REQUIRE(s.deterministic);
  CHECK(s.deterministic->periodic);
  const std::optional<api::SweepValue> x =
      api::lookupMetric(s.summary.tree, "application.throughput");
  REQUIRE(x);
  CHECK(x->value == doctest::Approx(1 / period).epsilon(1e-12));
  const std::optional<api::SweepValue> w3 =
      api::lookupMetric(s.summary.tree, "tasks.W[3].utilization");
  REQUIRE(w3);
  CHECK(w3->value == doctest::Approx(1.0 / period).epsilon(1e-12));  // 3 / speed 3

  // Its bound is exactly that: the slowest worker plus the scatter and the gather.
  auto compiled = testing::compileText(text);
  const auto bound =
      compiler::throughputBound(compiled->compiled.system, compiled->compiled.routing);
  REQUIRE(bound);
  CHECK(*bound == doctest::Approx(1 / period).epsilon(1e-12));
  const auto b = compiler::bottleneck(compiled->compiled.system, compiled->compiled.routing);
  REQUIRE(b);
  REQUIRE(b->elements.size() == 1);
  CHECK((b->elements.front().kind == compiler::BoundElement::Kind::Map));
  CHECK(b->elements.front().name == "M");
}

TEST_CASE("maps nest: a map of maps is one map, a map of farms scatters to a replica of each") {
  auto nested = [](const std::string& workers, const std::string& placement) {
    return "system s { hardware { processor H; for k in 1..4 { processor X[k]; } link L (H, "
           "X[1..4]) { kind: bus; } }\n application { pipeline Q { task S { work: 0.1; size: 0; "
           "} " +
           workers + " task C { work: 0.1; size: 0; } } }\n mapping { S, C on H; " + placement +
           " } }";
  };
  const std::string four = "W[1] on X[1]; W[2] on X[2]; W[3] on X[3]; W[4] on X[4];";
  const std::string twoByTwo =
      "W[1][1] on X[1]; W[1][2] on X[2]; W[2][1] on X[3]; W[2][2] on X[4];";
  std::size_t flatStates = 0, nestedStates = 0;
  const auto flat = solveText(nested("map(4) M { task W { size: 0; } }", four), &flatStates);
  const auto inner =
      solveText(nested("map(2) M { map(2) N { task W { size: 0; } } }", twoByTwo), &nestedStates);
  CHECK(nestedStates == flatStates);
  CHECK(inner.application.throughput ==
        doctest::Approx(flat.application.throughput).epsilon(1e-12));
  CHECK(inner.application.responseTime.value() ==
        doctest::Approx(flat.application.responseTime.value()).epsilon(1e-12));

  // A map of two farms of two: four ways in (one replica of each farm), four out; each
  // item is one partition in each farm, so every worker processes half the items.
  auto compiled =
      testing::compileText(nested("map(2) M { farm(2) F { task W { size: 0; } } }", twoByTwo));
  const auto& moves = compiled->compiled.routing.moves.front();
  std::vector<std::string> names;
  for (const compiler::Move& move : moves)
    for (const compiler::Transfer& t : move.transfers) names.push_back(t.name);
  CHECK(std::count(names.begin(), names.end(), "S->W[1][2]+W[2][1]") == 1);
  CHECK(std::count(names.begin(), names.end(), "W[1][1]+W[2][2]->C") == 1);
  const auto farms = solveText(nested("map(2) M { farm(2) F { task W { size: 0; } } }", twoByTwo));
  double perWorker = 0;
  for (const char* w : {"W[1][1]", "W[1][2]"}) perWorker += named(farms.tasks, w).throughput;
  CHECK(perWorker == doctest::Approx(farms.application.throughput).epsilon(1e-10));
}

TEST_CASE("sizes given per worker: 'replica' is the worker's position") {
  // Work 1, 2, 3 on equal processors with constant delays: the item takes the slowest, 3.
  const std::string text = R"(system s {
    hardware { for k in 1..3 { processor P[k]; } }
    application { map(3) M { task W { work: const(replica); size: 0; } } }
    mapping { for k in 1..3 { W[k] on P[k]; } }
  })";
  const api::Model model = testing::loadModelText(text, ".hdl");
  api::SimulationSettings settings;
  settings.delays = sim::Delays::Constant;
  const api::Simulation s = api::simulate(model, settings);
  REQUIRE(s.deterministic);
  const std::optional<api::SweepValue> x =
      api::lookupMetric(s.summary.tree, "application.throughput");
  REQUIRE(x);
  CHECK(x->value == doctest::Approx(1.0 / 3).epsilon(1e-12));
  const std::optional<api::SweepValue> w2 =
      api::lookupMetric(s.summary.tree, "tasks.W[2].utilization");
  REQUIRE(w2);
  CHECK(w2->value == doctest::Approx(2.0 / 3).epsilon(1e-12));
}

TEST_CASE("map mistakes are reported at their place") {
  const std::string few = compileErrors(R"(system s {
    hardware { processor P; }
    application { map(4) M { split: 3; task W { work: part; } } }
    mapping { W[1..4] on P; }
  })");
  CHECK(few.find("'split' of map(n) 'M' must be a whole number of elements, at least one per "
                 "replica (4), not 3") != std::string::npos);

  const std::string unsplit = compileErrors(R"(system s {
    hardware { processor P; }
    application { map(2) M { task W { work: part; } } }
    mapping { W[1..2] on P; }
  })");
  CHECK(unsplit.find("'work' of task 'W[1]' must be a number, not the word 'part' (no parameter "
                     "has that name)") != std::string::npos);

  const std::string clash = compileErrors(R"(system s {
    param part = 2;
    hardware { processor P; }
    application { map(2) M { split: 8; task W { work: part; } } }
    mapping { W[1..2] on P; }
  })");
  CHECK(clash.find("rename the parameter 'part'") != std::string::npos);

  const std::string position = compileErrors(R"(system s {
    param replica = 2;
    hardware { processor P; }
    application { map(2) M { task W; } }
    mapping { W[1..2] on P; }
  })");
  CHECK(position.find("rename the parameter 'replica'") != std::string::npos);

  const std::string inner = compileErrors(R"(system s {
    hardware { processor P; }
    application { pipeline Q { task A; map(2) M { split: 8; input: P; task W; } } }
    mapping { A on P; W[1..2] on P; }
  })");
  CHECK(inner.find("unknown property 'input' of map 'M'") != std::string::npos);
}
