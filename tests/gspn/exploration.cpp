// Exploration of the classic benchmark nets of tools/bench/models: published state counts
// (the tandem queue), the same graph on any thread count and level size, the transposition
// of pass 1's kept rows against pass 2, the vanishing markings and breadth-first numbering
// against independent searches, and failures named alike on one and two threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "gspn/reachability.hpp"
#include "solve_helpers.hpp"

using namespace mmt;
using testing::BenchCase;
using testing::loadBenchModel;

namespace {

/// Whether two graphs hold the same edges in the same order, each with its source and its
/// rate, whether stored packed or apart.
bool sameEdges(const gspn::TangibleReachabilityGraph& a, const gspn::TangibleReachabilityGraph& b) {
  if (a.inOffset != b.inOffset || a.edgeCount() != b.edgeCount()) return false;
  for (std::size_t k = 0; k < a.edgeCount(); ++k)
    if (a.sourceOf(k) != b.sourceOf(k) || a.rateOf(k) != b.rateOf(k)) return false;
  return true;
}

std::size_t tangibleStates(const gspn::Net& net) {
  auto explored = gspn::exploreTangible(net);
  REQUIRE_MESSAGE(explored.status == gspn::ExplorationResult::Status::Ok, explored.message);
  return explored.graph.stateCount();
}

/// The graph of `net` explored on `threads` threads (every level in parallel; 0: OpenMP's
/// default, levels from 2,048 states), once transposed from pass 1's kept rows and once
/// recomputed by pass 2; both must succeed.
std::pair<gspn::ExplorationResult, gspn::ExplorationResult> bothWays(const gspn::Net& net,
                                                                     unsigned threads) {
  gspn::ExplorationSettings settings;
  settings.run.threads = threads;
  if (threads) settings.parallelLevelSize = 1;
  auto transposed = gspn::exploreTangible(net, settings);
  settings.transposeRows = false;
  auto recomputed = gspn::exploreTangible(net, settings);
  REQUIRE(transposed.status == gspn::ExplorationResult::Status::Ok);
  REQUIRE(recomputed.status == gspn::ExplorationResult::Status::Ok);
  return {std::move(transposed), std::move(recomputed)};
}

}  // namespace

TEST_CASE("tandem queue: (2c + 1)(c + 1) states, as in PRISM's benchmark") {
  // With capacity c, queue 1 holds 0..c jobs with the Coxian phase relevant only when busy
  // (2c + 1 combinations) and queue 2 0..c: (2c + 1)(c + 1) states; c = 255 gives 130,816.
  for (int c : {1, 3, 15, 255}) {
    CAPTURE(c);
    CHECK(tangibleStates(loadBenchModel("tandem.gspn", {{"c", c}})) ==
          static_cast<std::size_t>((2 * c + 1) * (c + 1)));
  }
}

namespace {

/// Explores on `threads` threads; breadth-first levels of `levelSize` states or more in
/// parallel (1: every level, however small).
gspn::TangibleReachabilityGraph exploreOn(const gspn::Net& net, unsigned threads,
                                          std::uint32_t levelSize = 1, bool everyOrder = false) {
  gspn::ExplorationSettings settings;
  settings.everyOrder = everyOrder;
  settings.run.threads = threads;
  settings.parallelLevelSize = levelSize;
  auto explored = gspn::exploreTangible(net, settings);
  REQUIRE_MESSAGE(explored.status == gspn::ExplorationResult::Status::Ok, explored.message);
  return std::move(explored.graph);
}

}  // namespace

TEST_CASE(
    "exploration on 1, 2 and 3 threads: the same states, numbers and generator, bit for bit") {
  // Kanban and the tandem queue have no vanishing markings; FMS and the ring do.
  const BenchCase cases[] = {{"kanban.gspn", {{"N", 3}}},
                             {"fms.gspn", {{"N", 3}}},
                             {"tandem.gspn", {{"c", 31}}},
                             {"ring8.gspn", {{"N", 8}}}};
  for (const BenchCase& c : cases) {
    CAPTURE(c.file);
    gspn::Net net = loadBenchModel(c.file, c.overrides);
    const auto one = exploreOn(net, 1);
    for (const auto& [threadCount, levelCount] : {std::pair{2u, 1u}, {3u, 1u}, {2u, 2048u}}) {
      const unsigned threads = threadCount, levelSize = levelCount;
      CAPTURE(threads);
      CAPTURE(levelSize);
      const auto more = exploreOn(net, threads, levelSize);
      REQUIRE(more.stateCount() == one.stateCount());
      bool sameMarkings = true;
      for (std::size_t s = 0; s < one.stateCount(); ++s)
        sameMarkings = sameMarkings && more.marking(s) == one.marking(s);
      CHECK(sameMarkings);
      CHECK(more.inOffset == one.inOffset);
      CHECK(more.source == one.source);
      CHECK(more.rate == one.rate);
      CHECK(more.exitRate == one.exitRate);
      CHECK(more.initial == one.initial);
      CHECK(more.vanishingCount == one.vanishingCount);
      REQUIRE(more.immediateFlows.size() == one.immediateFlows.size());
      std::size_t differentFlows = 0;
      for (std::size_t k = 0; k < one.immediateFlows.size(); ++k) {
        const auto &a = one.immediateFlows[k], &b = more.immediateFlows[k];
        differentFlows += a.state != b.state || a.transition != b.transition || a.rate != b.rate;
      }
      CHECK(differentFlows == 0);
    }
  }
}

TEST_CASE("the generator transposed from pass 1's rows is pass 2's, bit for bit") {
  const BenchCase cases[] = {
      {"kanban.gspn", {{"N", 3}}}, {"fms.gspn", {{"N", 3}}}, {"ring8.gspn", {{"N", 8}}}};
  for (const BenchCase& c : cases) {
    CAPTURE(c.file);
    gspn::Net net = loadBenchModel(c.file, c.overrides);
    for (unsigned threads : {1u, 2u}) {
      CAPTURE(threads);
      auto [transposed, recomputed] = bothWays(net, threads);
      CHECK(transposed.graph.edgeCount() == recomputed.graph.edgeCount());
      CHECK(sameEdges(transposed.graph, recomputed.graph));
      // Packed where pass 2 keeps sources and rate numbers apart.
      CHECK(transposed.graph.sourceBits > 0);
      CHECK(transposed.graph.bytesPerEdge == 4);
      CHECK(recomputed.graph.bytesPerEdge == 6);
      CHECK(transposed.graph.rate.table() == recomputed.graph.rate.table());
      CHECK(transposed.graph.exitRate == recomputed.graph.exitRate);
    }
  }
}

TEST_CASE("kept rows pack target and rate number into one word where both fit, else not") {
  // A birth-death chain of 70,001 states (17 bits of target) whose up-rate takes 40,001
  // values (16 bits of rate number): the rows of the first levels are packed, those kept
  // after the numbers outgrow 15 bits are not, and the transposition must read both.
  const gspn::Net net = mmt::testing::loadGspnText(
      "place n; timed up rate 1 + 1 / (min(#n, 40000) + 1) out n inhibit n * 70000;"
      "timed down rate 2 in n;");
  auto [transposed, recomputed] = bothWays(net, 0);
  REQUIRE(transposed.graph.stateCount() == 70'001);
  CHECK(transposed.graph.rate.compact());
  CHECK(transposed.graph.rate.table().size() == 40'001);  // λ(0) = 2 = μ
  CHECK(transposed.graph.sourceBits == 0);                // 17 + 16 bits do not fit in one word
  CHECK(transposed.graph.inOffset == recomputed.graph.inOffset);
  CHECK(transposed.graph.source == recomputed.graph.source);
  CHECK(transposed.graph.rate == recomputed.graph.rate);
  CHECK(transposed.graph.exitRate == recomputed.graph.exitRate);
}

TEST_CASE("the vanishing markings counted are those a plain breadth-first search meets") {
  // An independent search over every reachable marking of the ring (K = 8, N = 10): in a
  // vanishing marking only the enabled immediate transitions of the top priority fire, in
  // a tangible one the timed transitions. 91,521 vanishing markings in every order, past
  // the first compaction of one eliminator's fingerprints (65,536) on one thread; on two
  // and three threads the lists are merged.
  const gspn::Net net = loadBenchModel("ring8.gspn", {{"N", 10}});
  std::set<std::vector<gspn::Tokens>> seen{net.initialMarking()};
  std::vector<std::vector<gspn::Tokens>> queue{net.initialMarking()};
  std::size_t vanishing = 0;
  std::vector<gspn::Tokens> next(net.placeCount());
  for (std::size_t k = 0; k < queue.size(); ++k) {
    const std::vector<gspn::Tokens> m = queue[k];
    std::vector<gspn::TransitionId> firing;
    std::uint32_t top = 0;
    for (gspn::TransitionId t : net.immediateTransitions())
      if (net.isEnabled(t, m)) top = std::max(top, net.transition(t).priority);
    for (gspn::TransitionId t : net.immediateTransitions())
      if (net.isEnabled(t, m) && net.transition(t).priority == top) firing.push_back(t);
    vanishing += !firing.empty();
    if (firing.empty())
      for (gspn::TransitionId t : net.timedTransitions())
        if (net.isEnabled(t, m) && net.rate(t, m) > 0) firing.push_back(t);
    for (gspn::TransitionId t : firing) {
      net.fire(t, m, next);
      if (seen.insert(next).second) queue.push_back(next);
    }
  }
  REQUIRE(vanishing == 91'521);
  for (unsigned threads : {1u, 2u, 3u}) {
    CAPTURE(threads);
    CHECK(exploreOn(net, threads, 1, /*everyOrder=*/true).vanishingCount == vanishing);
  }
}

TEST_CASE("rows that stop being kept within a level are counted once: the graph is pass 2's") {
  // Two counters a, b ≤ 299 (90,000 states, breadth-first levels a + b up to 300 wide)
  // whose up-rates take a value per marking: the rate numbering fills up (65,535) within
  // a level, while two threads merge its runs. Some runs of that level were kept, the
  // others not; the kept rows so far are dropped and pass 2 builds the generator. Every
  // edge must be counted into its target exactly once, kept or not.
  const gspn::Net net = mmt::testing::loadGspnText(
      "place a; place b;"
      "timed upA rate 1 + #a / 1000 + #b / 1000000 out a inhibit a * 299;"
      "timed upB rate 2 + #a / 1000 + #b / 1000000 out b inhibit b * 299;"
      "timed downA rate 3 in a; timed downB rate 5 in b;");
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    auto [stopped, recomputed] = bothWays(net, threads);
    REQUIRE(stopped.graph.stateCount() == 90'000);
    CHECK(!stopped.graph.rate.compact());  // more rates than the compact form holds
    CHECK(stopped.graph.inOffset == recomputed.graph.inOffset);
    CHECK(sameEdges(stopped.graph, recomputed.graph));
    CHECK(stopped.graph.exitRate == recomputed.graph.exitRate);
  }
}

TEST_CASE("kept rows of 256 edges and more transpose as pass 2 builds them") {
  // One token at a hub that 300 transitions move to 300 spokes, each of which returns it
  // at a rate of its own: the hub's row has 300 edges, past the one-byte degree the kept
  // rows store where every row of a run is shorter; the spokes' rows have one.
  std::string text = "place hub = 1;";
  for (int k = 0; k < 300; ++k) {
    const std::string spoke = "s" + std::to_string(k);
    text += "place " + spoke + "; timed out" + std::to_string(k) + " rate " +
            std::to_string(1 + k % 7) + " in hub out " + spoke + "; timed back" +
            std::to_string(k) + " rate " + std::to_string(1 + k) + " in " + spoke + " out hub;";
  }
  const gspn::Net net = mmt::testing::loadGspnText(text);
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    auto [transposed, recomputed] = bothWays(net, threads);
    REQUIRE(transposed.graph.stateCount() == 301);
    CHECK(transposed.graph.edges == 600);
    CHECK(transposed.graph.inOffset == recomputed.graph.inOffset);
    CHECK(sameEdges(transposed.graph, recomputed.graph));
    CHECK(transposed.graph.exitRate == recomputed.graph.exitRate);
  }
}

TEST_CASE(
    "exploration numbers the states in breadth-first order of discovery, on any thread count") {
  // An independent breadth-first search over the Kanban net (no vanishing markings): states
  // numbered as found, successors in the order of the timed transitions. Exploration
  // must give every state the same number, whatever the thread count.
  gspn::Net net = loadBenchModel("kanban.gspn", {{"N", 2}});
  std::map<std::vector<gspn::Tokens>, std::uint32_t> number;
  std::vector<std::vector<gspn::Tokens>> order{net.initialMarking()};
  number[order[0]] = 0;
  std::vector<gspn::Tokens> next(net.placeCount());
  for (std::size_t s = 0; s < order.size(); ++s)
    for (gspn::TransitionId t : net.timedTransitions()) {
      if (!net.isEnabled(t, order[s]) || net.rate(t, order[s]) == 0.0) continue;
      net.fire(t, order[s], next);
      if (number.emplace(next, static_cast<std::uint32_t>(order.size())).second)
        order.push_back(next);
    }
  REQUIRE(order.size() == 4600);
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    const auto graph = exploreOn(net, threads);
    REQUIRE(graph.stateCount() == order.size());
    std::size_t mismatches = 0;
    for (std::size_t s = 0; s < order.size(); ++s) mismatches += graph.marking(s) != order[s];
    CHECK(mismatches == 0);
  }
}

TEST_CASE("exploration on 2 threads reports the failures a single thread reports") {
  // Four independent counters of 12 tokens: breadth-first levels of up to 1,469 states,
  // explored in parallel from 1,000 states on, as are the levels where things go wrong. A timeless
  // trap once b1 and b2 are full (level 24), a negative rate past level 20, and the state limit.
  const std::string counters =
      "place a1 = 12; place b1; place a2 = 12; place b2; place a3 = 12; place b3;\n"
      "place a4 = 12; place b4;\n"
      "timed t1 rate 1 in a1 out b1; timed u1 rate 2 in b1 out a1;\n"
      "timed t2 rate 1 in a2 out b2; timed u2 rate 2 in b2 out a2;\n"
      "timed t3 rate 1 in a3 out b3; timed u3 rate 2 in b3 out a3;\n"
      "timed u4 rate 2 in b4 out a4;\n";
  auto trap = testing::loadGspnText(counters +
                                    "timed t4 rate 1 in a4 out b4; place c;\n"
                                    "immediate loop1 in b1 * 12, b2 * 12 out c;\n"
                                    "immediate loop2 in c out b1 * 12, b2 * 12;\n");
  auto invalid =
      testing::loadGspnText(counters + "timed t4 rate (20 - #b1 - #b2 - #b3) in a4 out b4;\n");
  std::string trapMessage, invalidMessage;
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    gspn::ExplorationSettings settings;
    settings.run.threads = threads;
    settings.parallelLevelSize = 1000;
    const auto trapped = gspn::exploreTangible(trap, settings);
    CHECK(trapped.status == gspn::ExplorationResult::Status::TimelessTrap);
    CHECK(trapped.message.find("loop1, loop2") != std::string::npos);
    const auto bad = gspn::exploreTangible(invalid, settings);
    CHECK(bad.status == gspn::ExplorationResult::Status::InvalidModel);
    if (threads == 1) {
      trapMessage = trapped.message;
      invalidMessage = bad.message;
    } else {
      // The same marking is named: the first in state order, as one thread meets it.
      CHECK(trapped.message == trapMessage);
      CHECK(bad.message == invalidMessage);
    }
    settings.maxStates = 5000;
    const auto limited = gspn::exploreTangible(invalid, settings);
    CHECK(limited.status == gspn::ExplorationResult::Status::StateLimit);
    CHECK(limited.message.find("more than 5000 tangible markings") != std::string::npos);
  }
}

TEST_CASE("exploration records where each breadth-first level begins") {
  // Against a breadth-first search of its own over the stored edges, from the initial
  // states: the ids grow with the distance, and each level starts at the first id of its
  // distance.
  for (const BenchCase& c :
       {BenchCase{"kanban.gspn", {{"N", 2}}}, BenchCase{"tandem.gspn", {{"c", 7}}},
        BenchCase{"fms.gspn", {{"N", 1}}}}) {
    CAPTURE(c.file);
    const auto explored = gspn::exploreTangible(loadBenchModel(c.file, c.overrides));
    REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
    const gspn::TangibleReachabilityGraph& g = explored.graph;
    const std::size_t n = g.stateCount();
    std::vector<std::vector<std::uint32_t>> out(n);
    for (std::size_t j = 0; j < n; ++j)
      for (auto k = std::size_t(g.inOffset[j]); k < std::size_t(g.inOffset[j + 1]); ++k)
        out[g.sourceOf(k)].push_back(std::uint32_t(j));
    std::vector<std::int64_t> distance(n, -1);
    std::vector<std::uint32_t> frontier;
    for (const auto& [state, p] : g.initial) {
      distance[state] = 0;
      frontier.push_back(state);
    }
    for (std::size_t f = 0; f < frontier.size(); ++f)
      for (const std::uint32_t t : out[frontier[f]])
        if (distance[t] < 0) {
          distance[t] = distance[frontier[f]] + 1;
          frontier.push_back(t);
        }
    std::vector<std::uint32_t> starts;
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(distance[i] >= 0);
      if (i > 0) REQUIRE(distance[i - 1] <= distance[i]);
      if (i == 0 || distance[i - 1] != distance[i]) starts.push_back(std::uint32_t(i));
    }
    CHECK(starts.size() > 5);
    CHECK(g.levelStarts == starts);
  }
}
