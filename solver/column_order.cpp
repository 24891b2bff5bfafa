#include "solver/column_order.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>
#include <string>

namespace mmt::solver {
namespace {

constexpr std::size_t kWindow = WindowOrder::kWindow;

/// The windows of n indices: [first, end) of window w.
std::size_t windowCount(std::size_t n) { return (n + kWindow - 1) / kWindow; }
std::size_t windowEnd(std::size_t w, std::size_t n) { return std::min(n, (w + 1) * kWindow); }

/// Which way a permutation within windows moves values: value(k) ← value(order[k])
/// (Gather), or value(order[k]) ← value(k) (Scatter, the inverse).
enum class Move { Gather, Scatter };

/// Moves every value by `order`, through read(i) and write(i, value), a window at a time
/// (windows on every core).
template <typename T, Move move = Move::Gather, typename Read, typename Write>
void gatherWithin(std::size_t n, const WindowOrder& order, Read read, Write write) {
  const auto windows = static_cast<std::ptrdiff_t>(windowCount(n));
#pragma omp parallel for schedule(static) if (n >= 65'536)
  for (std::ptrdiff_t w = 0; w < windows; ++w) {
    const std::size_t first = std::size_t(w) * kWindow, end = windowEnd(std::size_t(w), n);
    std::array<T, kWindow> held;
    for (std::size_t k = first; k < end; ++k) held[k - first] = read(k);
    for (std::size_t k = first; k < end; ++k)
      if constexpr (move == Move::Gather)
        write(k, held[order[k] - first]);
      else
        write(order[k], held[k - first]);
  }
}

template <Move move = Move::Gather, typename Vector>
void gatherWithin(Vector& v, const WindowOrder& order) {
  using T = std::decay_t<decltype(v[0])>;
  gatherWithin<T, move>(
      std::size_t(v.size()), order, [&v](std::size_t i) { return v[i]; },
      [&v](std::size_t k, T x) { v[k] = x; });
}

/// An EdgeRates array (a state's exit rate) in the new order.
void gatherWithin(gspn::EdgeRates& rates, const WindowOrder& order) {
  if (rates.compact()) {
    const gspn::EdgeRates::Number* number = rates.numbers();
    gatherWithin<gspn::EdgeRates::Number>(
        rates.size(), order, [number](std::size_t i) { return number[i]; },
        [&rates](std::size_t k, gspn::EdgeRates::Number x) { rates.setNumber(k, x); });
  } else {
    const double* wide = rates.wide();
    gatherWithin<double>(
        rates.size(), order, [wide](std::size_t i) { return wide[i]; },
        [&rates](std::size_t k, double x) { rates.setWide(k, x); });
  }
}

}  // namespace

WindowOrder WindowOrder::byColumnLength(const Generator& q,
                                        const std::vector<std::uint32_t>& starts) {
  const std::size_t n = q.size();
  WindowOrder order;
  order.local_.resize(n);
  const auto windows = static_cast<std::ptrdiff_t>(windowCount(n));
#pragma omp parallel for schedule(static) if (n >= 65'536)
  for (std::ptrdiff_t w = 0; w < windows; ++w) {
    const std::size_t first = std::size_t(w) * kWindow, end = windowEnd(std::size_t(w), n);
    std::uint8_t* local = order.local_.data() + first;
    std::iota(local, local + (end - first), std::uint8_t{0});
    const auto length = [&](std::uint8_t i) {
      return q.offset[first + i + 1] - q.offset[first + i];
    };
    // The pieces of the window between the starts within it.
    auto cut = std::upper_bound(starts.begin(), starts.end(), first);
    for (std::size_t from = first; from < end;) {
      std::size_t to = end;
      if (cut != starts.end() && *cut < end) to = *cut++;
      std::stable_sort(local + (from - first), local + (to - first),
                       [&](std::uint8_t a, std::uint8_t b) { return length(a) < length(b); });
      from = to;
    }
  }
  return order;
}

WindowOrder WindowOrder::inverse() const {
  WindowOrder out;
  out.local_.resize(size());
  for (std::size_t k = 0; k < size(); ++k)
    out.local_[(*this)[k]] = static_cast<std::uint8_t>(k % kWindow);
  return out;
}

WindowOrder renumberWithin(Generator& q, const WindowOrder& order) {
  const std::size_t n = q.size();
  if (order.size() != n)
    throw std::invalid_argument("renumberWithin: an order of " + std::to_string(order.size()) +
                                " states for a generator of " + std::to_string(n));
  // Every entry's source to its new number.
  const WindowOrder position = order.inverse();
  const auto entries = static_cast<std::ptrdiff_t>(q.entries());
  const unsigned shift = q.sourceBits;
#pragma omp parallel for schedule(static) if (entries >= 65'536)
  for (std::ptrdiff_t k = 0; k < entries; ++k) {
    const auto word = static_cast<std::uint32_t>(q.index[std::size_t(k)]);
    if (shift == 0) {
      q.index[std::size_t(k)] = static_cast<std::int32_t>(position[word]);
    } else {
      const auto source =
          static_cast<std::uint32_t>(position[gspn::PackedEdge::state(word, shift)]);
      q.index[std::size_t(k)] = static_cast<std::int32_t>(
          gspn::PackedEdge::pack(source, gspn::PackedEdge::number(word, shift), shift));
    }
  }
  // Each window's columns in the new order, within the window's run of entries.
  const bool numbered = !q.packed() && q.value.compact(), wide = !q.packed() && !q.value.compact();
  const auto windows = static_cast<std::ptrdiff_t>(windowCount(n));
#pragma omp parallel if (n >= 65'536)
  {
    std::vector<std::int32_t> index;
    std::vector<gspn::EdgeRates::Number> number;
    std::vector<double> rate;
    std::array<int, kWindow + 1> offset;
#pragma omp for schedule(static)
    for (std::ptrdiff_t w = 0; w < windows; ++w) {
      const std::size_t first = std::size_t(w) * kWindow, end = windowEnd(std::size_t(w), n);
      const auto base = std::size_t(q.offset[first]), count = std::size_t(q.offset[end]) - base;
      std::copy(q.offset.begin() + std::ptrdiff_t(first),
                q.offset.begin() + std::ptrdiff_t(end) + 1, offset.begin());
      index.assign(q.index.begin() + std::ptrdiff_t(base),
                   q.index.begin() + std::ptrdiff_t(base + count));
      if (numbered) number.assign(q.value.numbers() + base, q.value.numbers() + base + count);
      if (wide) rate.assign(q.value.wide() + base, q.value.wide() + base + count);
      std::size_t next = base;
      for (std::size_t k = first; k < end; ++k) {
        const std::size_t j = order[k] - first;
        for (auto e = std::size_t(offset[j]) - base; e < std::size_t(offset[j + 1]) - base;
             ++e, ++next) {
          q.index[next] = index[e];
          if (numbered) q.value.setNumber(next, number[e]);
          if (wide) q.value.setWide(next, rate[e]);
        }
        q.offset[k + 1] = static_cast<int>(next);
      }
    }
  }
  gatherWithin(q.exitRate, order);
  return position;
}

void restoreOrder(Eigen::VectorXd& v, const WindowOrder& order) {
  gatherWithin<Move::Scatter>(v, order);
}

BlockPartition ReorderedLevels::levels(std::size_t place) const {
  BlockPartition partition = inner_.levels(place);
  gatherWithin(partition.blockOf, order_);
  return partition;
}

}  // namespace mmt::solver
