// The compact storage of a generator's rates: it must read back exactly what was written,
// whichever thread met a rate first.
#include "gspn/edge_rates.hpp"

#include <doctest/doctest.h>

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
