#pragma once
/// \file
/// Columns of equal length side by side: a chain's states renumbered within consecutive
/// windows of 256 so that in each window the columns of Q with fewer entries come first.
///
/// A Gauss–Seidel sweep sums each column in a loop of its own, whose exit the processor
/// predicts from the lengths of the columns before it. In breadth-first order the lengths
/// vary from column to column (Kanban: 6 to 13 entries), so nearly every column's exit is
/// mispredicted, about half the time of a sweep (docs/benchmarks.md, "The sweep's loop,
/// measured"). Sorted by length within short windows, most columns have the length of the
/// one before. This is the σ-sorting of SELL-C-σ (Kreutzer, Hager, Wellein, Fehske and
/// Bishop, SIAM J. Sci. Comput. 36(5), 2014, §3) without its padding: the storage stays
/// column-major, and each column is summed in the same order as before.
///
/// Gauss–Seidel's iterates depend on the order of the states: it converges on most chains
/// in breadth-first order, where each level is swept after the one that leads into it,
/// and some chains that converge in it do not when states move between levels (tandem.gspn
/// with c = 31 stalled; the image filter's chain with P = 3 did not converge). So a sort
/// never moves a state out of its level: the windows are cut at the levels' starts
/// (docs/benchmarks.md).

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "solver/accuracy.hpp"
#include "solver/ctmc.hpp"
#include "solver/steady_state.hpp"

namespace mmt::solver {

/// A permutation of 0..n−1 that moves each index within its window of kWindow: position
/// k holds the state numbered (*this)[k] before. One byte a state.
class WindowOrder {
 public:
  static constexpr std::size_t kWindow = 256;

  /// The order that sorts each window of q's columns by their number of entries (fewest
  /// first, ties in their order), each window cut into pieces at `starts` (ascending
  /// states of q, e.g. where its breadth-first levels begin) and each piece sorted alone.
  static WindowOrder byColumnLength(const Generator& q, const std::vector<std::uint32_t>& starts);

  std::size_t size() const { return local_.size(); }
  /// The state at position k, in the numbering before.
  std::size_t operator[](std::size_t k) const { return k / kWindow * kWindow + local_[k]; }
  /// Each state's position: the inverse permutation, as an order of its own.
  WindowOrder inverse() const;

 private:
  std::vector<std::uint8_t> local_;  // (*this)[k] − the window's first index
};

/// Renumbers q in place: its state order[k] becomes state k (column k is column order[k]
/// with its sources renumbered, in the same storage). Scratch of one window's entries per
/// thread. Returns each former state's position, the inverse of `order`, which the
/// renumbering of the sources needs. Throws std::invalid_argument when the sizes differ.
WindowOrder renumberWithin(Generator& q, const WindowOrder& order);

/// v, indexed by the new numbering of renumberWithin(q, order), in the old numbering:
/// v[order[k]] becomes the old v[k]. In place, a window at a time (no inverse needed).
void restoreOrder(Eigen::VectorXd& v, const WindowOrder& order);

/// A LevelSource over the renumbered states: its partitions are `inner`'s (over the
/// numbering before) taken through `order`.
class ReorderedLevels final : public LevelSource {
 public:
  ReorderedLevels(const LevelSource& inner, const WindowOrder& order)
      : inner_(inner), order_(order) {}
  std::string placeName(std::size_t place) const override { return inner_.placeName(place); }
  std::vector<std::uint64_t> spans() const override { return inner_.spans(); }
  BlockPartition levels(std::size_t place) const override;

 private:
  const LevelSource& inner_;
  const WindowOrder& order_;
};

}  // namespace mmt::solver
