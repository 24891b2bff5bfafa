// Immediate transitions that commute (gspn/commuting.hpp): fired in one order, the same
// tangible chain as every order, through fewer vanishing markings.
#include "gspn/commuting.hpp"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "gspn/reachability.hpp"
#include "gspn/vanishing.hpp"

namespace {

using namespace mmt::gspn;

/// `go` marks k places a_i at once; immediate transitions a_i → b_i do not interact; `back`
/// takes every b_i. Every order: 2^k − 1 vanishing markings after `go`; one order: k.
Net independentChoices(int k) {
  NetBuilder b("choices");
  const PlaceId start = b.addPlace("start", 1);
  const TransitionId go = b.addTimed("go", 2.0);
  b.addInput(go, start);
  const TransitionId back = b.addTimed("back", 3.0);
  b.addOutput(back, start);
  for (int i = 0; i < k; ++i) {
    const PlaceId a = b.addPlace("a" + std::to_string(i));
    const PlaceId done = b.addPlace("b" + std::to_string(i));
    b.addOutput(go, a);
    const TransitionId fire = b.addImmediate("i" + std::to_string(i));
    b.addInput(fire, a);
    b.addOutput(fire, done);
    b.addInput(back, done);
  }
  return b.freeze();
}

ExplorationResult explore(const Net& net, bool everyOrder, std::uint64_t limit = 1'000'000) {
  ExplorationSettings settings;
  settings.everyOrder = everyOrder;
  settings.maxVanishingPerFiring = limit;
  settings.maxStates = 5'000;
  return exploreTangible(net, settings);
}

/// The chain a graph describes, by marking: rates between markings, the initial
/// distribution, and each immediate transition's flow out of each marking.
struct Chain {
  std::map<std::pair<std::vector<Tokens>, std::vector<Tokens>>, double> rates;
  std::map<std::vector<Tokens>, double> initial;
  std::map<std::pair<std::vector<Tokens>, TransitionId>, double> flows;
};

Chain chainOf(const TangibleReachabilityGraph& g) {
  Chain c;
  for (std::size_t j = 0; j < g.stateCount(); ++j)
    for (auto k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k)
      c.rates[{g.marking(g.sourceOf(k)), g.marking(j)}] += g.rateOf(k);
  for (const auto& [s, p] : g.initial) c.initial[g.marking(s)] += p;
  for (const auto& f : g.immediateFlows) c.flows[{g.marking(f.state), f.transition}] += f.rate;
  return c;
}

template <typename Key>
void checkSame(const std::map<Key, double>& one, const std::map<Key, double>& every) {
  REQUIRE(one.size() == every.size());
  for (auto a = one.begin(), b = every.begin(); a != one.end(); ++a, ++b) {
    REQUIRE(a->first == b->first);
    CHECK(a->second == doctest::Approx(b->second).epsilon(1e-12));
  }
}

/// A random net of a few places and transitions: arcs of multiplicity 1 or 2, inhibitors,
/// guards, two priority levels and three weights among its immediate transitions.
Net randomNet(std::mt19937& random) {
  auto uniform = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(random); };
  NetBuilder b("random");
  const int places = 4 + uniform(8);
  for (int p = 0; p < places; ++p) b.addPlace("p" + std::to_string(p), uniform(3));
  const int timed = 1 + uniform(3), immediate = 2 + uniform(6);
  for (int t = 0; t < timed + immediate; ++t) {
    const std::string name = "t" + std::to_string(t);
    const TransitionId id = t < timed ? b.addTimed(name, 1.0 + uniform(4))
                                      : b.addImmediate(name, 1.0 + uniform(3), 1 + uniform(2));
    for (int a = 0, n = 1 + uniform(2); a < n; ++a)
      b.addInput(id, static_cast<PlaceId>(uniform(places)), 1 + (uniform(4) == 0));
    for (int a = 0, n = uniform(3); a < n; ++a)
      b.addOutput(id, static_cast<PlaceId>(uniform(places)), 1 + (uniform(4) == 0));
    if (uniform(4) == 0) b.addInhibitor(id, static_cast<PlaceId>(uniform(places)), 1 + uniform(2));
    if (uniform(6) == 0) {  // guard #p < 2
      Expression guard = Expression::tokens(static_cast<std::uint32_t>(uniform(places)));
      guard.push({Expression::Op::Constant, 0, 2.0});
      guard.push({Expression::Op::Less});
      b.setGuard(id, std::move(guard));
    }
  }
  return b.freeze();
}

}  // namespace

TEST_CASE("commuting: k independent immediate transitions resolve through k vanishing markings") {
  const Net net = independentChoices(20);
  const ExplorationResult one = explore(net, false);
  REQUIRE(one.status == ExplorationResult::Status::Ok);
  CHECK(one.graph.stateCount() == 2);
  CHECK(one.graph.vanishingCount == 20);  // a_0..a_19 marked, then one fewer each time
  // Every order: 2^20 − 1 vanishing markings, past the limit of a million.
  CHECK(explore(net, true).status == ExplorationResult::Status::TooManyVanishing);

  const Net small = independentChoices(12);
  const ExplorationResult reduced = explore(small, false), every = explore(small, true);
  REQUIRE(reduced.status == ExplorationResult::Status::Ok);
  REQUIRE(every.status == ExplorationResult::Status::Ok);
  CHECK(reduced.graph.vanishingCount == 12);
  CHECK(every.graph.vanishingCount == 4095);
  const Chain a = chainOf(reduced.graph), b = chainOf(every.graph);
  checkSame(a.rates, b.rates);
  checkSame(a.flows, b.flows);  // each i_k fires once per `go`: flow 2 out of `start`
  for (const auto& [key, rate] : a.flows) CHECK(rate == doctest::Approx(2.0));
}

TEST_CASE(
    "commuting: a transition the kept one enables, in conflict with a dropped one, keeps "
    "every order (confusion)") {
  // t and u are enabled and independent; t enables h, which conflicts with u over `shared`.
  // Every order: u wins `shared` when it fires first (1/2) or after t, against h (1/4).
  NetBuilder b("confusion");
  const PlaceId start = b.addPlace("start", 1), a = b.addPlace("a"), c = b.addPlace("c"),
                q = b.addPlace("q"), shared = b.addPlace("shared"), uDone = b.addPlace("uDone"),
                hDone = b.addPlace("hDone");
  const TransitionId go = b.addTimed("go", 1.0);
  b.addInput(go, start);
  for (PlaceId p : {a, c, shared}) b.addOutput(go, p);
  const TransitionId t = b.addImmediate("t"), u = b.addImmediate("u"), h = b.addImmediate("h");
  b.addInput(t, a);
  b.addOutput(t, q);
  b.addInput(u, c);
  b.addInput(u, shared);
  b.addOutput(u, uDone);
  b.addInput(h, q);
  b.addInput(h, shared);
  b.addOutput(h, hDone);
  const Net net = b.freeze();

  std::vector<Tokens> afterGo(net.placeCount());
  net.fire(go, net.initialMarking(), afterGo);
  VanishingEliminator eliminator(net, 1'000);
  REQUIRE(eliminator.resolve(afterGo) == VanishingEliminator::Status::Ok);
  double uWins = 0;
  for (std::uint32_t e = 0; e < eliminator.exits().size(); ++e)
    if (eliminator.exits()[e][uDone] == 1) uWins += eliminator.exitProbability()[e];
  CHECK(uWins == doctest::Approx(0.75).epsilon(1e-15));
}

TEST_CASE("commuting: one order and every order give the same chain on random nets") {
  std::mt19937 random(20261202);
  int compared = 0, reducedSome = 0;
  for (int n = 0; n < 600; ++n) {
    const Net net = randomNet(random);
    CAPTURE(n);
    const ExplorationResult every = explore(net, true, 20'000);
    if (every.status == ExplorationResult::Status::StateLimit ||
        every.status == ExplorationResult::Status::TooManyVanishing ||
        every.status == ExplorationResult::Status::InvalidModel)
      continue;
    const ExplorationResult one = explore(net, false, 20'000);
    REQUIRE(one.status == every.status);  // a timeless trap is found either way
    if (every.status != ExplorationResult::Status::Ok) continue;
    ++compared;
    reducedSome += one.graph.vanishingCount < every.graph.vanishingCount;
    CHECK(one.graph.vanishingCount <= every.graph.vanishingCount);
    const Chain a = chainOf(one.graph), b = chainOf(every.graph);
    checkSame(a.rates, b.rates);
    checkSame(a.initial, b.initial);
    checkSame(a.flows, b.flows);
  }
  MESSAGE(compared << " nets compared, " << reducedSome << " through fewer vanishing markings");
  CHECK(compared > 200);
  CHECK(reducedSome > 20);
}

TEST_CASE(
    "a timed firing from a tangible marking tests only the immediate transitions it may "
    "enable, and agrees with testing all (random nets)") {
  std::mt19937 random(20261207);
  std::size_t firings = 0, vanishing = 0;
  for (int n = 0; n < 3000; ++n) {
    const Net net = randomNet(random);
    CAPTURE(n);
    const ExplorationResult explored = explore(net, false, 20'000);
    if (explored.status != ExplorationResult::Status::Ok) continue;
    const VanishingEliminator eliminator(net, 20'000);
    std::vector<Tokens> next(net.placeCount());
    for (std::uint32_t s = 0; s < explored.graph.stateCount(); ++s) {
      const std::vector<Tokens> m = explored.graph.marking(s);
      REQUIRE_FALSE(eliminator.isVanishing(m));
      for (TransitionId t : net.timedTransitions()) {
        if (!net.isEnabled(t, m)) continue;
        net.fire(t, m, next);
        CHECK(eliminator.isVanishingAfter(t, next) == eliminator.isVanishing(next));
        ++firings;
        vanishing += eliminator.isVanishing(next);
      }
    }
  }
  MESSAGE(firings << " timed firings, " << vanishing << " into vanishing markings");
  CHECK(vanishing > 300);
  CHECK(firings - vanishing > 1000);
}
