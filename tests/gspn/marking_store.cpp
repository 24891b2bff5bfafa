// The packed marking store built without a hash index (the markings a rank receives when
// the ranks' markings move to their owners, mpi/state_space.cpp): ids in the order of
// appending, contents that survive a widening and a move, and no index rebuilt by either.
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
