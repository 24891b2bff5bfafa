#include "gspn/edge_rates.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

namespace mmt::gspn {

void EdgeRates::assignWide(std::size_t n) {
  release();
  compact_ = false;
  wide_.assign(n, 0.0);
}

void EdgeRates::assignCompact(std::size_t n) {
  release();
  compact_ = true;
  numbers_.resize(n);  // uninitialised: the pages are provided as they are written
}

std::vector<EdgeRates::Number> EdgeRates::sortTable(std::vector<double>& table) {
  std::vector<Number> order(table.size());
  std::iota(order.begin(), order.end(), Number{0});
  std::sort(order.begin(), order.end(), [&](Number a, Number b) { return table[a] < table[b]; });
  std::vector<Number> renumber(table.size());
  std::vector<double> sorted(table.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    renumber[order[i]] = static_cast<Number>(i);
    sorted[i] = table[order[i]];
  }
  table = std::move(sorted);
  return renumber;
}

void EdgeRates::canonical() {
  if (!compact_ || std::is_sorted(table_.begin(), table_.end())) return;
  const std::vector<Number> renumber = sortTable(table_);
  for (Number& number : numbers_) number = renumber[number];
}

EdgeRates EdgeRates::compacted(std::vector<double> values) {
  EdgeRates out;
  out.assignCompact(values.size());
  RateNumbering numbering;
  RateNumbering::Cache cache;
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::optional<Number> number = numbering.number(values[k], cache);
    if (!number) {  // more than kMaxDistinct distinct: a double an entry
      out.release();
      out.wide_ = std::move(values);
      return out;
    }
    out.numbers_[k] = *number;
  }
  out.table_ = numbering.table();
  std::vector<double>().swap(values);
  out.canonical();
  return out;
}

double EdgeRates::largest() const {
  const std::vector<double>& all = compact_ ? table_ : wide_;
  return all.empty() ? 0.0 : *std::max_element(all.begin(), all.end());
}

EdgeRates EdgeRates::like(const EdgeRates& other) {
  EdgeRates out;
  out.compact_ = other.compact_;
  out.table_ = other.table_;
  return out;
}

void EdgeRates::release() {
  compact_ = false;
  // Assigned fresh arrays: `= {}` assigns an empty initializer list, which keeps the
  // capacity, and these arrays are the generator's largest.
  wide_ = decltype(wide_)();
  numbers_ = decltype(numbers_)();
  table_ = decltype(table_)();
}

std::optional<EdgeRates::Number> RateNumbering::numberMissed(std::uint64_t bits, unsigned slot,
                                                             Cache& cache) {
  if (auto hit = cache.map.find(bits); hit != cache.map.end()) {
    cache.bits[slot] = bits;
    cache.number[slot] = hit->second;
    return hit->second;
  }
  std::lock_guard lock(mutex_);
  auto found = numbers_.find(bits);
  if (found == numbers_.end()) {
    if (table_.size() == EdgeRates::kMaxDistinct) return std::nullopt;
    found = numbers_.emplace(bits, static_cast<EdgeRates::Number>(table_.size())).first;
    table_.push_back(std::bit_cast<double>(bits));
  }
  cache.map.emplace(bits, found->second);
  cache.bits[slot] = bits;
  cache.number[slot] = found->second;
  return found->second;
}

}  // namespace mmt::gspn
