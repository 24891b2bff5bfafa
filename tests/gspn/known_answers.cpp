// Known answers on raw nets built with the builder: closed forms, product form, Molloy's
// published distribution, vanishing cycles, and the three ways a chain can be unsolvable.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "gspn/measure_source.hpp"
#include "gspn/net.hpp"
#include "solve_helpers.hpp"

using namespace mmt;
using mmt::testing::solveBoth;

TEST_CASE("M/M/1/K matches the closed form for K = 1..10") {
  const double lambda = 0.7, mu = 1.3, rho = lambda / mu;
  for (std::uint32_t k = 1; k <= 10; ++k) {
    CAPTURE(k);
    gspn::NetBuilder b("mm1k");
    auto queue = b.addPlace("queue");
    auto arrive = b.addTimed("arrive", lambda);
    b.addOutput(arrive, queue);
    b.addInhibitor(arrive, queue, k);
    auto serve = b.addTimed("serve", mu);
    b.addInput(serve, queue);
    gspn::Net net = b.freeze();
    auto s = solveBoth(net);
    CHECK(s.graph.stateCount() == k + 1);
    // p_n = ρ^n (1 − ρ) / (1 − ρ^{K+1})  (Kleinrock, Queueing Systems I, §3.6)
    double norm = (1 - rho) / (1 - std::pow(rho, k + 1)), mean = 0;
    for (std::uint32_t n = 0; n <= k; ++n) mean += n * std::pow(rho, n) * norm;
    CHECK(s.measures->meanTokens(queue) == doctest::Approx(mean).epsilon(1e-12));
    CHECK(s.measures->throughput(serve) == doctest::Approx(mu * (1 - norm)).epsilon(1e-12));
    CHECK(s.measures->throughput(arrive) == doctest::Approx(mu * (1 - norm)).epsilon(1e-12));
  }
}

TEST_CASE("closed cyclic network of three exponential stations has the product form") {
  const double mu[3] = {1.0, 2.0, 3.0};
  const std::uint32_t jobs = 5;
  gspn::NetBuilder b("cyclic");
  gspn::PlaceId q[3];
  for (int i = 0; i < 3; ++i) q[i] = b.addPlace("Q" + std::to_string(i), i == 0 ? jobs : 0);
  for (int i = 0; i < 3; ++i) {
    auto t = b.addTimed("serve" + std::to_string(i), mu[i]);
    b.addInput(t, q[i]);
    b.addOutput(t, q[(i + 1) % 3]);
  }
  gspn::Net net = b.freeze();
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
    CHECK(s.measures->meanTokens(q[i]) == doctest::Approx(mean[i] / g).epsilon(1e-12));
}

TEST_CASE("Molloy's net has 5 tangible markings with the published distribution") {
  gspn::NetBuilder b("molloy");
  gspn::PlaceId p[5];
  for (int i = 0; i < 5; ++i) p[i] = b.addPlace("p" + std::to_string(i), i == 0 ? 1 : 0);
  auto t = [&](const char* name, double rate, std::vector<int> in, std::vector<int> out) {
    auto id = b.addTimed(name, rate);
    for (int i : in) b.addInput(id, p[i]);
    for (int o : out) b.addOutput(id, p[o]);
  };
  t("t0", 1, {0}, {1, 2});
  t("t1", 3, {1}, {3});
  t("t2", 7, {2}, {4});
  t("t3", 9, {3}, {1});
  t("t4", 5, {3, 4}, {0});
  gspn::Net net = b.freeze();
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
  gspn::NetBuilder b("vcycle");
  auto A = b.addPlace("A", 1), B = b.addPlace("B"), C = b.addPlace("C"), D = b.addPlace("D");
  auto t = b.addTimed("t", lambda);
  b.addInput(t, A);
  b.addOutput(t, B);
  auto u1 = b.addImmediate("u1");
  b.addInput(u1, B);
  b.addOutput(u1, C);
  auto u2 = b.addImmediate("u2");
  b.addInput(u2, C);
  b.addOutput(u2, B);
  auto x1 = b.addImmediate("x1");
  b.addInput(x1, C);
  b.addOutput(x1, A);
  auto x2 = b.addImmediate("x2");
  b.addInput(x2, C);
  b.addOutput(x2, D);
  auto d = b.addTimed("d", mu);
  b.addInput(d, D);
  b.addOutput(d, A);
  gspn::Net net = b.freeze();
  auto s = solveBoth(net);
  CHECK(s.graph.stateCount() == 2);
  CHECK(s.graph.vanishingCount == 2);
  const double piA = mu / (mu + lambda / 2);
  CHECK(s.measures->meanTokens(A) == doctest::Approx(piA).epsilon(1e-12));
  const double xt = piA * lambda;
  CHECK(s.measures->throughput(t) == doctest::Approx(xt).epsilon(1e-12));
  CHECK(s.measures->throughput(u1) == doctest::Approx(1.5 * xt).epsilon(1e-12));
  CHECK(s.measures->throughput(u2) == doctest::Approx(0.5 * xt).epsilon(1e-12));
  CHECK(s.measures->throughput(x1) == doctest::Approx(0.5 * xt).epsilon(1e-12));
  CHECK(s.measures->throughput(x2) == doctest::Approx(0.5 * xt).epsilon(1e-12));
  CHECK(s.measures->throughput(d) == doctest::Approx(0.5 * xt).epsilon(1e-12));
}

TEST_CASE("immediate priorities and weights split the flow") {
  // After t: hi (priority 2) always beats lo; then a 1:3 weighted choice between a and c.
  gspn::NetBuilder b("prio");
  auto P = b.addPlace("P", 1), Q = b.addPlace("Q"), R = b.addPlace("R"), A = b.addPlace("A"),
       C = b.addPlace("C");
  auto t = b.addTimed("t", 1.0);
  b.addInput(t, P);
  b.addOutput(t, Q);
  auto lo = b.addImmediate("lo", 100.0, 1);
  b.addInput(lo, Q);
  b.addOutput(lo, P);
  auto hi = b.addImmediate("hi", 1.0, 2);
  b.addInput(hi, Q);
  b.addOutput(hi, R);
  auto a = b.addImmediate("a", 1.0);
  b.addInput(a, R);
  b.addOutput(a, A);
  auto c = b.addImmediate("c", 3.0);
  b.addInput(c, R);
  b.addOutput(c, C);
  for (auto [from, rate] : {std::pair{A, 1.0}, std::pair{C, 1.0}}) {
    auto back = b.addTimed(std::string("back") + std::to_string(from), rate);
    b.addInput(back, from);
    b.addOutput(back, P);
  }
  gspn::Net net = b.freeze();
  auto s = solveBoth(net);
  CHECK(s.measures->throughput(lo) == 0.0);
  CHECK(s.measures->throughput(a) * 3 == doctest::Approx(s.measures->throughput(c)).epsilon(1e-12));
  CHECK(s.measures->throughput(hi) == doctest::Approx(s.measures->throughput(t)).epsilon(1e-12));
}

TEST_CASE("immediate weights near the largest double keep their 1:3 ratio") {
  // 4e307 + 1.2e308 overflows to infinity, which would lose the probability mass. Weights are taken
  // relative to the largest enabled one: P(a) = 1/4, P(c) = 3/4.
  gspn::NetBuilder b("huge_weights");
  auto P = b.addPlace("P", 1), Q = b.addPlace("Q"), A = b.addPlace("A"), C = b.addPlace("C");
  auto t = b.addTimed("t", 1.0);
  b.addInput(t, P);
  b.addOutput(t, Q);
  auto a = b.addImmediate("a", 4e307);
  b.addInput(a, Q);
  b.addOutput(a, A);
  auto c = b.addImmediate("c", 1.2e308);
  b.addInput(c, Q);
  b.addOutput(c, C);
  for (auto from : {A, C}) {
    auto back = b.addTimed("back" + std::to_string(from), 1.0);
    b.addInput(back, from);
    b.addOutput(back, P);
  }
  gspn::Net net = b.freeze();
  auto s = solveBoth(net);
  // Cycle: P (mean 1) then A or C (mean 1): X(t) = 1/2, split 1:3.
  CHECK(s.measures->throughput(a) == doctest::Approx(0.125).epsilon(1e-12));
  CHECK(s.measures->throughput(c) == doctest::Approx(0.375).epsilon(1e-12));
}

TEST_CASE("a timeless trap is an error naming its transitions") {
  gspn::NetBuilder b("trap");
  auto A = b.addPlace("A", 1), B = b.addPlace("B"), C = b.addPlace("C");
  auto t = b.addTimed("t", 1.0);
  b.addInput(t, A);
  b.addOutput(t, B);
  auto u = b.addImmediate("u");
  b.addInput(u, B);
  b.addOutput(u, C);
  auto v = b.addImmediate("v");
  b.addInput(v, C);
  b.addOutput(v, B);
  auto result = gspn::exploreTangible(b.freeze());
  CHECK(result.status == gspn::ExplorationResult::Status::TimelessTrap);
  CHECK(result.message.find("{u, v}") != std::string::npos);
}

TEST_CASE("an unbounded net stops at the state limit and names the growing place") {
  gspn::NetBuilder b("unbounded");
  auto P = b.addPlace("P");
  auto t = b.addTimed("t", 1.0);
  b.addOutput(t, P);
  gspn::ExplorationSettings settings;
  settings.maxStates = 100;
  auto result = gspn::exploreTangible(b.freeze(), settings);
  CHECK(result.status == gspn::ExplorationResult::Status::StateLimit);
  CHECK(result.message.find("place 'P'") != std::string::npos);
}

TEST_CASE("a deadlocking net is an error naming the dead marking") {
  gspn::NetBuilder b("dead");
  auto A = b.addPlace("A", 1), B = b.addPlace("B");
  auto t = b.addTimed("t", 1.0);
  b.addInput(t, A);
  b.addOutput(t, B);
  gspn::Net net = b.freeze();
  auto explored = gspn::exploreTangible(net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  auto structure = solver::analyzeStructure(net, explored.graph);
  CHECK(structure.kind == solver::ChainStructure::Kind::Deadlock);
  CHECK(structure.message.find("{B=1}") != std::string::npos);
}

TEST_CASE("a reducible net: transient states are dropped, two bottom components are an error") {
  SUBCASE("one bottom component after a transient state") {
    gspn::NetBuilder b("transient");
    auto A = b.addPlace("A", 1), B = b.addPlace("B"), C = b.addPlace("C");
    auto t0 = b.addTimed("t0", 1.0);
    b.addInput(t0, A);
    b.addOutput(t0, B);
    auto t1 = b.addTimed("t1", 2.0);
    b.addInput(t1, B);
    b.addOutput(t1, C);
    auto t2 = b.addTimed("t2", 3.0);
    b.addInput(t2, C);
    b.addOutput(t2, B);
    gspn::Net net = b.freeze();
    auto s = solveBoth(net);
    CHECK(s.structure.transientCount == 1);
    CHECK(s.measures->meanTokens(A) == 0.0);
    CHECK(s.measures->meanTokens(B) == doctest::Approx(0.6).epsilon(1e-12));
    CHECK(s.measures->meanTokens(C) == doctest::Approx(0.4).epsilon(1e-12));
  }
  SUBCASE("two bottom components") {
    gspn::NetBuilder b("split");
    auto A = b.addPlace("A", 1);
    for (const char* side : {"L", "R"}) {
      auto x = b.addPlace(std::string(side) + "1"), y = b.addPlace(std::string(side) + "2");
      auto go = b.addTimed(std::string("go") + side, 1.0);
      b.addInput(go, A);
      b.addOutput(go, x);
      auto f = b.addTimed(std::string("f") + side, 1.0);
      b.addInput(f, x);
      b.addOutput(f, y);
      auto g = b.addTimed(std::string("g") + side, 1.0);
      b.addInput(g, y);
      b.addOutput(g, x);
    }
    gspn::Net net = b.freeze();
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
    const gspn::Net net = mmt::testing::loadGspnText(text);
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
  const gspn::Net net = mmt::testing::loadGspnText(
      "place n; timed up rate 1 + 1 / (#n + 1) out n inhibit n * 1000; timed down rate 2 in n;"
      "measure L = mean(2 * #n - #n / 4 + 3);");
  auto s = mmt::testing::solve(net, solver::Method::LU);
  CHECK(s.measures->meanTokens(0) == doctest::Approx(2).epsilon(1e-12));
  CHECK(s.result.pi[0] == doctest::Approx(0.25).epsilon(1e-12));
  CHECK(gspn::evaluateMeasures(net, *s.measures)[0] ==
        doctest::Approx(1.75 * 2 + 3).epsilon(1e-12));
}

TEST_CASE("the backward search finds the states that reach the seeds, on any number of cores") {
  // Two chains of a cycle and an exit: A → B → A, then B → C → D (D absorbing), 12 tokens
  // each, so that many states do not reach a given one.
  gspn::NetBuilder b("drain");
  for (const char* chain : {"1", "2"}) {
    const std::string c(chain);
    auto A = b.addPlace("A" + c, 12), B = b.addPlace("B" + c), C = b.addPlace("C" + c),
         D = b.addPlace("D" + c);
    auto arc = [&](const std::string& name, double rate, gspn::PlaceId from, gspn::PlaceId to) {
      auto t = b.addTimed(name + c, rate);
      b.addInput(t, from);
      b.addOutput(t, to);
    };
    arc("ab", 1.0, A, B);
    arc("ba", 2.0, B, A);
    arc("bc", 0.5, B, C);
    arc("cd", 3.0, C, D);
  }
  gspn::Net net = b.freeze();
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
  const int threads = omp_get_max_threads();
  for (const std::vector<std::uint32_t>& seeds :
       {std::vector<std::uint32_t>{std::uint32_t(n - 1)},
        {std::uint32_t(n / 2)},
        {std::uint32_t(n / 3), std::uint32_t(n / 3), 0}}) {
    const std::vector<std::uint32_t> expected = reference(seeds);
    // The last state explored has every token in D: every state reaches it, and not the
    // others.
    CHECK((expected.size() == n) == (seeds[0] == n - 1));
    for (int t : {1, 3})
      for (std::size_t level : {std::size_t(1), std::size_t(16'384)}) {
        CAPTURE(t);
        CAPTURE(level);
        omp_set_num_threads(t);
        std::vector<std::uint32_t> found = solver::reachingAny(g, seeds, level);
        std::sort(found.begin(), found.end());
        CHECK(found == expected);
      }
  }
  omp_set_num_threads(threads);
}
