// The whole pipeline (parse → compile → explore → solve → metrics) against truths that do
// not come from mmt: hand-enumerated state counts, exact invariants of the fork-join model,
// a sequential chain's cycle time, and mean-value analysis of a closed cyclic network.
#include <doctest/doctest.h>

#include "compile_helpers.hpp"

using namespace mmt;
using testing::compileText;
using testing::named;
using testing::readExample;

TEST_CASE("fork-join (E1): state space and the exact invariants of the model") {
  auto model = compileText(readExample("forkjoin.hdl"));
  for (solver::Method method : {solver::Method::LU, solver::Method::GaussSeidel}) {
    CAPTURE(solver::toString(method));
    auto solved = testing::solve(model->compiled.net, method);
    // Hand enumeration: A1 running; 16 combinations of the two branches (message waiting
    // or transferring, actor running, result message waiting or transferring, done) that
    // the link conflicts allow; A4 running.
    CHECK(solved.graph.stateCount() == 18);
    const auto m = compiler::computeMetrics(model->compiled, *solved.measures);
    const double x = m.application.throughput;
    CHECK(x > 0);
    CHECK(*m.application.responseTime == doctest::Approx(1 / x).epsilon(1e-12));
    // Each actor's processor is otherwise idle, so its response time is its demand.
    CHECK(named(m.actors, "A1").responseTime == doctest::Approx(4).epsilon(1e-9));
    CHECK(named(m.actors, "A2").responseTime == doctest::Approx(1).epsilon(1e-9));
    CHECK(named(m.actors, "A3").responseTime == doctest::Approx(1).epsilon(1e-9));
    CHECK(named(m.actors, "A4").responseTime == doctest::Approx(8).epsilon(1e-9));
    for (const auto& a : m.actors) CHECK(a.throughput == doctest::Approx(x).epsilon(1e-9));
    CHECK(named(m.actors, "A1").synchronizationDelay == 0.0);
    CHECK(named(m.actors, "A4").synchronizationDelay > 0.0);
    // Utilization law: U = X · demand / speed.
    CHECK(named(m.processors, "P1").utilization == doctest::Approx(4 * x).epsilon(1e-9));
    CHECK(named(m.processors, "P2").utilization == doctest::Approx(1 * x).epsilon(1e-9));
    CHECK(named(m.processors, "P3").utilization == doctest::Approx(1 * x).epsilon(1e-9));
    CHECK(named(m.processors, "P4").utilization == doctest::Approx(8 * x).epsilon(1e-9));
    // Every link carries two 10-unit messages per iteration at bandwidth 1.
    for (const auto& l : m.links) {
      CAPTURE(l.name);
      CHECK(l.utilization == doctest::Approx(20 * x).epsilon(1e-9));
      CHECK(l.throughput == doctest::Approx(2 * x).epsilon(1e-9));
      CHECK(l.queueLength >= l.utilization - 1e-12);
      CHECK(l.responseTime >= 10.0 - 1e-9);  // at least the transfer time
    }
    for (const auto& p : m.processors) CHECK(p.queueLength >= p.utilization - 1e-12);
    // A message's response time is at least its transfer time (10).
    CHECK(named(m.messages, "D1->A2").responseTime >= 10 - 1e-9);
    CHECK(named(m.messages, "A1->D1").responseTime == 0.0);
  }
}

namespace {
const char* kChain = R"(
system chain {
  hardware {
    processor P1 { speed: 2; }
    processor P2;
    link L (P1, P2) { bandwidth: 2; latency: 0.5; }
  }
  application {
    actor A { demand: 1; }   // 1 / speed 2 = 0.5
    actor B { demand: 3; }
    data D;
    A -> D { size: 3; }      // local write
    D -> B { size: 3; }      // 0.5 + 3 / 2 = 2
  }
  mapping { A, D on P1; B on P2; }
  workload: closed(K);
}
)";
std::string chain(int k) {
  std::string text = kChain;
  text.replace(text.find("K)"), 1, std::to_string(k));
  return text;
}
}  // namespace

TEST_CASE("a sequential chain with closed(1): the cycle time is the sum of the means") {
  auto model = compileText(chain(1));
  auto solved = testing::solveBoth(model->compiled.net);
  const auto m = compiler::computeMetrics(model->compiled, *solved.measures);
  const double cycle = 0.5 + 2.0 + 3.0;
  CHECK(*m.application.responseTime == doctest::Approx(cycle).epsilon(1e-12));
  CHECK(named(m.processors, "P1").utilization == doctest::Approx(0.5 / cycle).epsilon(1e-12));
  CHECK(named(m.links, "L").utilization == doctest::Approx(2.0 / cycle).epsilon(1e-12));
  CHECK(named(m.messages, "D->B").responseTime == doctest::Approx(2.0).epsilon(1e-12));
  CHECK(named(m.actors, "B").responseTime == doctest::Approx(3.0).epsilon(1e-12));
}

TEST_CASE("the same chain with closed(k) is a closed cyclic network: MVA gives X exactly") {
  const double demand[3] = {0.5, 2.0, 3.0};  // P1, the link, P2: single-server stations
  for (int k = 1; k <= 4; ++k) {
    CAPTURE(k);
    // Exact mean-value analysis (Reiser & Lavenberg 1980).
    double queue[3] = {0, 0, 0}, x = 0;
    for (int n = 1; n <= k; ++n) {
      double r[3], total = 0;
      for (int i = 0; i < 3; ++i) total += r[i] = demand[i] * (1 + queue[i]);
      x = n / total;
      for (int i = 0; i < 3; ++i) queue[i] = x * r[i];
    }
    auto model = compileText(chain(k));
    auto solved = testing::solveBoth(model->compiled.net);
    const auto m = compiler::computeMetrics(model->compiled, *solved.measures);
    CHECK(m.application.throughput == doctest::Approx(x).epsilon(1e-10));
    CHECK(named(m.processors, "P1").queueLength == doctest::Approx(queue[0]).epsilon(1e-10));
    CHECK(named(m.links, "L").queueLength == doctest::Approx(queue[1]).epsilon(1e-10));
    CHECK(named(m.processors, "P2").queueLength == doctest::Approx(queue[2]).epsilon(1e-10));
    CHECK(*m.application.responseTime == doctest::Approx(k / x).epsilon(1e-10));
  }
}
