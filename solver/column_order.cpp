#include "solver/column_order.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace mmt::solver {
namespace {

constexpr std::size_t kWindow = BlockOrder::kWindow;

/// Which way a permutation within blocks moves values: value(k) ← value(order[k])
/// (Gather), or value(order[k]) ← value(k) (Scatter, the inverse).
enum class Move { Gather, Scatter };

/// Runs f(first, end) for every block of `order`, the blocks on every core.
template <typename F>
void forEachBlock(const BlockOrder& order, F f) {
  const auto blocks = static_cast<std::ptrdiff_t>(order.blockCount());
#pragma omp parallel for schedule(dynamic) if (order.size() >= 65'536)
  for (std::ptrdiff_t b = 0; b < blocks; ++b)
    f(order.blockStart(std::size_t(b)), order.blockStart(std::size_t(b) + 1));
}

/// Moves every value by `order`, through read(i) and write(i, value), a block at a time.
template <typename T, Move move = Move::Gather, typename Read, typename Write>
void gatherWithin(const BlockOrder& order, Read read, Write write) {
  forEachBlock(order, [&](std::size_t first, std::size_t end) {
    std::vector<T> held(end - first);
    for (std::size_t k = first; k < end; ++k) held[k - first] = read(k);
    for (std::size_t k = first; k < end; ++k)
      if constexpr (move == Move::Gather)
        write(k, held[order[k] - first]);
      else
        write(order[k], held[k - first]);
  });
}

template <Move move = Move::Gather, typename Vector>
void gatherWithin(Vector& v, const BlockOrder& order) {
  using T = std::decay_t<decltype(v[0])>;
  gatherWithin<T, move>(
      order, [&v](std::size_t i) { return v[i]; }, [&v](std::size_t k, T x) { v[k] = x; });
}

/// An EdgeRates array (a state's exit rate) in the new order.
void gatherWithin(gspn::EdgeRates& rates, const BlockOrder& order) {
  if (rates.compact()) {
    const gspn::EdgeRates::Number* number = rates.numbers();
    gatherWithin<gspn::EdgeRates::Number>(
        order, [number](std::size_t i) { return number[i]; },
        [&rates](std::size_t k, gspn::EdgeRates::Number x) { rates.setNumber(k, x); });
  } else {
    const double* wide = rates.wide();
    gatherWithin<double>(
        order, [wide](std::size_t i) { return wide[i]; },
        [&rates](std::size_t k, double x) { rates.setWide(k, x); });
  }
}

}  // namespace

std::vector<std::uint32_t> BlockOrder::blockStarts(std::vector<std::uint32_t> starts,
                                                   std::size_t n) {
  if (n == 0) return {0};
  if (starts.empty() || starts.front() != 0)
    throw std::invalid_argument("BlockOrder: the first block must start at state 0");
  if (!std::is_sorted(starts.begin(), starts.end()) || starts.back() > n)
    throw std::invalid_argument("BlockOrder: the blocks' starts must ascend within the states");
  starts.push_back(static_cast<std::uint32_t>(n));
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

BlockOrder::BlockOrder(std::vector<std::uint32_t> starts, std::vector<std::uint32_t> order)
    : starts_(blockStarts(std::move(starts), order.size())), order_(std::move(order)) {
  std::vector<char> seen(order_.size(), 0);
  for (std::size_t b = 0; b + 1 < starts_.size(); ++b)
    for (std::size_t k = starts_[b]; k < starts_[b + 1]; ++k) {
      if (order_[k] < starts_[b] || order_[k] >= starts_[b + 1] || seen[order_[k]])
        throw std::invalid_argument("BlockOrder: position " + std::to_string(k) +
                                    " holds a state outside its block or seen before");
      seen[order_[k]] = 1;
    }
}

BlockOrder BlockOrder::sortedWithin(std::vector<std::uint32_t> starts, std::size_t n,
                                    const SortBlock& sortBlock) {
  BlockOrder order;
  order.starts_ = blockStarts(std::move(starts), n);
  order.order_.resize(n);
  std::iota(order.order_.begin(), order.order_.end(), 0u);
  std::uint32_t* states = order.order_.data();
  forEachBlock(order, [&](std::size_t first, std::size_t end) {
    if (end - first > 1) sortBlock(states + first, states + end);
  });
  return order;
}

BlockOrder BlockOrder::byColumnLength(const Generator& q,
                                      const std::vector<std::uint32_t>& starts) {
  const std::size_t n = q.size();
  // The blocks: windows of kWindow, cut again at `starts`.
  std::vector<std::uint32_t> cuts;
  auto next = starts.begin();
  for (std::size_t w = 0; w < n; w += kWindow) {
    cuts.push_back(static_cast<std::uint32_t>(w));
    for (; next != starts.end() && *next < w + kWindow; ++next)
      if (*next > w) cuts.push_back(*next);
  }
  return sortedWithin(std::move(cuts), n, [&q](std::uint32_t* first, std::uint32_t* end) {
    std::stable_sort(first, end, [&q](std::uint32_t a, std::uint32_t b) {
      return q.offset[a + 1] - q.offset[a] < q.offset[b + 1] - q.offset[b];
    });
  });
}

BlockOrder BlockOrder::inverse() const {
  BlockOrder out;
  out.starts_ = starts_;
  out.order_.resize(size());
  for (std::size_t k = 0; k < size(); ++k) out.order_[order_[k]] = static_cast<std::uint32_t>(k);
  return out;
}

BlockOrder renumberWithin(Generator& q, const BlockOrder& order) {
  const std::size_t n = q.size();
  if (order.size() != n)
    throw std::invalid_argument("renumberWithin: an order of " + std::to_string(order.size()) +
                                " states for a generator of " + std::to_string(n));
  // Every entry's source to its new number.
  BlockOrder position = order.inverse();
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
  // Each block's columns in the new order, within the block's run of entries.
  const bool numbered = !q.packed() && q.value.compact(), wide = !q.packed() && !q.value.compact();
  forEachBlock(order, [&](std::size_t first, std::size_t end) {
    const auto base = std::size_t(q.offset[first]), count = std::size_t(q.offset[end]) - base;
    const std::vector<int> offset(q.offset.begin() + std::ptrdiff_t(first),
                                  q.offset.begin() + std::ptrdiff_t(end) + 1);
    const std::vector<std::int32_t> index(q.index.begin() + std::ptrdiff_t(base),
                                          q.index.begin() + std::ptrdiff_t(base + count));
    std::vector<gspn::EdgeRates::Number> number;
    std::vector<double> rate;
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
  });
  gatherWithin(q.exitRate, order);
  return position;
}

void restoreOrder(Eigen::VectorXd& v, const BlockOrder& order) {
  gatherWithin<Move::Scatter>(v, order);
}

BlockPartition ReorderedLevels::levels(std::size_t place) const {
  BlockPartition partition = inner_.levels(place);
  gatherWithin(partition.blockOf, order_);
  return partition;
}

}  // namespace mmt::solver
