// Known answers on raw nets written as .gspn text: closed forms, product form, Molloy's
// published distribution, vanishing cycles, and the three ways a chain can be unsolvable.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "gspn/measure_source.hpp"
#include "gspn/net.hpp"
#include "solve_helpers.hpp"

using namespace mmt;
using mmt::testing::loadGspnText;
using mmt::testing::solveBoth;

namespace {

gspn::PlaceId place(const gspn::Net& net, const std::string& name) {
  const auto p = net.findPlace(name);
  REQUIRE_MESSAGE(p, name);
  return *p;
}

gspn::TransitionId transition(const gspn::Net& net, const std::string& name) {
  const auto t = net.findTransition(name);
  REQUIRE_MESSAGE(t, name);
  return *t;
}

/// `text` with every '#' replaced by `name` (a net repeated per replica).
std::string replica(std::string text, const std::string& name) {
  for (std::size_t at = text.find('#'); at != std::string::npos;
       at = text.find('#', at + name.size()))
    text.replace(at, 1, name);
  return text;
}

}  // namespace

TEST_CASE("M/M/1/K matches the closed form for K = 1..10") {
  const double lambda = 0.7, mu = 1.3, rho = lambda / mu;
  for (std::uint32_t k = 1; k <= 10; ++k) {
    CAPTURE(k);
    const gspn::Net net =
        loadGspnText("place queue; timed arrive rate 0.7 out queue inhibit queue * " +
                     std::to_string(k) + "; timed serve rate 1.3 in queue;");
    auto s = solveBoth(net);
    CHECK(s.graph.stateCount() == k + 1);
    // p_n = ρ^n (1 − ρ) / (1 − ρ^{K+1})  (Kleinrock, Queueing Systems I, §3.6)
    double norm = (1 - rho) / (1 - std::pow(rho, k + 1)), mean = 0;
    for (std::uint32_t n = 0; n <= k; ++n) mean += n * std::pow(rho, n) * norm;
    CHECK(s.measures->meanTokens(place(net, "queue")) == doctest::Approx(mean).epsilon(1e-12));
    CHECK(s.measures->throughput(transition(net, "serve")) ==
          doctest::Approx(mu * (1 - norm)).epsilon(1e-12));
    CHECK(s.measures->throughput(transition(net, "arrive")) ==
          doctest::Approx(mu * (1 - norm)).epsilon(1e-12));
  }
}

TEST_CASE("closed cyclic network of three exponential stations has the product form") {
  const double mu[3] = {1.0, 2.0, 3.0};
  const std::uint32_t jobs = 5;
  const gspn::Net net = loadGspnText(
      "place Q0 = 5; place Q1; place Q2;\n"
      "timed serve0 rate 1 in Q0 out Q1; timed serve1 rate 2 in Q1 out Q2;\n"
      "timed serve2 rate 3 in Q2 out Q0;\n");
  auto s = solveBoth(net);
  CHECK(s.graph.stateCount() == 21);  // C(5 + 2, 2)
  // Gordon–Newell: p(n) ∝ Π_i (1/μ_i)^{n_i}; enumerate to get the exact means.
  double g = 0, mean[3] = {0, 0, 0};
  for (std::uint32_t a = 0; a <= jobs; ++a)
    for (std::uint32_t c = 0; a + c <= jobs; ++c) {
      std::uint32_t n[3] = {a, c, jobs - a - c};
      double w = 1;
      for (int i = 0; i < 3; ++i) w *= std::pow(1 / mu[i], n[i]);
      g += w;
      for (int i = 0; i < 3; ++i) mean[i] += w * n[i];
    }
  for (int i = 0; i < 3; ++i)
    CHECK(s.measures->meanTokens(place(net, "Q" + std::to_string(i))) ==
          doctest::Approx(mean[i] / g).epsilon(1e-12));
}

TEST_CASE("Molloy's net has 5 tangible markings with the published distribution") {
  const gspn::Net net = loadGspnText(
      "place p0 = 1; place p1; place p2; place p3; place p4;\n"
      "timed t0 rate 1 in p0 out p1, p2; timed t1 rate 3 in p1 out p3;\n"
      "timed t2 rate 7 in p2 out p4; timed t3 rate 9 in p3 out p1;\n"
      "timed t4 rate 5 in p3, p4 out p0;\n");
  auto s = solveBoth(net);
  CHECK(s.graph.stateCount() == 5);
  // SPNP manual: markings p0, p1+p2, p2+p3, p1+p4, p3+p4.
  CHECK(s.probability({1, 0, 0, 0, 0}) == doctest::Approx(0.4497294860).epsilon(1e-9));
  CHECK(s.probability({0, 1, 1, 0, 0}) == doctest::Approx(0.0541027953).epsilon(1e-9));
  CHECK(s.probability({0, 0, 1, 1, 0}) == doctest::Approx(0.0101442741).epsilon(1e-9));
  CHECK(s.probability({0, 1, 0, 0, 1}) == doctest::Approx(0.3960775473).epsilon(1e-9));
  CHECK(s.probability({0, 0, 0, 1, 1}) == doctest::Approx(0.0899458972).epsilon(1e-9));
}

TEST_CASE("a vanishing cycle that can be left is solved, with immediate throughputs") {
  // A -t(λ)-> B -u1-> C; from C (weights 1:1:1) u2 back to B, x1 to A, x2 to D; D -d(μ)-> A.
  // From B the walk visits C a geometric number of times with mean 3/2, so per firing of t:
  // u1 fires 3/2, u2 1/2, x1 1/2, x2 1/2 times; the CTMC is A -λ/2-> D -μ-> A.
  const double lambda = 2.0, mu = 5.0;
  const gspn::Net net = loadGspnText(
      "place A = 1; place B; place C; place D;\n"
      "timed t rate 2 in A out B; immediate u1 in B out C; immediate u2 in C out B;\n"
      "immediate x1 in C out A; immediate x2 in C out D; timed d rate 5 in D out A;\n");
  auto s = solveBoth(net);
  CHECK(s.graph.stateCount() == 2);
  CHECK(s.graph.vanishingCount == 2);
  const double piA = mu / (mu + lambda / 2);
  CHECK(s.measures->meanTokens(place(net, "A")) == doctest::Approx(piA).epsilon(1e-12));
  const double xt = piA * lambda;
  const auto throughput = [&](const char* name) {
    return s.measures->throughput(transition(net, name));
  };
  CHECK(throughput("t") == doctest::Approx(xt).epsilon(1e-12));
  CHECK(throughput("u1") == doctest::Approx(1.5 * xt).epsilon(1e-12));
  CHECK(throughput("u2") == doctest::Approx(0.5 * xt).epsilon(1e-12));
  CHECK(throughput("x1") == doctest::Approx(0.5 * xt).epsilon(1e-12));
  CHECK(throughput("x2") == doctest::Approx(0.5 * xt).epsilon(1e-12));
  CHECK(throughput("d") == doctest::Approx(0.5 * xt).epsilon(1e-12));
}

TEST_CASE("immediate priorities and weights split the flow") {
  // After t: hi (priority 2) always beats lo; then a 1:3 weighted choice between a and c.
  const gspn::Net net = loadGspnText(
      "place P = 1; place Q; place R; place A; place C;\n"
      "timed t rate 1 in P out Q;\n"
      "immediate lo weight 100 in Q out P; immediate hi priority 2 in Q out R;\n"
      "immediate a in R out A; immediate c weight 3 in R out C;\n"
      "timed backA rate 1 in A out P; timed backC rate 1 in C out P;\n");
  auto s = solveBoth(net);
  const auto throughput = [&](const char* name) {
    return s.measures->throughput(transition(net, name));
  };
  CHECK(throughput("lo") == 0.0);
  CHECK(throughput("a") * 3 == doctest::Approx(throughput("c")).epsilon(1e-12));
  CHECK(throughput("hi") == doctest::Approx(throughput("t")).epsilon(1e-12));
}

TEST_CASE("immediate weights near the largest double keep their 1:3 ratio") {
  // 4e307 + 1.2e308 overflows to infinity, which would lose the probability mass. Weights are taken
  // relative to the largest enabled one: P(a) = 1/4, P(c) = 3/4.
  const gspn::Net net = loadGspnText(
      "place P = 1; place Q; place A; place C;\n"
      "timed t rate 1 in P out Q;\n"
      "immediate a weight 4e307 in Q out A; immediate c weight 1.2e308 in Q out C;\n"
      "timed backA rate 1 in A out P; timed backC rate 1 in C out P;\n");
  auto s = solveBoth(net);
  // Cycle: P (mean 1) then A or C (mean 1): X(t) = 1/2, split 1:3.
  CHECK(s.measures->throughput(transition(net, "a")) == doctest::Approx(0.125).epsilon(1e-12));
  CHECK(s.measures->throughput(transition(net, "c")) == doctest::Approx(0.375).epsilon(1e-12));
}

TEST_CASE("a timeless trap is an error naming its transitions") {
  auto result = gspn::exploreTangible(
      loadGspnText("place A = 1; place B; place C;\n"
                   "timed t rate 1 in A out B; immediate u in B out C; immediate v in C out B;\n"));
  CHECK(result.status == gspn::ExplorationResult::Status::TimelessTrap);
  CHECK(result.message.find("{u, v}") != std::string::npos);
}

TEST_CASE("an unbounded net stops at the state limit and names the growing place") {
  gspn::ExplorationSettings settings;
  settings.maxStates = 100;
  auto result = gspn::exploreTangible(loadGspnText("place P; timed t rate 1 out P;"), settings);
  CHECK(result.status == gspn::ExplorationResult::Status::StateLimit);
  CHECK(result.message.find("place 'P'") != std::string::npos);
}

TEST_CASE("a deadlocking net is an error naming the dead marking") {
  const gspn::Net net = loadGspnText("place A = 1; place B; timed t rate 1 in A out B;");
  auto explored = gspn::exploreTangible(net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  auto structure = solver::analyzeStructure(net, explored.graph);
  CHECK(structure.kind == solver::ChainStructure::Kind::Deadlock);
  CHECK(structure.message.find("{B=1}") != std::string::npos);
}

TEST_CASE("a reducible net: transient states are dropped, two bottom components are an error") {
  SUBCASE("one bottom component after a transient state") {
    const gspn::Net net = loadGspnText(
        "place A = 1; place B; place C;\n"
        "timed t0 rate 1 in A out B; timed t1 rate 2 in B out C; timed t2 rate 3 in C out B;\n");
    auto s = solveBoth(net);
    CHECK(s.structure.transientCount == 1);
    CHECK(s.measures->meanTokens(place(net, "A")) == 0.0);
    CHECK(s.measures->meanTokens(place(net, "B")) == doctest::Approx(0.6).epsilon(1e-12));
    CHECK(s.measures->meanTokens(place(net, "C")) == doctest::Approx(0.4).epsilon(1e-12));
  }
  SUBCASE("two bottom components") {
    std::string text = "place A = 1;\n";
    for (const char* side : {"L", "R"})
      text += replica(
          "place #1; place #2; timed go# rate 1 in A out #1;\n"
          "timed f# rate 1 in #1 out #2; timed g# rate 1 in #2 out #1;\n",
          side);
    const gspn::Net net = loadGspnText(text);
    auto explored = gspn::exploreTangible(net);
    auto structure = solver::analyzeStructure(net, explored.graph);
    CHECK(structure.kind == solver::ChainStructure::Kind::MultipleBottomComponents);
    CHECK(structure.bottomComponentCount == 2);
  }
}

TEST_CASE("a birth-death chain with a rate per state: stored wide past 65,536 distinct rates") {
  // λ(k) = 1 + 1/(k + 1) up to K, μ = 2: K + 1 states, every up-rate distinct, so past
  // 65,535 the compact form cannot hold the rates and pass 2 runs again storing them
  // wide. Every stored rate must be the one the expression gives, in either form.
  for (const std::uint32_t k : {1'000u, 70'000u}) {
    CAPTURE(k);
    const std::string text = "place n; timed up rate 1 + 1 / (#n + 1) out n inhibit n * " +
                             std::to_string(k) +
                             "; timed down rate 2 in n; measure L = mean(2 * #n - #n / 4 + 3);";
    const gspn::Net net = loadGspnText(text);
    const gspn::ExplorationResult explored = gspn::exploreTangible(net);
    REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
    const auto& g = explored.graph;
    REQUIRE(g.stateCount() == k + 1);
    // Packed (source and rate number in one word) for K = 1,000, wide past 65,536 rates.
    CHECK(g.bytesPerEdge == (k < 65'536 ? 4u : 12u));
    CHECK(g.rate.compact() == (k < 65'536));
    REQUIRE(g.edgeCount() == 2 * std::size_t{k});
    std::size_t wrong = 0;
    for (std::uint32_t j = 0; j <= k; ++j)
      for (std::int32_t e = g.inOffset[j]; e < g.inOffset[j + 1]; ++e) {
        const std::uint32_t i = g.sourceOf(std::size_t(e));
        const gspn::Tokens from = g.marking(i)[0], to = g.marking(j)[0];
        const double expected = to == from + 1 ? 1 + 1 / (from + 1.0) : 2.0;
        wrong += (to != from + 1 && to + 1 != from) || g.rateOf(std::size_t(e)) != expected;
      }
    CHECK(wrong == 0);
  }
  // The solution, against π_k ∝ Π_{i<k} λ(i)/μ = (k + 1)/2^k (Kleinrock, Queueing Systems
  // I, §3.1), so E[n] = 2 for a long chain.
  const gspn::Net net = loadGspnText(
      "place n; timed up rate 1 + 1 / (#n + 1) out n inhibit n * 1000; timed down rate 2 in n;"
      "measure L = mean(2 * #n - #n / 4 + 3);");
  auto s = mmt::testing::solve(net, solver::Method::LU);
  CHECK(s.measures->meanTokens(0) == doctest::Approx(2).epsilon(1e-12));
  CHECK(s.result.pi[0] == doctest::Approx(0.25).epsilon(1e-12));
  CHECK(gspn::evaluateMeasures(net, *s.measures)[0] ==
        doctest::Approx(1.75 * 2 + 3).epsilon(1e-12));
}

TEST_CASE("the backward search finds the states that reach the seeds, by passes and by a list") {
  // Two chains of a cycle and an exit: A → B → A, then B → C → D (D absorbing), 12 tokens
  // each, so that many states do not reach a given one.
  std::string text;
  for (const char* c : {"1", "2"})
    text += replica(
        "place A#=12; place B#; place C#; place D#;\n"
        "timed ab# rate 1 in A# out B#; timed ba# rate 2 in B# out A#;\n"
        "timed bc# rate 0.5 in B# out C#; timed cd# rate 3 in C# out D#;\n",
        c);
  const gspn::Net net = loadGspnText(text);
  auto explored = gspn::exploreTangible(net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  const gspn::TangibleReachabilityGraph& g = explored.graph;
  const std::size_t n = g.stateCount();
  REQUIRE(n > 10'000);

  // The reference: a plain one-core search along the same edges.
  auto reference = [&](std::vector<std::uint32_t> seeds) {
    std::vector<char> seen(n, 0);
    std::vector<std::uint32_t> queue;
    auto visit = [&](std::uint32_t s) {
      if (seen[s]) return;
      seen[s] = 1;
      queue.push_back(s);
    };
    for (std::uint32_t s : seeds) visit(s);
    for (std::size_t h = 0; h < queue.size(); ++h)
      for (std::int32_t k = g.inOffset[queue[h]]; k < g.inOffset[queue[h] + 1]; ++k)
        visit(g.sourceOf(std::size_t(k)));
    std::sort(queue.begin(), queue.end());
    return queue;
  };
  for (const std::vector<std::uint32_t>& seeds :
       {std::vector<std::uint32_t>{std::uint32_t(n - 1)},
        {std::uint32_t(n / 2)},
        {std::uint32_t(n / 3), std::uint32_t(n / 3), 0}}) {
    const std::vector<std::uint32_t> expected = reference(seeds);
    // The last state explored has every token in D: every state reaches it, and not the
    // others.
    CHECK((expected.size() == n) == (seeds[0] == n - 1));
    // The list alone (no pass), one pass and then the list, passes alone, the default.
    for (std::size_t passes : {std::size_t(0), std::size_t(1), n, std::size_t(64)}) {
      CAPTURE(passes);
      CHECK(solver::reachingAny(g, seeds, passes) == expected);
    }
  }
}
