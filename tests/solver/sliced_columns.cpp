// The generator's columns in slices (solver/sliced_columns.hpp) against the generator's own
// columns: the same sums entry by entry, the same entries, and the same transient
// distributions through either.
#include "solver/sliced_columns.hpp"

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <random>
#include <tuple>

#include "gspn/reachability.hpp"
#include "solve_helpers.hpp"
#include "solver/transient.hpp"

using namespace mmt;

namespace {

/// `q` with its rates numbered in a table and packed with the sources (as exploration
/// stores a chain's edges), or unchanged where they do not fit.
solver::Generator packed(solver::Generator q) {
  std::vector<double> rates(q.entries());
  for (std::size_t k = 0; k < rates.size(); ++k) rates[k] = q.rate(k);
  q.value = gspn::EdgeRates::compacted(std::move(rates));
  q.pack();
  return q;
}

/// n states, column j with j % 13 entries from random sources at one of `distinct` rates.
solver::Generator randomGenerator(std::size_t n, int distinct, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> source(0, int(n) - 1), number(0, distinct - 1);
  std::vector<std::tuple<int, int, double>> entries;
  std::vector<double> exit(n, 0.0);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t e = 0; e < j % 13; ++e) {
      const int i = source(random);
      const double rate = 0.5 + 0.25 * number(random);
      entries.emplace_back(i, int(j), rate);
      exit[std::size_t(i)] += rate;
    }
  return solver::generatorFromEntries(n, std::move(entries), std::move(exit));
}

}  // namespace

TEST_CASE("sliced columns: each column's flow and entries as the generator's, entry by entry") {
  for (std::size_t n : {std::size_t(5), std::size_t(6), std::size_t(1003), std::size_t(4096)}) {
    CAPTURE(n);
    const solver::Generator q = packed(randomGenerator(n, 9, unsigned(n)));
    REQUIRE(q.packed());
    const std::optional<solver::SlicedColumns> sliced = solver::SlicedColumns::of(q);
    REQUIRE(sliced);
    CHECK(sliced->size() == n);
    CHECK(sliced->slices() == (n + 3) / 4);
    CHECK(sliced->stored() >= q.entries());
    CHECK(sliced->stored() % 4 == 0);
    std::mt19937 random(7);
    std::uniform_real_distribution<double> uniform(0, 1);
    std::vector<double> x(n);
    for (double& v : x) v = uniform(random);
    std::vector<double> flow(sliced->slices() * 4);
    std::size_t columns = 0;
    for (std::size_t s = 0; s < sliced->slices(); ++s)
      columns += sliced->inflows(s, x.data(), flow.data() + 4 * s);
    CHECK(columns == n);
    std::size_t different = 0, entries = 0, wrong = 0;
    for (std::size_t j = 0; j < n; ++j) {
      different += flow[j] != q.inflow(j, x.data());
      auto k = std::size_t(q.offset[j]);
      sliced->forEachEntry(j, [&](std::uint32_t i, gspn::EdgeRates::Number number) {
        wrong += k >= std::size_t(q.offset[j + 1]) || int(i) != q.source(k) ||
                 sliced->table()[number] != q.rate(k);
        ++k, ++entries;
      });
    }
    CHECK(different == 0);
    CHECK(entries == q.entries());
    CHECK(wrong == 0);
  }
}

TEST_CASE(
    "sliced columns from a generator given up: the slices of the generator kept, over "
    "several stretches of released pages, and the generator's entries gone") {
  // 700,000 columns of 0 to 12 entries: 4.2 M entries, over a stretch (4 M, 16 MB). Pages
  // released too soon would read as zeros in the copy.
  const solver::Generator q = packed(randomGenerator(700'000, 5, 3));
  REQUIRE(q.entries() > (std::size_t(1) << 22));
  const std::optional<solver::SlicedColumns> kept = solver::SlicedColumns::of(q);
  solver::Generator given = q;
  const std::optional<solver::SlicedColumns> taken = solver::SlicedColumns::from(std::move(given));
  REQUIRE(kept);
  REQUIRE(taken);
  CHECK(given.entries() == 0);
  CHECK(given.offset.empty());
  CHECK(given.size() == q.size());  // the exit rates stay
  CHECK(taken->stored() == kept->stored());
  std::vector<double> x(q.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 / double(1 + i % 97);
  std::size_t different = 0;
  for (std::size_t s = 0; s < kept->slices(); ++s) {
    double a[4], b[4];
    kept->inflows(s, x.data(), a);
    taken->inflows(s, x.data(), b);
    for (int c = 0; c < 4; ++c) different += a[c] != b[c];
  }
  CHECK(different == 0);
}

TEST_CASE("sliced columns: none for a generator not packed, or whose numbers fill their bits") {
  const solver::Generator wide = randomGenerator(100, 3, 1);
  REQUIRE_FALSE(wide.packed());
  CHECK_FALSE(solver::SlicedColumns::of(wide));
  // 2^19 + 1 states take 20 bits of a word; 4,096 rates take the other 12, and the
  // padding's rate would need a 13th.
  const std::size_t n = (std::size_t(1) << 19) + 1;
  std::vector<std::tuple<int, int, double>> entries;
  std::vector<double> exit(n);
  for (std::size_t j = 0; j < n; ++j) {
    const double rate = 1 + 0.001 * double(j % 4096);
    entries.emplace_back(int((j + 1) % n), int(j), rate);
    exit[(j + 1) % n] = rate;
  }
  const solver::Generator full =
      packed(solver::generatorFromEntries(n, std::move(entries), std::move(exit)));
  REQUIRE(full.packed());
  CHECK(full.sourceBits == 20);
  CHECK(full.value.table().size() == 4096);
  CHECK_FALSE(solver::SlicedColumns::of(full));
}

TEST_CASE(
    "uniformization over sliced columns gives the distributions of the generator's own "
    "columns over every state and over the states held and may free the generator's "
    "entries" *
    doctest::test_suite("slow")) {
  // A walk reflected at 0 and 19,999 that starts at 0 and drifts up, with rates that depend
  // on where it is (up to three servers): the first 32 products go over every state, the
  // next ones over the states held, and once it has spread (towards t = 4,000) over every
  // state again.
  const api::Model model = testing::loadModelText(
      "place n;\n"
      "timed up rate 2.5 out n inhibit n * 19999;\n"
      "timed down rate 0.7 servers 3 in n;\n");
  gspn::ExplorationResult explored = gspn::exploreTangible(model.net());
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  const solver::Generator q =
      solver::buildGenerator(explored.graph, solver::everyState(explored.graph));
  REQUIRE(q.packed());
  REQUIRE(solver::SlicedColumns::of(q));
  const solver::Generator wide = solver::generatorFromEntries(
      q.size(),
      [&] {
        std::vector<std::tuple<int, int, double>> entries;
        for (std::size_t j = 0; j < q.size(); ++j)
          for (auto k = std::size_t(q.offset[j]); k < std::size_t(q.offset[j + 1]); ++k)
            entries.emplace_back(q.source(k), int(j), q.rate(k));
        return entries;
      }(),
      [&] {
        std::vector<double> exit(q.size());
        for (std::size_t i = 0; i < q.size(); ++i) exit[i] = q.exitRate[i];
        return exit;
      }());
  REQUIRE_FALSE(wide.packed());

  solver::TransientSettings settings;
  settings.times = {5, 50, 4000};
  const auto& initial = explored.graph.initial;
  const solver::TransientResult overSlices = solver::solveTransient(q, initial, settings);
  const solver::TransientResult overColumns = solver::solveTransient(wide, initial, settings);
  solver::Generator moved = q;
  const solver::TransientResult freeing =
      solver::solveTransient(std::move(moved), initial, settings);
  CHECK(moved.entries() == 0);
  CHECK(moved.size() == q.size());
  REQUIRE(overSlices.status == solver::Status::Converged);
  CHECK(overSlices.heldProducts > 100);
  CHECK(overSlices.heldProducts + 100 < overSlices.iterations);
  CHECK(overSlices.heldProducts == overColumns.heldProducts);
  CHECK(overSlices.iterations == overColumns.iterations);
  for (std::size_t i = 0; i < settings.times.size(); ++i) {
    CAPTURE(settings.times[i]);
    CHECK(overSlices.distributions[i].sum() == doctest::Approx(1).epsilon(1e-9));
    CHECK((overSlices.distributions[i] - overColumns.distributions[i]).lpNorm<1>() <= 1e-14);
    CHECK((overSlices.distributions[i] - freeing.distributions[i]).lpNorm<1>() == 0);
  }
}
