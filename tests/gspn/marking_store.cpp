// The packed marking store and its hash index. Built without an index (the markings a rank
// receives when the ranks' markings move to their owners, mpi/state_space.cpp): ids in the
// order of appending, contents that survive a widening and a move, and no index rebuilt by
// either. Indexed: every id found past full groups, and batched lookups as single ones.
#include "gspn/marking_store.hpp"

#include <doctest/doctest.h>

#include <utility>
#include <vector>

using namespace mmt;

TEST_CASE("a store appended without an index keeps ids and contents, and never indexes") {
  const std::vector<std::vector<gspn::Tokens>> markings = {{0, 1, 2},   {3, 0, 0},       {0, 1, 2},
                                                           {255, 7, 1}, {300, 0, 70000}, {1, 1, 1}};
  gspn::PackedMarkingStore store(3);
  store.reserve(markings.size());
  for (std::size_t k = 0; k < markings.size(); ++k)
    CHECK(store.appendUnindexed(gspn::MarkingView(markings[k])) == k);  // duplicates too
  CHECK(store.size() == markings.size());
  CHECK(store.counterBytes() == 4);  // widened twice: past 255, then past 65,535
  gspn::PackedMarkingStore moved = std::move(store);
  for (std::size_t k = 0; k < markings.size(); ++k)
    CHECK(moved.decode(std::uint32_t(k)) == markings[k]);
  // Without an index, the store's bytes are its arena's: 6 records of 3 four-byte counters
  // in room for at least that.
  CHECK(moved.memoryBytes() >= markings.size() * 3 * 4);
  CHECK(moved.memoryBytes() < 1024);

  // The same markings inserted: the index's buckets count in its bytes.
  gspn::PackedMarkingStore indexed(3);
  for (const auto& m : markings) indexed.insert(gspn::MarkingView(m));
  CHECK(indexed.size() == markings.size() - 1);
  CHECK(indexed.memoryBytes() > moved.memoryBytes());
}

TEST_CASE("the id index finds every id past full groups, colliding tags and growth") {
  // Keys are the ids' squares; hashes put 40 ids on each of few groups with 2 tags, so
  // that searches run over full groups and compare keys whose tags match.
  const std::uint32_t count = 5000;
  auto key = [](std::uint32_t id) { return std::uint64_t(id) * id; };
  struct Keys {
    std::uint64_t (*hashOfId)(std::uint32_t);
    std::uint64_t hash(std::uint32_t id) const { return hashOfId(id); }
    void prefetch(std::uint32_t) const {}
  };
  const Keys keys{[](std::uint32_t id) {  // group bits from bit 6; the tag (1 or 2) in 56+
    const std::uint64_t k = std::uint64_t(id) * id;
    return (k % 97) << 6 | (k % 2 + 1) << 56;
  }};
  gspn::IdIndex index;
  for (std::uint32_t id = 0; id < count; id += 2) index.insertNew(id, keys.hash(id), keys);
  CHECK(index.size() == count / 2);
  CHECK(index.size() * 8 <= index.bucketCount() * 7);
  for (std::uint32_t id = 0; id < count; ++id) {
    const std::uint64_t k = key(id);
    const auto found =
        index.find(keys.hash(id), [&](gspn::IdIndex::Id stored) { return key(stored) == k; });
    if (id % 2 == 0) {
      REQUIRE(found);
      CHECK(*found == id);
    } else {
      CHECK_FALSE(found);
    }
  }
}

TEST_CASE("batched lookups give what one lookup at a time gives") {
  // Markings of 6 places with counts up to 300 (the store widens to 2 bytes) or up to
  // 299,000 (4 bytes: the keys are hashed and compared in place), every third one stored;
  // looked up with findMany in one call and against find().
  for (const gspn::Tokens scale : {1u, 1000u}) {
    CAPTURE(scale);
    auto marking = [scale](std::uint32_t k) {
      return std::vector<gspn::Tokens>{k % 7, k % 300 * scale, k / 300, (k * 31) % 11, 0, k % 5};
    };
    gspn::PackedMarkingStore store(6);
    std::vector<std::uint32_t> idOf(30000, gspn::PackedMarkingStore::kAbsent);
    for (std::uint32_t k = 0; k < idOf.size(); k += 3)
      idOf[k] = store.insert(gspn::MarkingView(marking(k))).first;
    CHECK(store.counterBytes() == (scale == 1 ? 2 : 4));
    std::vector<std::vector<gspn::Tokens>> keys;
    for (std::uint32_t k = 0; k < idOf.size(); ++k) keys.push_back(marking(k));
    keys.push_back({1, 2, 70000 * scale, 0, 0, 0});  // wider than anything stored, or absent
    std::vector<gspn::MarkingView> views(keys.begin(), keys.end());
    std::vector<std::uint32_t> ids(views.size());
    gspn::PackedMarkingStore::FindScratch scratch;
    store.findMany(views, ids, scratch);
    std::vector<std::uint8_t> one;
    for (std::uint32_t k = 0; k < idOf.size(); ++k) {
      CHECK(ids[k] == idOf[k]);
      CHECK(store.find(views[k], one).value_or(gspn::PackedMarkingStore::kAbsent) == ids[k]);
    }
    CHECK(ids.back() == gspn::PackedMarkingStore::kAbsent);
    CHECK_FALSE(store.find(views.back(), one).has_value());
  }
}
