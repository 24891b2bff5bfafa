#include "solver/sliced_columns.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>

namespace mmt::solver {

namespace {

/// Entries of a generator copied between two releases of their pages (16 MB).
constexpr std::size_t kStretch = std::size_t(1) << 22;

/// Gives the whole pages within [first, end) back to the system: they read as zeros after.
void releasePages(const void* first, const void* end) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto from = (reinterpret_cast<std::uintptr_t>(first) + page - 1) / page * page;
  const auto to = reinterpret_cast<std::uintptr_t>(end) / page * page;
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

}  // namespace

std::optional<SlicedColumns> SlicedColumns::of(const Generator& q) { return build(q, false); }

std::optional<SlicedColumns> SlicedColumns::from(Generator&& q) {
  std::optional<SlicedColumns> out = build(q, true);
  if (out) {
    std::vector<int>().swap(q.offset);
    gspn::EdgeSources().swap(q.index);
    q.value.release();
  }
  return out;
}

std::optional<SlicedColumns> SlicedColumns::build(const Generator& q, bool release) {
  if (!q.packed() || std::bit_width(q.value.table().size()) > 32 - q.sourceBits)
    return std::nullopt;
  SlicedColumns out;
  const std::size_t n = q.size(), slices = (n + kSlice - 1) / kSlice;
  out.size_ = n;
  out.shift_ = q.sourceBits;
  out.mask_ = (std::uint32_t{1} << q.sourceBits) - 1;
  out.table_ = q.value.table();
  const auto padding = static_cast<gspn::EdgeRates::Number>(out.table_.size());
  out.table_.push_back(0.0);
  auto length = [&q](std::size_t j) { return std::size_t(q.offset[j + 1] - q.offset[j]); };

  out.start_.assign(slices + 1, 0);
#pragma omp parallel for schedule(static) if (slices >= 16'384)
  for (std::ptrdiff_t s = 0; s < std::ptrdiff_t(slices); ++s) {
    std::size_t width = 0;
    for (std::size_t j = std::size_t(s) * kSlice; j < std::min(n, std::size_t(s + 1) * kSlice); ++j)
      width = std::max(width, length(j));
    out.start_[std::size_t(s) + 1] = width * kSlice;
  }
  for (std::size_t s = 0; s < slices; ++s) out.start_[s + 1] += out.start_[s];

  // Zeros past the last slice: the lines inflows() fetches ahead of the last slices.
  out.words_.resize(out.start_[slices] + kStreamAhead + 2 * kLine);
  std::fill(out.words_.begin() + std::ptrdiff_t(out.start_[slices]), out.words_.end(), 0);
  const auto* words = reinterpret_cast<const std::uint32_t*>(q.index.data());
  // A stretch of slices at a time, each on every core; with `release`, q's entries are
  // given back behind them, so that the two copies are not resident at once (the new
  // one's pages become resident as they are written).
  for (std::size_t first = 0, last = 0; first < slices; first = last) {
    last = first + 1;
    while (last < slices && out.start_[last] - out.start_[first] < kStretch) ++last;
#pragma omp parallel for schedule(static) if (last - first >= 16'384)
    for (std::ptrdiff_t s = std::ptrdiff_t(first); s < std::ptrdiff_t(last); ++s) {
      const std::size_t begin = out.start_[std::size_t(s)];
      const std::size_t width = (out.start_[std::size_t(s) + 1] - begin) / kSlice;
      for (std::size_t c = 0; c < kSlice; ++c) {
        const std::size_t j = std::size_t(s) * kSlice + c;
        const std::size_t entries = j < n ? length(j) : 0;
        const auto own = static_cast<std::uint32_t>(j < n ? j : 0);
        for (std::size_t e = 0; e < width; ++e)
          out.words_[begin + e * kSlice + c] =
              e < entries ? words[std::size_t(q.offset[j]) + e]
                          : gspn::PackedEdge::pack(own, padding, out.shift_);
      }
    }
    if (release)
      releasePages(words + q.offset[first * kSlice], words + q.offset[std::min(n, last * kSlice)]);
  }
  return out;
}

}  // namespace mmt::solver
