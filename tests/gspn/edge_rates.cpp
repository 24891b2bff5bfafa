// The compact storage of a generator's rates: it must read back exactly what was written,
// whichever thread met a rate first.
#include "gspn/edge_rates.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <thread>

using namespace mmt;

TEST_CASE("compact rates read back what was written, and canonical() renumbers by value") {
  const std::vector<double> rates{0.5, 3.0, 0.5, 1e-300, 3.0, 2.25, 0.5};
  gspn::EdgeRates compact;
  compact.assignCompact(rates.size());
  gspn::RateNumbering numbering;
  gspn::RateNumbering::Cache cache;
  for (std::size_t k = 0; k < rates.size(); ++k)
    compact.setNumber(k, *numbering.number(rates[k], cache));
  compact.setTable(numbering.table());
  CHECK(compact.table() == std::vector<double>{0.5, 3.0, 1e-300, 2.25});  // order met
  compact.canonical();
  CHECK(compact.table() == std::vector<double>{1e-300, 0.5, 2.25, 3.0});
  REQUIRE(compact.size() == rates.size());
  for (std::size_t k = 0; k < rates.size(); ++k) CHECK(compact[k] == rates[k]);
  CHECK(compact.bytesPerEntry() == 2);

  // A copy of some entries keeps the form and the table.
  gspn::EdgeRates part = gspn::EdgeRates::like(compact);
  part.appendFrom(compact, 5);
  part.appendFrom(compact, 3);
  CHECK(part.compact());
  CHECK(part.size() == 2);
  CHECK(part[0] == 2.25);
  CHECK(part[1] == 1e-300);

  gspn::EdgeRates wide;
  wide.assignWide(rates.size());
  for (std::size_t k = 0; k < rates.size(); ++k) wide.setWide(k, rates[k]);
  for (std::size_t k = 0; k < rates.size(); ++k) CHECK(wide[k] == compact[k]);
  CHECK(wide.bytesPerEntry() == 8);
  CHECK(!(wide == compact));
}

TEST_CASE("rate numbering: one number per distinct rate across threads, none past 65,536") {
  gspn::RateNumbering numbering;
  // Two threads meet the same 40,000 rates in opposite orders.
  std::vector<gspn::EdgeRates::Number> first(40'000), second(40'000);
  std::thread other([&] {
    gspn::RateNumbering::Cache cache;
    for (int i = 39'999; i >= 0; --i) second[i] = *numbering.number(1.0 + i, cache);
  });
  gspn::RateNumbering::Cache cache;
  for (int i = 0; i < 40'000; ++i) first[i] = *numbering.number(1.0 + i, cache);
  other.join();
  CHECK(first == second);
  const std::vector<double> table = numbering.table();
  REQUIRE(table.size() == 40'000);
  for (int i = 0; i < 40'000; ++i) CHECK(table[first[i]] == 1.0 + i);
  // 25,536 more fit; the next one does not, and one already numbered still does.
  for (int i = 40'000; i < 65'536; ++i) CHECK(numbering.number(1.0 + i, cache).has_value());
  CHECK(!numbering.number(-1.0, cache).has_value());
  CHECK(numbering.number(7.0, cache) == first[6]);
}

TEST_CASE("compacted(): the same bits back, 2 bytes an entry up to 65,536 distinct values") {
  // A chain's exit rates: sums whose bits depend on the order of addition (0.1 + 0.2 and
  // 0.3 differ in the last bit), a signed zero (a dead state), and the largest 7.5.
  const std::vector<double> exits{0.1 + 0.2, 0.3, 0.0, -0.0, 7.5, 0.3, 0.1 + 0.2, 1.25};
  const gspn::EdgeRates compact = gspn::EdgeRates::compacted(exits);
  REQUIRE(compact.compact());
  REQUIRE(compact.size() == exits.size());
  for (std::size_t k = 0; k < exits.size(); ++k)
    CHECK(std::bit_cast<std::uint64_t>(compact[k]) == std::bit_cast<std::uint64_t>(exits[k]));
  CHECK(compact.table().size() == 6);
  CHECK(std::is_sorted(compact.table().begin(), compact.table().end()));
  CHECK(compact.largest() == 7.5);
  CHECK(gspn::EdgeRates::compacted({}).largest() == 0.0);

  // 65,536 distinct values still fit; one more and the array stays wide, with the same values.
  std::vector<double> many(65'536);
  for (std::size_t k = 0; k < many.size(); ++k) many[k] = 1.0 + double(k);
  many.push_back(1.0);  // a repeat
  CHECK(gspn::EdgeRates::compacted(many).compact());
  many.push_back(-2.0);
  const gspn::EdgeRates wide = gspn::EdgeRates::compacted(many);
  CHECK(!wide.compact());
  REQUIRE(wide.size() == many.size());
  bool same = true;
  for (std::size_t k = 0; k < many.size(); ++k) same = same && wide[k] == many[k];
  CHECK(same);
  CHECK(wide.largest() == 65'536.0);
}
