// Skeletons (docs/language.md, "Skeletons"): pipeline, farm and deal against chains built
// here by hand from their definitions ([Benoit05]'s PEPA pipeline, a farm as a multi-server
// queue, a deal's round-robin), not from mmt's templates; each chain is solved with Eigen's
// dense LU, not with mmt's solvers.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "chain_helpers.hpp"
#include "compile_helpers.hpp"
#include "compiler/bounds.hpp"

using namespace mmt;
using testing::Chain;
using testing::compileErrors;
using testing::named;
using testing::solveChain;
using testing::solveText;
using testing::State;

namespace {

/// [Benoit05]'s pipeline as PEPA defines it: stage i is 0 (waiting for move_i), 1
/// (processing at μ_i) or 2 (waiting for move_{i+1}); move_i at λ_i needs stage i−1 in 2
/// and stage i in 0 (move_1 only stage 1 in 0, move_{N+1} only stage N in 2). Returns the
/// throughput λ_{N+1} · P(stage N in 2) and the number of states and transitions.
struct PepaPipeline {
  double throughput;
  std::size_t states, transitions;
};
PepaPipeline pepaPipeline(const std::vector<double>& mu, const std::vector<double>& lambda) {
  const std::size_t n = mu.size();
  std::size_t transitions = 0;
  auto next = [&](const State& s) {
    std::vector<std::pair<State, double>> out;
    if (s[0] == 0) out.push_back({State(s), lambda[0]}), out.back().first[0] = 1;
    for (std::size_t i = 0; i < n; ++i) {
      if (s[i] == 1) out.push_back({State(s), mu[i]}), out.back().first[i] = 2;
      if (s[i] == 2 && i + 1 < n && s[i + 1] == 0) {
        State t = s;
        t[i] = 0;
        t[i + 1] = 1;
        out.push_back({t, lambda[i + 1]});
      }
    }
    if (s[n - 1] == 2) out.push_back({State(s), lambda[n]}), out.back().first[n - 1] = 0;
    transitions += out.size();
    return out;
  };
  Chain c = solveChain(State(n, 0), next);
  const double x = lambda[n] * c.expect([&](const State& s) { return s[n - 1] == 2 ? 1.0 : 0.0; });
  return {x, c.states.size(), transitions};
}

/// E4's system with processors of speeds cp and links of rates nl, and the given mapping.
std::string pipeline3(const std::vector<double>& cp, double nl12, double nl23, double nl13,
                      const std::vector<int>& on) {
  auto n = [](double x) { return std::to_string(x); };
  std::string text = "system p {\n hardware {\n";
  for (int j = 0; j < 3; ++j)
    text += "  processor P" + std::to_string(j + 1) + " { speed: " + n(cp[std::size_t(j)]) +
            "; local_bandwidth: 10000; }\n";
  text += "  link L12 (P1, P2) { bandwidth: " + n(nl12) + "; }\n";
  text += "  link L23 (P2, P3) { bandwidth: " + n(nl23) + "; }\n";
  text += "  link L13 (P1, P3) { bandwidth: " + n(nl13) + "; }\n }\n";
  text +=
      " application { pipeline Pipe { input: P1; output: local; task S1; task S2; task S3; } }\n";
  text += " mapping {";
  for (int i = 0; i < 3; ++i)
    text += " S" + std::to_string(i + 1) + " on P" + std::to_string(on[std::size_t(i)]) + ";";
  return text + " }\n}\n";
}

}  // namespace

TEST_CASE("a 3-stage pipeline is Benoit et al.'s PEPA model: 27 markings, 51 transitions") {
  // E4's first parameter set on mapping (1, 2, 3): μ_i = 10, every λ = 10000.
  std::size_t states = 0;
  const auto m = solveText(pipeline3({10, 10, 10}, 10000, 10000, 10000, {1, 2, 3}), &states);
  const PepaPipeline pepa = pepaPipeline({10, 10, 10}, {10000, 10000, 10000, 10000});
  CHECK(states == 27);
  CHECK(pepa.states == 27);
  CHECK(pepa.transitions == 51);
  auto model = testing::compileText(pipeline3({10, 10, 10}, 10000, 10000, 10000, {1, 2, 3}));
  CHECK(testing::solve(model->compiled.net, solver::Method::LU).graph.edgeCount() == 51);
  CHECK(m.application.throughput == doctest::Approx(pepa.throughput).epsilon(1e-10));
  CHECK(named(m.skeletons, "Pipe").throughput == doctest::Approx(pepa.throughput).epsilon(1e-10));
}

TEST_CASE("pipeline mappings: static sharing, link rates and the local rate (Benoit's μ and λ)") {
  struct Case {
    std::vector<double> cp;
    double nl12, nl23, nl13;
    std::vector<int> on;
    std::vector<double> mu, lambda;  // what Benoit's formulas give for this mapping
  };
  const std::vector<Case> cases = {
      // Two stages share P1: μ = cp1 / 2 each; S2 -> S3 crosses L13.
      {{10, 10, 1}, 10, 1, 3, {1, 1, 3}, {5, 5, 1}, {10000, 10000, 3, 10000}},
      // S1 on P1, S2 on P3, S3 on P2: input local, L13, L23, output local to P2.
      {{10, 4, 7}, 10, 2, 5, {1, 3, 2}, {10, 7, 4}, {10000, 5, 2, 10000}},
      // Everything on P2, whose local rate serves every move but the input from P1.
      {{1, 9, 1}, 8, 1, 1, {2, 2, 2}, {3, 3, 3}, {8, 10000, 10000, 10000}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.on[1]);
    CAPTURE(c.on[2]);
    const auto m = solveText(pipeline3(c.cp, c.nl12, c.nl23, c.nl13, c.on));
    const PepaPipeline pepa = pepaPipeline(c.mu, c.lambda);
    CHECK(m.application.throughput == doctest::Approx(pepa.throughput).epsilon(1e-9));
  }
}

TEST_CASE("a single stage and a 2-stage pipeline against their chains") {
  // One task, input over a link (λ = 1 / (size / bandwidth) = 2), processing μ = 3,
  // output none: the cycle idle → busy → idle, X = 1 / (1/2 + 1/3) = 1.2.
  const auto one = solveText(R"(system s {
    hardware { processor P0; processor P1 { speed: 3; } link L (P0, P1) { bandwidth: 4; } }
    application { task T { size: 2; input: P0; } }
    mapping { T on P1; }
  })");
  CHECK(one.application.throughput == doctest::Approx(1.2).epsilon(1e-12));
  CHECK(named(one.tasks, "T").utilization == doctest::Approx(1.2 / 3).epsilon(1e-12));
  CHECK(named(one.processors, "P1").utilization == doctest::Approx(0.4).epsilon(1e-12));

  // Two stages with the first making its inputs and the last consuming them: the PEPA
  // chain with move_1 and move_3 instantaneous is the limit λ_1, λ_3 → ∞; 1e9 is close.
  const auto two = solveText(R"(system s {
    hardware { processor P1; processor P2 { speed: 3; } link L (P1, P2) { bandwidth: 2; } }
    application { pipeline Q { task A; task B { rate: 1; } } }
    mapping { A on P1; B on P2; }
  })");
  const PepaPipeline pepa = pepaPipeline({1, 3}, {1e9, 2, 1e9});
  CHECK(two.application.throughput == doctest::Approx(pepa.throughput).epsilon(1e-6));
  // A blocks while B is busy: its blocking time is the mean wait of a finished item.
  const auto& a = named(two.tasks, "A");
  CHECK(a.blockingTime == doctest::Approx(a.blocked / a.throughput).epsilon(1e-12));
  CHECK(a.utilization + a.blocked == doctest::Approx(1).epsilon(1e-9));
}

TEST_CASE("a farm of n workers with instantaneous transfers is the M/M/n/n+1 queue") {
  // Src makes items at λ; a finished item waits in Src (blocking it) until a worker is
  // free. Workers k busy: birth λ while k ≤ n (k = n + 1: Src blocked), death min(k, n) μ.
  const double lambda = 2, mu = 0.75;
  for (int n : {1, 2, 3, 5}) {
    CAPTURE(n);
    std::string text = R"(system f {
      hardware { for i in 0..N { processor P[i]; } link Net (P[0..N]) { kind: bus; } }
      application { pipeline Q { task Src { rate: 2; } farm(N) F { task W { rate: 0.75; size: 0; } } } }
      mapping { Src on P[0]; for i in 1..N { W[i] on P[i]; } }
    })";
    text = "system f { param N = " + std::to_string(n) + ";" + text.substr(text.find('{') + 1);
    const auto m = solveText(text);
    std::vector<double> p{1.0};
    for (int k = 1; k <= n + 1; ++k) p.push_back(p.back() * lambda / (std::min(k, n) * mu));
    double total = 0;
    for (double x : p) total += x;
    const double throughput = lambda * (1 - p.back() / total);
    CHECK(m.application.throughput == doctest::Approx(throughput).epsilon(1e-10));
    CHECK(named(m.tasks, "W[1]").throughput == doctest::Approx(throughput / n).epsilon(1e-9));
  }
}

TEST_CASE("a deal of 2 against its round-robin chain, and farm beats deal") {
  // State (src, w1, w2, turn): src 0 processing, 1 holding an item for worker `turn`.
  const double lambda = 3, mu = 1;
  auto next = [&](const State& s) {
    std::vector<std::pair<State, double>> out;
    auto deliver = [](State t) {  // the held item enters the worker whose turn it is
      if (t[0] == 1 && t[std::size_t(t[3])] == 0)
        t[std::size_t(t[3])] = 1, t[0] = 0, t[3] = 3 - t[3];
      return t;
    };
    if (s[0] == 0) {
      State t = s;
      t[0] = 1;
      out.push_back({deliver(t), lambda});
    }
    for (std::size_t w : {1u, 2u})
      if (s[w] == 1) {
        State t = s;
        t[w] = 0;
        out.push_back({deliver(t), mu});
      }
    return out;
  };
  Chain c = solveChain({0, 0, 0, 1}, next);
  const double deal = mu * c.expect([](const State& s) { return double(s[1] + s[2]); });
  auto system = [](const char* kind) {
    return std::string(R"(system d {
      hardware { for i in 0..2 { processor P[i]; } link Net (P[0..2]) { kind: bus; } }
      application { pipeline Q { task Src { rate: 3; } )") +
           kind +
           R"((2) D { task W { size: 0; } } } }
      mapping { Src on P[0]; W[1] on P[1]; W[2] on P[2]; }
    })";
  };
  const auto m = solveText(system("deal"));
  CHECK(m.application.throughput == doctest::Approx(deal).epsilon(1e-10));
  const auto farm = solveText(system("farm"));
  CHECK(farm.application.throughput > deal);
}

TEST_CASE("replicas are named by their position, outer replicas first") {
  auto model = testing::compileText(R"(system s {
    hardware { processor P; }
    application { farm(2) F { farm(3) G { task W; } } }
    mapping { W[1][1..3], W[2][1..3] on P; }
  })");
  const auto& tasks = model->compiled.system.tasks;
  REQUIRE(tasks.size() == 6);
  CHECK(tasks[0].name == "W[1][1]");
  CHECK(tasks[5].name == "W[2][3]");
  CHECK(model->compiled.system.skeletonNodes[1].name == "G[1]");
}

TEST_CASE("skeleton mistakes are reported at their place") {
  const std::string unmapped = compileErrors(R"(system s {
    hardware { processor P; }
    application { pipeline Q { task A; task B; } }
    mapping { A on P; }
  })");
  CHECK(unmapped.find("task 'B' is not mapped to a processor") != std::string::npos);
  CHECK(unmapped.find("mmt explore") != std::string::npos);

  const std::string fcfs = compileErrors(R"(system s {
    hardware { processor P { policy: fcfs; } }
    application { task A; }
    mapping { A on P; }
  })");
  CHECK(fcfs.find("skeleton tasks share a processor statically") != std::string::npos);

  const std::string workers = compileErrors(R"(system s {
    hardware { processor P; }
    application { farm(2) F { task A; task B; } }
  })");
  CHECK(workers.find("farm(n) 'F' has 2 workers; it replicates exactly one") != std::string::npos);

  const std::string input = compileErrors(R"(system s {
    hardware { processor P; }
    application { pipeline Q { input: Nowhere; task A; } }
    mapping { A on P; }
  })");
  CHECK(input.find("unknown name 'Nowhere'") != std::string::npos);

  const std::string inner = compileErrors(R"(system s {
    hardware { processor P; }
    application { pipeline Q { task A { input: P; } } }
    mapping { A on P; }
  })");
  CHECK(inner.find("unknown property 'input'") != std::string::npos);

  const std::string wide = compileErrors(R"(system s {
    hardware { processor P; }
    application { pipeline Q { task A; farm(2000) F { task W; } } }
    mapping { A on P; W[1..2000] on P; }
  })");
  CHECK(wide.find("2000 transfers (senders × receivers); mmt handles at most 1024") !=
        std::string::npos);

  const std::string both = compileErrors(R"(system s {
    hardware { processor P; }
    application { task A { work: 2; rate: 3; } }
    mapping { A on P; }
  })");
  CHECK(both.find("gives both 'work' and 'rate'") != std::string::npos);
}

TEST_CASE("replication study (E5): farm replication beats deal replication at every rate") {
  const std::string text = testing::readExample("replication.hdl");
  auto at = [&](int r, int variant) {
    std::string t = text;
    auto set = [&](const std::string& from, const std::string& to) {
      const auto p = t.find(from);
      REQUIRE(p != std::string::npos);
      t.replace(p, from.size(), to);
    };
    set("param r = 100;", "param r = " + std::to_string(r) + ";");
    set("param variant = 0;", "param variant = " + std::to_string(variant) + ";");
    return solveText(t).application.throughput;
  };
  for (int r : {100, 300, 500}) {
    CAPTURE(r);
    const double alone = at(r, 0), deal2 = at(r, 1), deal3 = at(r, 2), farm2 = at(r, 3),
                 farm3 = at(r, 4);
    CHECK(farm2 > deal2);
    CHECK(farm3 > deal3);
    CHECK(deal2 > alone);
    CHECK(farm3 > farm2);
    CHECK(farm3 < 150);  // three replicas at rate 50 bound it
  }
}

TEST_CASE("the published skeleton examples compile with their documented sizes") {
  std::size_t states = 0;
  solveText(testing::readExample("pipeline5.hdl"), &states);
  CHECK(states == 108);
  auto nested = testing::compileText(testing::readExample("nested_skeletons.hdl"));
  CHECK(nested->compiled.system.tasks.size() == 13);
  auto e4 = testing::compileErrors(testing::readExample("pipeline3.hdl"));
  CHECK(e4.find("task 'S2' is not mapped") != std::string::npos);
}

TEST_CASE(
    "bound-based estimate: the slowest stage, a farm of n as n workers (Alt 2002, GridCOMP)") {
  const std::string text = testing::readExample("farm.hdl");
  for (int n : {1, 2, 4, 7, 9}) {
    CAPTURE(n);
    std::string t = text;
    t.replace(t.find("param workers = 4;"), 18, "param workers = " + std::to_string(n) + ";");
    auto model = testing::compileText(t);
    // Emit and Collect share Host (rate 20 / 2 = 10 each); W at 1.5 each; moves at 100.
    const auto bound = compiler::throughputBound(model->compiled.system, model->compiled.routing);
    REQUIRE(bound);
    CHECK(*bound == doctest::Approx(std::min(10.0, 1.5 * n)).epsilon(1e-12));
    if (n <= 4) CHECK(solveText(t).application.throughput <= *bound);
  }
}

TEST_CASE("a pipeline's stages from 'for' and 'if': N stages by a parameter") {
  // The 3-stage pipeline written with a loop is Benoit's again: 27 tangible markings.
  std::size_t states = 0;
  const auto m = solveText(R"(system s {
    param N = 3;
    hardware { for j in 1..N { processor P[j] { local_bandwidth: 10000; } }
               link L12 (P[1], P[2]) { bandwidth: 10000; } link L23 (P[2], P[3]) { bandwidth: 10000; } }
    application { pipeline Q { input: local; output: local;
                               for i in 1..N { task S[i] { work: if(i == 2, 0.5, 1); } }
                               if N > 5 { task Never; } } }
    mapping { for i in 1..N { S[i] on P[i]; } }
  })",
                           &states);
  CHECK(states == 27);
  // Speed 1: μ = 1, 2 (work 0.5), 1; the input, the moves and the output at 10000.
  const PepaPipeline pepa = pepaPipeline({1, 2, 1}, {10000, 10000, 10000, 10000});
  CHECK(m.application.throughput == doctest::Approx(pepa.throughput).epsilon(1e-10));

  const std::string farm = compileErrors(R"(system s {
    hardware { processor P; }
    application { farm(2) F { for i in 1..2 { task W[i]; } } }
  })");
  CHECK(farm.find("only a pipeline's stages may come from 'for' or 'if'") != std::string::npos);
  const std::string empty = compileErrors(R"(system s {
    hardware { processor P; }
    application { pipeline Q { for i in 1..0 { task S[i]; } } }
  })");
  CHECK(empty.find("pipeline 'Q' has no stages") != std::string::npos);
}
