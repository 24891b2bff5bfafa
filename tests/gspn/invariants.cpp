// P-semiflows by Farkas' algorithm against the ones derived by hand for the benchmark nets,
// and the structural boundedness built on them.
#include "gspn/invariants.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "io/load_gspn.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

using testing::loadBenchModel;
using testing::loadGspnText;

/// The semiflows as printed ("a + 2·b = 3"), sorted, for comparison with hand-derived ones.
std::set<std::string> printed(const gspn::Net& net) {
  const gspn::PSemiflows flows = gspn::computePSemiflows(net);
  REQUIRE(flows.complete);
  std::set<std::string> out;
  for (const auto& f : flows.flows) out.insert(gspn::formatSemiflow(net, f));
  return out;
}

}  // namespace

TEST_CASE("Kanban: four cell invariants and two linking cells 2 and 3") {
  // Each cell i keeps its N cards: pkan_i + pm_i + pb_i + pout_i = N. ts1_23 takes a card
  // of cells 2 and 3 at once and ts23_4 returns both, so a card of cell 2 (or 3) is either
  // free or stands for a part in cell 3 (or 2): pkan2 + pm3 + pb3 + pout3 = N and
  // pm2 + pb2 + pout2 + pkan3 = N.
  const gspn::Net net = loadBenchModel("kanban.gspn", {{"N", 3}});
  CHECK(printed(net) ==
        std::set<std::string>{"pkan1 + pm1 + pb1 + pout1 = 3", "pkan2 + pm2 + pb2 + pout2 = 3",
                              "pm2 + pb2 + pout2 + pkan3 = 3", "pkan2 + pm3 + pb3 + pout3 = 3",
                              "pkan3 + pm3 + pb3 + pout3 = 3", "pkan4 + pm4 + pb4 + pout4 = 3"});
  CHECK(gspn::analyzeBoundedness(net, gspn::computePSemiflows(net)).allBounded());
}

TEST_CASE("FMS: machines and pallets, with the marking-dependent flush arcs") {
  // Machines: M1 + P1M1 = 3, M2 + P2M2 = 1 (P3M2 only tests M2), M3 + P12M3 = 2. Parts:
  // the P3 loop holds N, and the P1 and P2 loops each hold N with P12 (a joined pair)
  // counted in both. The flush transitions move #P·s tokens in and out: one column per
  // expression keeps them conservative.
  const gspn::Net net = loadBenchModel("fms.gspn", {{"N", 2}});
  CHECK(printed(net) ==
        std::set<std::string>{
            "P1M1 + M1 = 3", "P2M2 + M2 = 1", "P12M3 + M3 = 2", "P3 + P3M2 + P3s = 2",
            "P1 + P1wM1 + P1M1 + P1d + P1s + P1wP2 + P12 + P12wM3 + P12M3 + P12s = 2",
            "P12 + P12wM3 + P12M3 + P12s + P2 + P2wM2 + P2M2 + P2d + P2wP1 + P2s = 2"});
  CHECK(gspn::analyzeBoundedness(net, gspn::computePSemiflows(net)).allBounded());
}

TEST_CASE("ring: one server per station and the jobs in all queues") {
  // Station i: S_i + B_i = 1; jobs: Σ (Q_i + B_i) = N.
  const gspn::Net net = loadBenchModel("ring8.gspn", {{"N", 5}});
  const std::set<std::string> flows = printed(net);
  CHECK(flows.size() == 9);
  for (int i = 0; i < 8; ++i)
    CHECK(flows.count("S" + std::to_string(i) + " + B" + std::to_string(i) + " = 1") == 1);
  CHECK(flows.count("Q0 + B0 + Q1 + B1 + Q2 + B2 + Q3 + B3 + Q4 + B4 + Q5 + B5 + Q6 + B6 + "
                    "Q7 + B7 = 5") == 1);
}

TEST_CASE("tandem: the server phase is a P-invariant, the queues are bounded by inhibitor arcs") {
  const gspn::Net net = loadBenchModel("tandem.gspn", {{"c", 7}});
  CHECK(printed(net) == std::set<std::string>{"phase1 + phase2 = 1"});
  const auto bounds = gspn::analyzeBoundedness(net, gspn::computePSemiflows(net));
  CHECK(bounds.allBounded());
  CHECK(bounds.places[*net.findPlace("sc")] == gspn::Boundedness::Reason::Inhibitor);
  CHECK(bounds.places[*net.findPlace("sm")] == gspn::Boundedness::Reason::Inhibitor);
}

TEST_CASE("a place that can grow without bound is never reported bounded") {
  // M/M/1 with no capacity, and Storm's gspn_simple (an immediate refill of place_1).
  const gspn::Net mm1 =
      loadGspnText("place q; timed arrive rate 1 out q; timed serve rate 2 in q;");
  auto bounds = gspn::analyzeBoundedness(mm1, gspn::computePSemiflows(mm1));
  CHECK_FALSE(bounds.allBounded());
  CHECK(bounds.places == std::vector{gspn::Boundedness::Reason::Unproven});
  const gspn::Net simple = loadGspnText(
      "place p1 = 1; place p2; timed t rate 0.4 in p1 out p2; immediate i out p1 inhibit p1;");
  bounds = gspn::analyzeBoundedness(simple, gspn::computePSemiflows(simple));
  CHECK(bounds.places[*simple.findPlace("p2")] == gspn::Boundedness::Reason::Unproven);
  // An inhibitor arc on only one of two transitions that raise a place proves nothing.
  const gspn::Net half = loadGspnText(
      "place q; timed a rate 1 out q inhibit q * 3; timed b rate 1 out q; timed s rate 2 in q;");
  CHECK_FALSE(gspn::analyzeBoundedness(half, gspn::computePSemiflows(half)).allBounded());
}

TEST_CASE("random nets: every semiflow is one (y·C = 0), minimal, and none is missed") {
  // 200 random nets of up to 12 places, with arcs of weight 1 to 3. Each flow must zero
  // every transition's token change and no flow's support may hold another's; on the nets
  // of at most 8 places, every semiflow with weights 0..2 found by brute force holds the
  // support of a flow returned (each semiflow's support holds a minimal one).
  std::mt19937 random(20261203);
  for (int k = 0; k < 200; ++k) {
    gspn::NetBuilder b("random");
    const int places = 2 + static_cast<int>(random() % 11);
    for (int p = 0; p < places; ++p) b.addPlace("p" + std::to_string(p), random() % 2);
    const int transitions = 1 + static_cast<int>(random() % 10);
    for (int t = 0; t < transitions; ++t) {
      const gspn::TransitionId id = b.addTimed("t" + std::to_string(t), 1.0);
      for (int p = 0; p < places; ++p) {
        const std::uint32_t roll = random() % 6;
        if (roll == 0) b.addInput(id, p, 1 + random() % 3);
        if (roll == 1) b.addOutput(id, p, 1 + random() % 3);
      }
    }
    const gspn::Net net = b.freeze();
    const gspn::PSemiflows flows = gspn::computePSemiflows(net);
    REQUIRE(flows.complete);
    CAPTURE(k);
    for (const auto& f : flows.flows) {
      REQUIRE(f.size() == net.placeCount());
      CHECK(std::any_of(f.begin(), f.end(), [](std::uint64_t w) { return w > 0; }));
      for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t) {
        std::int64_t change = 0;
        for (const gspn::Arc& a : net.inputs(t))
          change -= std::int64_t(f[a.place]) * a.multiplicity;
        for (const gspn::Arc& a : net.outputs(t))
          change += std::int64_t(f[a.place]) * a.multiplicity;
        CHECK(change == 0);
      }
    }
    if (net.placeCount() <= 8) {
      std::vector<std::uint64_t> y(net.placeCount(), 0);
      while (true) {
        std::size_t p = 0;
        while (p < y.size() && ++y[p] == 3) y[p++] = 0;
        if (p == y.size()) break;
        bool flow = true;
        for (gspn::TransitionId t = 0; t < net.transitionCount() && flow; ++t) {
          std::int64_t change = 0;
          for (const gspn::Arc& a : net.inputs(t))
            change -= std::int64_t(y[a.place]) * a.multiplicity;
          for (const gspn::Arc& a : net.outputs(t))
            change += std::int64_t(y[a.place]) * a.multiplicity;
          flow = change == 0;
        }
        if (!flow) continue;
        CHECK(std::any_of(flows.flows.begin(), flows.flows.end(), [&](const auto& f) {
          for (std::size_t q = 0; q < y.size(); ++q)
            if (f[q] > 0 && y[q] == 0) return false;
          return true;
        }));
      }
    }
    for (std::size_t i = 0; i < flows.flows.size(); ++i)
      for (std::size_t j = 0; j < flows.flows.size(); ++j) {
        if (i == j) continue;
        bool holds = true;  // support(i) ⊇ support(j)
        for (std::size_t p = 0; p < net.placeCount(); ++p)
          if (flows.flows[j][p] > 0 && flows.flows[i][p] == 0) holds = false;
        CHECK_FALSE(holds);
      }
  }
}
