#pragma once
/// \file
/// The generator's columns in slices of four, for the transient's products with P.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "solver/ctmc.hpp"

namespace mmt::solver {

/// The off-diagonal entries of a packed Generator, kSlice consecutive columns to a slice,
/// each slice padded to its longest column and its columns' entries interleaved (entry e
/// of the slice's column c at e·kSlice + c): the sliced ELLPACK form SELL-C-σ with C = 4
/// and σ = 1 (Kreutzer, Hager, Wellein, Fehske and Bishop, "A unified sparse matrix data
/// format for efficient general sparse matrix-vector multiplication on modern processors
/// with wide SIMD units", SIAM J. Sci. Comput. 36(5), 2014, §2–3; the columns keep their
/// order, so the loads of x keep the locality of the generator's).
///
/// A slice's four sums run side by side in one loop that ends once per slice, where the
/// generator's columns end one by one, which takes about a quarter off a product over
/// every state of Kanban N = 5 (2.5 M states, 24.5 M entries), with its entries streamed past the
/// caches (they are read once a product; x is read again). A padding entry is the column's own
/// state against a rate of 0, an entry added to the rate table, so each column's sum is the
/// generator's, entry by entry in the same order: the same bits where no multiply-add is fused.
///
/// Memory: 4 bytes an entry, padding included (6 % of Kanban's entries), and 8 bytes a
/// slice.
class SlicedColumns {
 public:
  static constexpr std::size_t kSlice = 4;

  /// The slices of `q`'s columns, on every core; nothing when q is not packed or its
  /// rate table has no room for the padding's rate (one more number than it holds).
  static std::optional<SlicedColumns> of(const Generator& q);
  /// As of(q), but q's entries are given back to the system a stretch at a time as they
  /// are copied, and freed at the end where q could be sliced (its exit rates stay): the
  /// two copies are never resident together.
  static std::optional<SlicedColumns> from(Generator&& q);

  /// Columns (the generator's states).
  std::size_t size() const { return size_; }
  std::size_t slices() const { return start_.size() - 1; }
  /// Entries stored, padding included.
  std::size_t stored() const { return start_.back(); }

  /// f(i, n) for each entry q_ij of column j, i its source and n its rate's number in
  /// table(), in the generator's order (the padding left out).
  template <typename F>
  void forEachEntry(std::size_t j, F f) const {
    const std::size_t s = j / kSlice;
    for (std::size_t k = start_[s] + j % kSlice; k < start_[s + 1]; k += kSlice) {
      const std::uint32_t word = words_[k];
      if ((word >> shift_) == padding()) break;
      f(word & mask_, static_cast<gspn::EdgeRates::Number>(word >> shift_));
    }
  }
  /// The rates of the entries' numbers (and a 0 for the padding, the last).
  const std::vector<double>& table() const { return table_; }
  /// Bits of the source in an entry's word (gspn::PackedEdge).
  unsigned shift() const { return shift_; }

  /// Σ_i x_i q_ij into[c] for each column j = s·kSlice + c of slice s, the probability flow
  /// into j under x as Generator::inflow sums it; returns the slice's columns (kSlice but
  /// in the last slice).
  std::size_t inflows(std::size_t s, const double* x, double* into) const {
    const std::uint32_t* word = words_.data() + start_[s];
    const std::uint32_t* end = words_.data() + start_[s + 1];
    // The slice's lines kStreamAhead entries on (2.6 lines a slice on Kanban), fetched
    // without keeping them in the caches; words_ has room for them past its last slice.
    for (const std::uint32_t* ahead = word + kStreamAhead; ahead < end + kStreamAhead;
         ahead += kLine)
      __builtin_prefetch(ahead, 0, 0);
    double sum[kSlice] = {};
    for (; word < end; word += kSlice)
      for (std::size_t c = 0; c < kSlice; ++c)
        sum[c] += x[word[c] & mask_] * table_[word[c] >> shift_];
    for (std::size_t c = 0; c < kSlice; ++c) into[c] = sum[c];
    return std::min(kSlice, size_ - s * kSlice);
  }

 private:
  /// Entries ahead of the slice being summed whose lines are fetched, and entries a line.
  static constexpr std::size_t kStreamAhead = 512, kLine = 64 / sizeof(std::uint32_t);

  SlicedColumns() = default;
  /// of(q), with `release` giving the pages of q's entries back behind the copy (from).
  static std::optional<SlicedColumns> build(const Generator& q, bool release);
  std::uint32_t padding() const { return static_cast<std::uint32_t>(table_.size() - 1); }

  std::size_t size_ = 0;
  unsigned shift_ = 0;
  std::uint32_t mask_ = 0;
  std::vector<double> table_;       // the generator's rates, then 0 for the padding
  std::vector<std::size_t> start_;  // slices + 1 starts in words_
  std::vector<std::uint32_t, gspn::UninitialisedAllocator<std::uint32_t>> words_;
};

}  // namespace mmt::solver
