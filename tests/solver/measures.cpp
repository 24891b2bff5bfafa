// Measures under several distributions in one pass (solver/measures.hpp): each the same
// bits as the measures under it alone, and under a point mass the marking's own tokens and
// rates (the definitions of [GSPN95] §6.4 read off one state).
#include "solver/measures.hpp"

#include <doctest/doctest.h>

#include "api/model.hpp"
#include "solve_helpers.hpp"
#include "solver/ctmc.hpp"

using namespace mmt;

TEST_CASE(
    "measures under several distributions in one pass: each as under it alone, bit for bit, "
    "and a point mass's are its marking's tokens and rates") {
  // A cycle of two timed stations with 3 customers, the second with two servers, and an
  // immediate transition the second's firings go through (so that immediate throughputs
  // come from the explorer's flows).
  const api::Model model = testing::loadModelText(
      "place a = 3; place b; place c;\n"
      "timed s1 rate 1.5 in a out b;\n"
      "timed s2 rate 0.7 servers 2 in b out c;\n"
      "immediate back in c out a;\n");
  const gspn::Net& net = model.net();
  auto explored = gspn::exploreTangible(net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  const gspn::TangibleReachabilityGraph& graph = explored.graph;
  const std::size_t n = graph.stateCount();
  REQUIRE(n == 4);
  REQUIRE(!graph.immediateFlows.empty());

  std::vector<Eigen::VectorXd> distributions(3, Eigen::VectorXd::Zero(Eigen::Index(n)));
  for (std::size_t s = 0; s < n; ++s) distributions[0][Eigen::Index(s)] = double(s + 1) / 10;
  distributions[1][1] = 0.375;  // the others 0: states where every distribution is 0 are
  distributions[1][3] = 0.625;  // skipped only where all three are
  const std::uint32_t point = 2;
  distributions[2][point] = 1;

  const std::vector<solver::SteadyStateMeasures> together =
      solver::SteadyStateMeasures::under(net, graph, solver::everyState(graph), distributions);
  REQUIRE(together.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    CAPTURE(k);
    const solver::SteadyStateMeasures alone(net, graph, solver::everyState(graph),
                                            distributions[k]);
    for (gspn::PlaceId p = 0; p < net.placeCount(); ++p)
      CHECK(together[k].meanTokens(p) == alone.meanTokens(p));
    for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t)
      CHECK(together[k].throughput(t) == alone.throughput(t));
  }

  const std::vector<gspn::Tokens> m = graph.marking(point);
  for (gspn::PlaceId p = 0; p < net.placeCount(); ++p)
    CHECK(together[2].meanTokens(p) == double(m[p]));
  for (gspn::TransitionId t : net.timedTransitions())
    CHECK(together[2].throughput(t) == doctest::Approx(net.rate(t, m)).epsilon(1e-15));
  // The immediate transition fires as often as s2 does, from every state.
  const gspn::TransitionId s2 = *net.findTransition("s2"), back = *net.findTransition("back");
  for (std::size_t k = 0; k < 3; ++k)
    CHECK(together[k].throughput(back) ==
          doctest::Approx(together[k].throughput(s2)).epsilon(1e-15));
}
