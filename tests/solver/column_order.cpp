// Orders within blocks (solver/column_order.hpp): sorted by length, the order is a stable
// sort inside each window and piece between two starts; for any order, the in-place renumbering
// gives the generator that the copying Generator::renumbered gives for the same order in
// every storage form, a product with the renumbered generator gives every state the
// number it had, and the chain solved in the new numbering has, restored, the same
// stationary distribution.
#include "solver/column_order.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

#include "solver/ctmc.hpp"
#include "solver/steady_state.hpp"

using namespace mmt;
using solver::BlockOrder;

namespace {

/// A random irreducible chain of n states: a ring i → i + 1 and, from each state, up to
/// 11 more edges to random targets, so that the columns' lengths vary. With `distinct`,
/// every rate differs (the wide form); else the rates are 1 to 4.
solver::Generator randomChain(std::size_t n, bool distinct, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<std::tuple<int, int, double>> entries;
  std::vector<double> exitRate(n, 0);
  std::size_t count = 0;
  auto add = [&](std::size_t i, std::size_t j) {
    if (i == j) return;
    const double rate = distinct ? 1 + 1e-6 * double(++count) : double(1 + random() % 4);
    entries.emplace_back(int(i), int(j), rate);
    exitRate[i] += rate;
  };
  for (std::size_t i = 0; i < n; ++i) {
    add(i, (i + 1) % n);
    for (unsigned e = random() % 12; e > 0; --e) add(i, random() % n);
  }
  return solver::generatorFromEntries(n, std::move(entries), std::move(exitRate));
}

/// The order as a list of states, for Generator::renumbered.
std::vector<std::uint32_t> listOf(const BlockOrder& order) {
  std::vector<std::uint32_t> list(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) list[k] = std::uint32_t(order[k]);
  return list;
}

void requireSame(const solver::Generator& a, const solver::Generator& b) {
  REQUIRE(a.size() == b.size());
  REQUIRE(a.entries() == b.entries());
  CHECK(a.offset == b.offset);
  CHECK(a.sourceBits == b.sourceBits);
  for (std::size_t k = 0; k < a.entries(); ++k) {
    CHECK(a.source(k) == b.source(k));
    CHECK(a.rate(k) == b.rate(k));
  }
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a.exitRate[i] == b.exitRate[i]);
}

}  // namespace

TEST_CASE("each window of 256 columns is sorted by length, ties in their order") {
  // 1,000 states: three full windows and one of 232.
  const solver::Generator q = randomChain(1'000, false, 7);
  const BlockOrder order = BlockOrder::byColumnLength(q, {0});
  REQUIRE(order.size() == 1'000);
  auto length = [&q](std::size_t j) { return q.offset[j + 1] - q.offset[j]; };
  std::vector<int> seen(1'000, 0);
  for (std::size_t k = 0; k < 1'000; ++k) {
    const std::size_t j = order[k];
    REQUIRE(j < 1'000);
    ++seen[j];
    CHECK(j / BlockOrder::kWindow == k / BlockOrder::kWindow);  // stays in its window
    if (k % BlockOrder::kWindow != 0) {
      const std::size_t before = order[k - 1];
      CHECK(length(before) <= length(j));
      if (length(before) == length(j)) CHECK(before < j);
    }
  }
  CHECK(std::count(seen.begin(), seen.end(), 1) == 1'000);  // a permutation
  const BlockOrder inverse = order.inverse();
  for (std::size_t k = 0; k < 1'000; ++k) CHECK(inverse[order[k]] == k);
}

TEST_CASE("no state leaves its piece of a window between two starts") {
  const solver::Generator q = randomChain(1'000, false, 9);
  const std::vector<std::uint32_t> starts{0, 100, 300, 301, 700, 999};
  const BlockOrder order = BlockOrder::byColumnLength(q, starts);
  auto piece = [&](std::size_t i) {
    return std::upper_bound(starts.begin(), starts.end(), std::uint32_t(i)) - starts.begin();
  };
  auto length = [&q](std::size_t j) { return q.offset[j + 1] - q.offset[j]; };
  std::size_t moved = 0;
  for (std::size_t k = 0; k < 1'000; ++k) {
    CHECK(piece(order[k]) == piece(k));
    CHECK(order[k] / BlockOrder::kWindow == k / BlockOrder::kWindow);
    if (k > 0 && piece(k - 1) == piece(k) && (k - 1) / 256 == k / 256)
      CHECK(length(order[k - 1]) <= length(order[k]));
    moved += order[k] != k;
  }
  CHECK(moved > 500);  // the sort did something
  // A start at every state: nothing moves.
  std::vector<std::uint32_t> every(1'000);
  std::iota(every.begin(), every.end(), 0u);
  const BlockOrder still = BlockOrder::byColumnLength(q, every);
  for (std::size_t k = 0; k < 1'000; ++k) CHECK(still[k] == k);
}

TEST_CASE("renumbering in place gives what the copying renumbering gives, in every form") {
  for (const std::string form : {"wide", "compact", "packed"}) {
    CAPTURE(form);
    solver::Generator q = randomChain(1'000, form == "wide", 11);
    if (form == "wide") {  // exit rates one double each too
      gspn::EdgeRates exit;
      exit.assignWide(q.size());
      for (std::size_t i = 0; i < q.size(); ++i) exit.setWide(i, q.exitRate[i]);
      q.exitRate = std::move(exit);
    } else {
      std::vector<double> rates(q.entries());
      for (std::size_t k = 0; k < q.entries(); ++k) rates[k] = q.rate(k);
      q.value = gspn::EdgeRates::compacted(std::move(rates));
      REQUIRE(q.value.compact());
    }
    if (form == "packed") q.pack();
    CHECK(q.packed() == (form == "packed"));
    CHECK(q.value.compact() == (form != "wide"));
    CHECK(q.exitRate.compact() == (form != "wide"));
    const BlockOrder order = BlockOrder::byColumnLength(q, {0});
    const solver::Generator copied = q.renumbered(listOf(order));
    solver::Generator inPlace = q;
    const BlockOrder position = solver::renumberWithin(inPlace, order);
    requireSame(inPlace, copied);
    for (std::size_t k = 0; k < q.size(); ++k) CHECK(position[order[k]] == k);
  }
}

TEST_CASE("a product with the sorted generator gives each state's number bit for bit") {
  const solver::Generator q = randomChain(1'000, false, 3);
  const BlockOrder order = BlockOrder::byColumnLength(q, {0});
  solver::Generator sorted = q;
  solver::renumberWithin(sorted, order);
  std::vector<double> x(1'000), moved(1'000);
  for (std::size_t i = 0; i < 1'000; ++i) x[i] = 1.0 / double(3 + i % 17);
  for (std::size_t k = 0; k < 1'000; ++k) moved[k] = x[order[k]];
  for (std::size_t k = 0; k < 1'000; ++k) {
    CHECK(sorted.inflow(k, moved.data()) == q.inflow(order[k], x.data()));
    CHECK(sorted.exitRate[k] == q.exitRate[order[k]]);
  }
  // And the chain is the same: its stationary distribution (GTH) moves with its states.
  solver::SteadyStateSettings gth;
  gth.method = solver::Method::GTH;
  const solver::SteadyStateResult before = solver::solveSteadyState(q, gth);
  const solver::SteadyStateResult after = solver::solveSteadyState(sorted, gth);
  REQUIRE(before.status == solver::Status::Converged);
  REQUIRE(after.status == solver::Status::Converged);
  for (std::size_t k = 0; k < 1'000; ++k)
    CHECK(after.pi[Eigen::Index(k)] ==
          doctest::Approx(before.pi[Eigen::Index(order[k])]).epsilon(1e-12));
  // Gauss–Seidel over the sorted columns, restored, converges to the same distribution.
  solver::SteadyStateSettings gs;
  gs.method = solver::Method::GaussSeidel;
  gs.tolerance = 1e-12;
  solver::SteadyStateResult swept = solver::solveSteadyState(sorted, gs);
  REQUIRE(swept.status == solver::Status::Converged);
  solver::restoreOrder(swept.pi, order);
  CHECK((swept.pi - before.pi).lpNorm<Eigen::Infinity>() <= 1e-9 * before.pi.maxCoeff());
}

TEST_CASE("level partitions and distributions follow the order") {
  const solver::Generator q = randomChain(600, false, 5);
  const BlockOrder order = BlockOrder::byColumnLength(q, {0});
  // Levels by i mod 3, as a LevelSource over the numbering before.
  struct ModThree final : solver::LevelSource {
    std::string placeName(std::size_t) const override { return "p"; }
    std::vector<std::uint64_t> spans() const override { return {3}; }
    solver::BlockPartition levels(std::size_t) const override {
      solver::BlockPartition b;
      b.blockCount = 3;
      for (std::uint32_t i = 0; i < 600; ++i) b.blockOf.push_back(i % 3);
      return b;
    }
  } inner;
  const solver::ReorderedLevels reordered(inner, order);
  const solver::BlockPartition b = reordered.levels(0);
  CHECK(b.blockCount == 3);
  CHECK(reordered.placeName(0) == "p");
  CHECK(reordered.spans() == std::vector<std::uint64_t>{3});
  for (std::size_t k = 0; k < 600; ++k) CHECK(b.blockOf[k] == order[k] % 3);

  Eigen::VectorXd v(600), moved(600);
  for (Eigen::Index i = 0; i < 600; ++i) v[i] = double(i);
  for (std::size_t k = 0; k < 600; ++k) moved[Eigen::Index(k)] = v[Eigen::Index(order[k])];
  solver::restoreOrder(moved, order);
  CHECK(moved == v);
}

TEST_CASE("an order given over blocks of any size renumbers as the copying renumbering does") {
  // Blocks of 10, 390, 599 and 1 states, each shuffled: blocks longer than a window of 256.
  for (const std::string form : {"compact", "packed"}) {
    CAPTURE(form);
    solver::Generator q = randomChain(1'000, false, 13);
    std::vector<double> rates(q.entries());
    for (std::size_t k = 0; k < q.entries(); ++k) rates[k] = q.rate(k);
    q.value = gspn::EdgeRates::compacted(std::move(rates));
    if (form == "packed") q.pack();
    const std::vector<std::uint32_t> starts{0, 10, 400, 999};
    std::vector<std::uint32_t> list(1'000);
    std::iota(list.begin(), list.end(), 0u);
    std::mt19937 random(4);
    for (std::size_t b = 0; b < starts.size(); ++b)
      std::shuffle(list.begin() + starts[b],
                   list.begin() + (b + 1 < starts.size() ? starts[b + 1] : 1'000), random);
    const BlockOrder order(starts, list);
    REQUIRE(order.blockCount() == 4);
    CHECK(order.blockStart(3) == 999);
    CHECK(order.blockStart(4) == 1'000);
    solver::Generator inPlace = q;
    const BlockOrder position = solver::renumberWithin(inPlace, order);
    requireSame(inPlace, q.renumbered(list));
    for (std::size_t k = 0; k < q.size(); ++k) CHECK(position[order[k]] == k);
    Eigen::VectorXd v(1'000), moved(1'000);
    for (Eigen::Index i = 0; i < 1'000; ++i) v[i] = double(i);
    for (std::size_t k = 0; k < 1'000; ++k) moved[Eigen::Index(k)] = v[Eigen::Index(order[k])];
    solver::restoreOrder(moved, order);
    CHECK(moved == v);
  }
  // A state outside its block, a state twice, starts that do not begin at 0: refused.
  std::vector<std::uint32_t> list(20);
  std::iota(list.begin(), list.end(), 0u);
  std::swap(list[3], list[12]);
  CHECK_THROWS_AS(BlockOrder({0, 10}, list), std::invalid_argument);
  CHECK_NOTHROW(BlockOrder({0}, list));
  list[3] = 4;
  CHECK_THROWS_AS(BlockOrder({0}, list), std::invalid_argument);
  std::iota(list.begin(), list.end(), 0u);
  CHECK_THROWS_AS(BlockOrder({5}, list), std::invalid_argument);
}

TEST_CASE("renumbering refuses an order of another size") {
  solver::Generator q = randomChain(300, false, 1);
  const BlockOrder order = BlockOrder::byColumnLength(randomChain(200, false, 1), {0});
  CHECK_THROWS_AS(solver::renumberWithin(q, order), std::invalid_argument);
}
