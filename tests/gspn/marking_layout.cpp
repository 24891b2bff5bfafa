// The marking layout: constant places left out of the key, bounded places packed into the
// bits of their P-invariant or inhibitor bound, every marking in the bounds read back as
// it was, keys ordered as their markings; and exploration with packed keys finding the
// graph it finds with a counter per changing place, on nets with semiflow bounds,
// inhibitor bounds and marking-dependent arcs; a store of one-word keys indexed directly.
#include "gspn/marking_layout.hpp"

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gspn/invariants.hpp"
#include "gspn/marking_store.hpp"
#include "gspn/reachability.hpp"
#include "solve_helpers.hpp"

using namespace mmt;
using testing::BenchCase;
using testing::loadBenchModel;
using testing::loadGspnText;

namespace {

/// A token in `idle` or `busy` (a + b = 1), up to 5 in q (an inhibitor arc of 5 on the
/// only transition that raises it), a place read but never changed (`lock`, 3 tokens), and
/// one never touched (`spare`, 2).
const char* const kSmall =
    "place idle = 1; place busy; place q; place lock = 3; place spare = 2;"
    "timed arrive rate 1 out q inhibit q * 5;"
    "timed start rate 2 in idle, q, lock out busy, lock;"
    "timed finish rate 3 in busy out idle;";

std::vector<std::uint64_t> boundsOf(const gspn::Net& net) {
  return gspn::analyzeBoundedness(net, gspn::computePSemiflows(net)).bound;
}

}  // namespace

TEST_CASE("bounds: a semiflow's y·m0 / y_p, an inhibitor arc's h − 1 plus what a firing adds") {
  const gspn::Net net = loadGspnText(kSmall);
  const std::vector<std::uint64_t> bounds = boundsOf(net);
  CHECK(bounds[*net.findPlace("idle")] == 1);
  CHECK(bounds[*net.findPlace("busy")] == 1);
  CHECK(bounds[*net.findPlace("q")] == 5);  // fires at 4 or fewer, adds 1
  CHECK(bounds[*net.findPlace("lock")] == 3);
  CHECK(bounds[*net.findPlace("spare")] == 2);
  // The ring of 8 stations with N = 5 jobs: S_i + B_i = 1, Σ (Q_i + B_i) = 5.
  const gspn::Net ring = loadBenchModel("ring8.gspn", {{"N", 5}});
  const std::vector<std::uint64_t> ringBounds = boundsOf(ring);
  CHECK(ringBounds[*ring.findPlace("S3")] == 1);
  CHECK(ringBounds[*ring.findPlace("Q3")] == 5);
  const gspn::Net mm1 =
      loadGspnText("place q; timed arrive rate 1 out q; timed serve rate 2 in q;");
  CHECK(boundsOf(mm1) == std::vector{gspn::Boundedness::kNoBound});
}

TEST_CASE("a packed key holds the changing places in their bits and reads back every marking") {
  const gspn::Net net = loadGspnText(kSmall);
  const gspn::MarkingLayout layout(net, boundsOf(net));
  const gspn::PlaceId idle = *net.findPlace("idle"), busy = *net.findPlace("busy"),
                      q = *net.findPlace("q"), lock = *net.findPlace("lock"),
                      spare = *net.findPlace("spare");
  CHECK(layout.changing() == std::vector{idle, busy, q});
  REQUIRE(layout.packed());
  CHECK(layout.keyLength() == 1);  // 1 + 1 + 3 bits
  std::vector<gspn::Tokens> m = net.initialMarking(), key, back(net.placeCount());
  for (gspn::Tokens a = 0; a <= 1; ++a)
    for (gspn::Tokens b = 0; b <= 1; ++b)
      for (gspn::Tokens c = 0; c <= 5; ++c) {
        m[idle] = a, m[busy] = b, m[q] = c;
        layout.key(m, key);
        REQUIRE(key.size() == 1);
        CHECK((key[0] & ((1u << 27) - 1)) == 0);  // 5 bits, from the top down
        layout.expand(key, back);
        CHECK(back == m);
        CHECK(layout.tokens(key, q) == c);
        CHECK(layout.tokens(key, lock) == 3);
        CHECK(layout.tokens(key, spare) == 2);
      }
  // Keys compare as their markings do, word by word (the steady state's sweep order sorts
  // a level by its keys).
  std::vector<std::vector<gspn::Tokens>> markings, keys;
  for (gspn::Tokens a = 0; a <= 1; ++a)
    for (gspn::Tokens c = 0; c <= 5; ++c)
      for (gspn::Tokens b = 0; b <= 1; ++b) {
        m[idle] = a, m[busy] = b, m[q] = c;
        markings.push_back(m);
        layout.key(m, key);
        keys.push_back(key);
      }
  for (std::size_t i = 0; i < markings.size(); ++i)
    for (std::size_t j = 0; j < markings.size(); ++j)
      CHECK((keys[i] < keys[j]) == (markings[i] < markings[j]));
  // Past its bound's bits, a count cannot be stored: an error, not a wrong marking.
  m[q] = 8;
  CHECK_THROWS_AS(layout.key(m, key), std::logic_error);
  // Without bounds, or with one place unbounded, a key holds a counter per changing place.
  const gspn::Net unbounded = loadGspnText(std::string(kSmall) + "timed more rate 1 out q;");
  for (const gspn::MarkingLayout& plain :
       {gspn::MarkingLayout(net, {}), gspn::MarkingLayout(unbounded, boundsOf(unbounded))}) {
    CHECK_FALSE(plain.packed());
    CHECK(plain.keyLength() == 3);
  }
  m[q] = 70'000;
  const gspn::MarkingLayout plain(net, {});
  plain.key(m, key);
  CHECK(key == std::vector<gspn::Tokens>{m[idle], m[busy], 70'000});
  plain.expand(key, back);
  CHECK(back == m);
  CHECK_THROWS_AS(gspn::MarkingLayout(net, std::vector<std::uint64_t>(2, 1)),
                  std::invalid_argument);
}

TEST_CASE("a firing's change to a packed key is the key of the fired marking") {
  const BenchCase cases[] = {{"kanban.gspn", {{"N", 2}}},
                             {"fms.gspn", {{"N", 2}}},
                             {"ring8.gspn", {{"N", 4}}},
                             {"tandem.gspn", {{"c", 15}}}};
  for (const BenchCase& c : cases) {
    CAPTURE(c.file);
    const gspn::Net net = loadBenchModel(c.file, c.overrides);
    const gspn::MarkingLayout layout(net, boundsOf(net));
    REQUIRE(layout.packed());
    // Every transition, timed or immediate, in every tangible marking where it is enabled.
    const auto explored = gspn::exploreTangible(net, {});
    REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
    std::size_t compared = 0, withFiring = 0;
    bool same = true;
    std::vector<gspn::Tokens> fired(net.placeCount()), key, expected, got;
    for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t) {
      const auto firing = layout.firing(net, t);
      CHECK(firing.has_value() == !net.hasMarkingDependentArcs(t));
      if (!firing) continue;
      ++withFiring;
      for (std::uint32_t s = 0; s < explored.graph.stateCount(); ++s) {
        const std::vector<gspn::Tokens> m = explored.graph.marking(s);
        if (!net.isEnabled(t, m)) continue;
        net.fire(t, m, fired);
        layout.key(m, key);
        layout.key(fired, expected);
        layout.fire(*firing, m, key, got);
        same = same && got == expected;
        ++compared;
      }
    }
    CHECK(same);
    CHECK(withFiring >= 4);
    CHECK(compared >= explored.graph.stateCount());
  }
  // FMS's flush arcs take as many tokens as the place holds: no constant change.
  const gspn::Net fms = loadBenchModel("fms.gspn", {{"N", 2}});
  const gspn::MarkingLayout fmsLayout(fms, boundsOf(fms));
  std::size_t markingDependent = 0;
  for (gspn::TransitionId t = 0; t < fms.transitionCount(); ++t)
    if (fms.hasMarkingDependentArcs(t)) {
      ++markingDependent;
      CHECK_FALSE(fmsLayout.firing(fms, t).has_value());
    }
  CHECK(markingDependent > 0);
  // A count past its field is an error, as key() gives for the fired marking: here q's
  // bound is wrongly 3 (two bits) and `arrive` puts a fourth token in it.
  const gspn::Net net = loadGspnText(kSmall);
  std::vector<std::uint64_t> wrong = boundsOf(net);
  const gspn::PlaceId q = *net.findPlace("q");
  wrong[q] = 3;
  const gspn::MarkingLayout tight(net, wrong);
  std::vector<gspn::Tokens> m = net.initialMarking(), key, to, fired(net.placeCount());
  m[q] = 3;
  tight.key(m, key);
  const gspn::TransitionId arrive = *net.findTransition("arrive");
  REQUIRE(net.isEnabled(arrive, m));
  net.fire(arrive, m, fired);
  CHECK_THROWS_AS(tight.key(fired, to), std::logic_error);
  CHECK_THROWS_AS(tight.fire(*tight.firing(net, arrive), m, key, to), std::logic_error);
  m[q] = 2;
  tight.key(m, key);
  tight.fire(*tight.firing(net, arrive), m, key, to);
  std::vector<gspn::Tokens> back(net.placeCount());
  tight.expand(to, back);
  CHECK(back[q] == 3);
  // Without bounds the key is a counter a place, not packed: no firing.
  CHECK_FALSE(gspn::MarkingLayout(net, {}).firing(net, arrive).has_value());
}

TEST_CASE("exploration with packed keys finds the graph a counter per place finds") {
  const BenchCase cases[] = {{"kanban.gspn", {{"N", 3}}},
                             {"fms.gspn", {{"N", 3}}},  // marking-dependent flush arcs
                             {"ring8.gspn", {{"N", 6}}},
                             {"tandem.gspn", {{"c", 31}}}};  // inhibitor bounds
  for (const BenchCase& c : cases) {
    CAPTURE(c.file);
    const gspn::Net net = loadBenchModel(c.file, c.overrides);
    gspn::ExplorationSettings settings;
    const auto plain = gspn::exploreTangible(net, settings);
    settings.placeBounds = boundsOf(net);
    const auto packed = gspn::exploreTangible(net, settings);
    REQUIRE(plain.status == gspn::ExplorationResult::Status::Ok);
    REQUIRE(packed.status == gspn::ExplorationResult::Status::Ok);
    REQUIRE(packed.graph.markings.layout()->packed());
    CHECK_FALSE(plain.graph.markings.layout()->packed());
    REQUIRE(packed.graph.stateCount() == plain.graph.stateCount());
    CHECK(packed.graph.inOffset == plain.graph.inOffset);
    CHECK(packed.graph.exitRate == plain.graph.exitRate);
    bool same = true;
    for (std::uint32_t s = 0; s < plain.graph.stateCount(); ++s) {
      const std::vector<gspn::Tokens> m = plain.graph.marking(s);
      same = same && packed.graph.marking(s) == m;
      for (gspn::PlaceId p = 0; p < net.placeCount(); ++p)
        same = same && packed.graph.markings.tokens(s, p) == m[p] &&
               plain.graph.markings.tokens(s, p) == m[p];
    }
    CHECK(same);
    // A packed key is never longer than a byte per changing place.
    CHECK(packed.graph.markings.layout()->keyLength() * 4 <=
          std::max<std::size_t>(4, packed.graph.markings.layout()->changing().size()));
  }
}

TEST_CASE("a store of one-word keys, indexed directly, gives the ids a map of the keys gives") {
  // idle + busy = 1 and q up to 5,000: keys of 1 + 1 + 13 bits, an index of 2^15 ids.
  const gspn::Net net = loadGspnText(
      "place idle = 1; place busy; place q;"
      "timed arrive rate 1 out q inhibit q * 5001;"
      "timed start rate 2 in idle, q out busy;"
      "timed finish rate 3 in busy out idle;");
  const auto layout = std::make_shared<const gspn::MarkingLayout>(net, boundsOf(net));
  REQUIRE(layout->keyLength() == 1);
  REQUIRE(layout->significantBits() == 15);
  const gspn::PlaceId idle = *net.findPlace("idle"), busy = *net.findPlace("busy"),
                      q = *net.findPlace("q");
  // Every marking of the box, its key, in a scrambled order.
  std::vector<std::vector<gspn::Tokens>> markings, keys;
  std::vector<gspn::Tokens> m = net.initialMarking(), key;
  for (gspn::Tokens c = 0; c <= 5000; ++c)
    for (gspn::Tokens a = 0; a <= 1; ++a) {
      m[idle] = a, m[busy] = 1 - a, m[q] = (c * 2999) % 5001;
      markings.push_back(m);
      layout->key(m, key);
      keys.push_back(key);
    }
  gspn::PackedMarkingStore store(layout);
  std::map<std::vector<gspn::Tokens>, gspn::PackedMarkingStore::Id> expected;
  // The first half inserted one at a time, each twice.
  const std::size_t half = keys.size() / 2;
  for (std::size_t i = 0; i < half; ++i)
    for (int twice = 0; twice < 2; ++twice) {
      const auto [id, fresh] = store.insert(keys[i]);
      const auto [at, added] =
          expected.emplace(keys[i], gspn::PackedMarkingStore::Id(expected.size()));
      CHECK(fresh == added);
      CHECK(id == at->second);
    }
  CHECK(store.size() == half);
  // The index is the array of 2^15 ids, not a hash set.
  CHECK(store.memoryBytes() >= (std::size_t(1) << 15) * 4);
  // Looked up in a batch: the stored half found, the rest absent.
  std::vector<gspn::MarkingView> views(keys.begin(), keys.end());
  std::vector<gspn::PackedMarkingStore::Id> ids(views.size());
  gspn::PackedMarkingStore::FindScratch scratch;
  store.findMany(views, ids, scratch);
  for (std::size_t i = 0; i < keys.size(); ++i)
    CHECK(ids[i] == (i < half ? expected.at(keys[i]) : gspn::PackedMarkingStore::kAbsent));
  // The second half appended on two threads (more than 4,096: in parallel), then found.
  std::vector<gspn::MarkingView> rest(views.begin() + std::ptrdiff_t(half), views.end());
  store.appendNew(rest, 2);
  for (std::size_t i = half; i < keys.size(); ++i)
    expected.emplace(keys[i], gspn::PackedMarkingStore::Id(expected.size()));
  // Moved, the index is rebuilt from the records.
  const gspn::PackedMarkingStore moved = std::move(store);
  std::vector<std::uint8_t> one;
  bool same = true;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto id = moved.find(keys[i], one);
    same = same && id == expected.at(keys[i]) && moved.decode(*id) == markings[i];
  }
  CHECK(same);
  CHECK(moved.size() == keys.size());
}
