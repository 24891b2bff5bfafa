#include "solver/sliced_columns.hpp"

#include <algorithm>
#include <bit>

namespace mmt::solver {

std::optional<SlicedColumns> SlicedColumns::of(const Generator& q) {
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
#pragma omp parallel for schedule(static) if (slices >= 16'384)
  for (std::ptrdiff_t s = 0; s < std::ptrdiff_t(slices); ++s) {
    const std::size_t begin = out.start_[std::size_t(s)];
    const std::size_t width = (out.start_[std::size_t(s) + 1] - begin) / kSlice;
    for (std::size_t c = 0; c < kSlice; ++c) {
      const std::size_t j = std::size_t(s) * kSlice + c;
      const std::size_t entries = j < n ? length(j) : 0;
      const auto own = static_cast<std::uint32_t>(j < n ? j : 0);
      for (std::size_t e = 0; e < width; ++e)
        out.words_[begin + e * kSlice + c] = e < entries
                                                 ? words[std::size_t(q.offset[j]) + e]
                                                 : gspn::PackedEdge::pack(own, padding, out.shift_);
    }
  }
  return out;
}

}  // namespace mmt::solver
