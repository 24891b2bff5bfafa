// P-semiflows by Farkas' algorithm against the ones derived by hand for the benchmark nets,
// and the structural boundedness built on them.
#include "gspn/invariants.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "io/load_gspn.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

gspn::Net load(const std::string& name, const grammar::ParameterOverrides& overrides = {}) {
  const auto path = std::filesystem::path(MMT_SOURCE_DIR) / "tools" / "bench" / "models" / name;
  grammar::SourceFile source = grammar::readSourceFile(path.string());
  grammar::Diagnostics diagnostics(source);
  auto net = io::loadGspn(source, diagnostics, overrides);
  REQUIRE_MESSAGE(net, diagnostics.str());
  return *net;
}

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
  const gspn::Net net = load("kanban.gspn", {{"N", 3}});
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
  const gspn::Net net = load("fms.gspn", {{"N", 2}});
  CHECK(printed(net) ==
        std::set<std::string>{
            "P1M1 + M1 = 3", "P2M2 + M2 = 1", "P12M3 + M3 = 2", "P3 + P3M2 + P3s = 2",
            "P1 + P1wM1 + P1M1 + P1d + P1s + P1wP2 + P12 + P12wM3 + P12M3 + P12s = 2",
            "P12 + P12wM3 + P12M3 + P12s + P2 + P2wM2 + P2M2 + P2d + P2wP1 + P2s = 2"});
  CHECK(gspn::analyzeBoundedness(net, gspn::computePSemiflows(net)).allBounded());
}

TEST_CASE("ring: one server per station and the jobs in all queues") {
  // Station i: S_i + B_i = 1; jobs: Σ (Q_i + B_i) = N.
  const gspn::Net net = load("ring8.gspn", {{"N", 5}});
  const std::set<std::string> flows = printed(net);
  CHECK(flows.size() == 9);
  for (int i = 0; i < 8; ++i)
    CHECK(flows.count("S" + std::to_string(i) + " + B" + std::to_string(i) + " = 1") == 1);
  CHECK(flows.count("Q0 + B0 + Q1 + B1 + Q2 + B2 + Q3 + B3 + Q4 + B4 + Q5 + B5 + Q6 + B6 + "
                    "Q7 + B7 = 5") == 1);
}

TEST_CASE("tandem: the server phase is a P-invariant, the queues are bounded by inhibitor arcs") {
  const gspn::Net net = load("tandem.gspn", {{"c", 7}});
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
  CHECK(bounds.unproven(mm1) == "q");
  const gspn::Net simple = loadGspnText(
      "place p1 = 1; place p2; timed t rate 0.4 in p1 out p2; immediate i out p1 inhibit p1;");
  bounds = gspn::analyzeBoundedness(simple, gspn::computePSemiflows(simple));
  CHECK(bounds.places[*simple.findPlace("p2")] == gspn::Boundedness::Reason::Unproven);
  // An inhibitor arc on only one of two transitions that raise a place proves nothing.
  const gspn::Net half = loadGspnText(
      "place q; timed a rate 1 out q inhibit q * 3; timed b rate 1 out q; timed s rate 2 in q;");
  CHECK_FALSE(gspn::analyzeBoundedness(half, gspn::computePSemiflows(half)).allBounded());
}
