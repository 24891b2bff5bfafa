// The bottom strongly connected components of a reachability graph (solver::bottomComponents)
// and the state space on its own (api::exploreStateSpace), on nets small enough to count by
// hand.
#include <doctest/doctest.h>

#include "api/statespace.hpp"
#include "solve_helpers.hpp"
#include "solver/ctmc.hpp"

using namespace mmt;

TEST_CASE("bottom components: a first choice between a cycle, a dead end and a self-loop") {
  // From `start`, one of three firings: into a cycle of two markings (a <-> b), into a dead
  // marking (d), or into a marking whose only firing loops back to it (e: bottom, not dead).
  const api::Model model = testing::loadModelText(
      "place start = 1; place a; place b; place d; place e;\n"
      "timed toA rate 1 in start out a;\n"
      "timed toD rate 2 in start out d;\n"
      "timed toE rate 3 in start out e;\n"
      "timed ab rate 1 in a out b;\n"
      "timed ba rate 1 in b out a;\n"
      "timed loop rate 1 in e out e;\n");
  const gspn::Net& net = model.net();
  const gspn::ExplorationResult explored = gspn::exploreTangible(net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  const gspn::TangibleReachabilityGraph& g = explored.graph;
  REQUIRE(g.stateCount() == 5);
  const solver::BottomComponents b = solver::bottomComponents(net, g);
  REQUIRE(b.components.size() == 3);
  CHECK(b.transientStates == 1);
  CHECK(b.componentOf[g.initial[0].first] == solver::BottomComponents::kTransient);
  std::uint64_t states = 0, dead = 0;
  for (const auto& c : b.components) {
    states += c.states;
    dead += c.dead;
    CHECK(b.componentOf[c.witness] != solver::BottomComponents::kTransient);
    // The cycle holds two markings; the dead marking and the self-loop one each.
    const auto m = g.marking(c.witness);
    if (m[net.findPlace("a").value()] + m[net.findPlace("b").value()] == 1) CHECK(c.states == 2);
    if (m[net.findPlace("d").value()] == 1) CHECK((c.states == 1 && c.dead));
    if (m[net.findPlace("e").value()] == 1) CHECK((c.states == 1 && !c.dead));
  }
  CHECK(states == 4);
  CHECK(dead == 1);
  REQUIRE(b.dead.size() == 1);
  CHECK(g.marking(b.dead[0])[net.findPlace("d").value()] == 1);
  CHECK(solver::analyzeStructure(net, g).kind == solver::ChainStructure::Kind::Deadlock);

  // The state space: 5 markings, 6 firings (three from start, ab, ba and the self-loop),
  // 5 CTMC edges (the self-loop is no edge), one dead marking, bounds of 1.
  const api::StateSpace s = api::exploreStateSpace(model, {});
  CHECK(s.tangible == 5);
  CHECK(s.firings == 6);
  CHECK(s.edges == 5);
  CHECK(s.deadMarkings == 1);
  CHECK(s.bottomComponents.size() == 3);
  CHECK(s.transientMarkings == 1);
  CHECK(s.maxTokensInPlace == 1);
  CHECK(s.maxTokensPerMarking == 1);
  CHECK(s.json()["dead_markings"]["first"][0] == "d=1");
}

TEST_CASE("state space: bounds and tokens of a closed cycle with a capacity") {
  // Three tokens circulate between p and q; q's bound is 3, and every marking holds 3.
  const api::Model model = testing::loadModelText(
      "place p = 3; place q;\n"
      "timed go rate 1 in p out q;\n"
      "timed back rate 2 in q out p;\n");
  const api::StateSpace s = api::exploreStateSpace(model, {});
  CHECK(s.tangible == 4);
  CHECK(s.firings == 6);
  CHECK(s.maxTokensInPlace == 3);
  CHECK(s.maxTokensPerMarking == 3);
  REQUIRE(s.bounds.size() == 2);
  CHECK(s.bounds[1].place == "q");
  CHECK(s.bounds[1].bound == 3);
  CHECK(s.deadMarkings == 0);
  REQUIRE(s.bottomComponents.size() == 1);
  CHECK(s.bottomComponents[0].markings == 4);
}
