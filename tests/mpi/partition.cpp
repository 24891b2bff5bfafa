// The choice of a partition by places (mpi/partition.hpp) on samples whose best partition
// is known by hand: grids of two counters, whose edges change one counter by one.
#include "mpi/partition.hpp"

#include <doctest/doctest.h>

#include <vector>

using mmt::gspn::MarkingView;
using mmt::gspn::Tokens;
using mmt::mpi::choosePartition;
using mmt::mpi::PartitionSample;

namespace {

/// The states (a, b, 7) for a, b in 0..side−1, each with an edge to its neighbours
/// a ± 1 and b ± 1 within the grid; the third place never changes.
PartitionSample grid(Tokens side) {
  PartitionSample sample(3);
  for (Tokens a = 0; a < side; ++a)
    for (Tokens b = 0; b < side; ++b) sample.addState(std::vector<Tokens>{a, b, 7});
  auto at = [&](Tokens a, Tokens b) { return std::uint32_t(a * side + b); };
  for (Tokens a = 0; a < side; ++a)
    for (Tokens b = 0; b < side; ++b) {
      if (a > 0) sample.addEdge(at(a, b), std::vector<Tokens>{a - 1, b, 7});
      if (a + 1 < side) sample.addEdge(at(a, b), std::vector<Tokens>{a + 1, b, 7});
      if (b > 0) sample.addEdge(at(a, b), std::vector<Tokens>{a, b - 1, 7});
      if (b + 1 < side) sample.addEdge(at(a, b), std::vector<Tokens>{a, b + 1, 7});
    }
  return sample;
}

}  // namespace

TEST_CASE("two ranks on a 10 x 10 grid: cut by one counter at its middle") {
  const auto choice = choosePartition(grid(10), 2);
  REQUIRE(choice.partition.byPlaces());
  // Both counters cut as well; the first is tried first and a second place adds nothing.
  CHECK(choice.partition.places() == std::vector<mmt::gspn::PlaceId>{0});
  // 360 directed edges; 20 cross between a = 4 and a = 5 (10 values of b, both ways).
  CHECK(choice.crossFraction == doctest::Approx(20.0 / 360));
  CHECK(choice.largestShare == doctest::Approx(0.5));
  CHECK(choice.partition.owner(std::vector<Tokens>{4, 9, 7}) == 0);
  CHECK(choice.partition.owner(std::vector<Tokens>{5, 0, 7}) == 1);
}

TEST_CASE("three ranks on a 10 x 10 grid: a second counter evens the load") {
  // By a alone the cuts fall at a = 3 and a = 7 (30, 40 and 30 states: imbalance 0.2,
  // cross 40 / 360); by (a, b) at (3, 3) and (6, 7): 33, 34, 33 states, 44 / 360 across.
  const auto choice = choosePartition(grid(10), 3);
  CHECK(choice.partition.places() == std::vector<mmt::gspn::PlaceId>{0, 1});
  CHECK(choice.largestShare == doctest::Approx(0.34));
  CHECK(choice.crossFraction == doctest::Approx(44.0 / 360));
  CHECK(choice.partition.owner(std::vector<Tokens>{3, 2, 7}) == 0);
  CHECK(choice.partition.owner(std::vector<Tokens>{3, 3, 7}) == 1);
  CHECK(choice.partition.owner(std::vector<Tokens>{6, 7, 7}) == 2);
}

TEST_CASE("the hash stays where no key keeps the edges at home") {
  // One counter 0..99 whose edges jump by 37: cut at 50, 74 % of them cross, more than
  // three quarters of the hash's 50 %.
  PartitionSample jumps(1);
  for (Tokens a = 0; a < 100; ++a) jumps.addState(std::vector<Tokens>{a});
  for (Tokens a = 0; a < 100; ++a) jumps.addEdge(a, std::vector<Tokens>{(a + 37) % 100});
  CHECK_FALSE(choosePartition(jumps, 2).partition.byPlaces());
  // A counter with one value cannot cut at all; with one rank there is nothing to cut.
  PartitionSample flat(1);
  for (int k = 0; k < 5; ++k) flat.addState(std::vector<Tokens>{3});
  CHECK_FALSE(choosePartition(flat, 2).partition.byPlaces());
  CHECK_FALSE(choosePartition(grid(4), 1).partition.byPlaces());
}

TEST_CASE("samples gathered from ranks: one sample, sources renumbered") {
  PartitionSample first(2), second(2);
  first.addState(std::vector<Tokens>{0, 1});
  first.addEdge(0, std::vector<Tokens>{1, 1});
  second.addState(std::vector<Tokens>{5, 5});
  second.addState(std::vector<Tokens>{6, 5});
  second.addEdge(1, std::vector<Tokens>{6, 4});
  std::vector<std::uint32_t> flat = first.flatten();
  const std::vector<std::uint32_t> more = second.flatten();
  flat.insert(flat.end(), more.begin(), more.end());
  const PartitionSample all = PartitionSample::merge(2, flat);
  REQUIRE(all.stateCount() == 3);
  REQUIRE(all.edgeCount() == 2);
  CHECK(all.states == std::vector<Tokens>{0, 1, 5, 5, 6, 5});
  CHECK(all.source == std::vector<std::uint32_t>{0, 2});
  REQUIRE(all.changes.size() == 2);
  CHECK(all.changes[0].place == 0);
  CHECK(all.changes[0].tokens == 1);
  CHECK(all.changes[1].place == 1);
  CHECK(all.changes[1].tokens == 4);
  CHECK(all.changesAt == std::vector<std::uint32_t>{0, 1, 2});
}
