#pragma once
/// \file
/// The order of a chain's columns while its steady state is swept: states renumbered
/// within blocks, in place.
///
/// Gauss–Seidel's iterates depend on the order of the states: it converges on most chains
/// in breadth-first order, where each level is swept after the one that leads into it,
/// and some chains that converge in it do not when states move between levels (tandem.gspn
/// with c = 31 stalled; the image filter's chain with P = 3 did not converge). So an order
/// never moves a state out of its level: the blocks are the levels or lie within them.
///
/// Within a level, the sweep's time depends on the order too, two ways (`mmt_bench_kernels`
/// times each order on the machine at hand):
/// - **Locality.** A column sums x over its sources. In the lexicographic order of the
///   markings (the pipeline's order, solver/pipeline.hpp levelMarkingOrder) a transition
///   moves consecutive columns' sources along together, so the loads of x come in streams
///   the processor prefetches; in discovery order they are scattered. This counts where x
///   does not fit in the last-level cache.
/// - **The loop's exit.** A sweep sums each column in a loop of its own, whose exit the
///   processor predicts from the lengths of the columns before it. Sorted by length within
///   short windows (byColumnLength: the σ-sorting of SELL-C-σ, Kreutzer, Hager, Wellein,
///   Fehske and Bishop, SIAM J. Sci. Comput. 36(5), 2014, §3, without its padding) most
///   columns have the length of the one before, at the cost of locality.

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "solver/accuracy.hpp"
#include "solver/ctmc.hpp"
#include "solver/steady_state.hpp"

namespace mmt::solver {

/// A permutation of 0..n−1 that moves each state only within its block, the blocks being
/// consecutive runs of states [start_b, start_{b+1}): position k holds the state numbered
/// (*this)[k] before. 4 bytes a state.
class BlockOrder {
 public:
  static constexpr std::size_t kWindow = 256;

  BlockOrder() = default;
  /// `order` (position k holds state order[k]) over the blocks that begin at `starts`
  /// (ascending, the first 0). Throws std::invalid_argument where a state leaves its block
  /// or is not a permutation's.
  BlockOrder(std::vector<std::uint32_t> starts, std::vector<std::uint32_t> order);

  /// The order made by sorting each block's states (`sortBlock(first, end)` reorders the
  /// states [first, end), which must stay a permutation of them) from their own order,
  /// blocks as in the constructor, on every core; blocks of one state are left alone.
  using SortBlock = std::function<void(std::uint32_t* first, std::uint32_t* end)>;
  static BlockOrder sortedWithin(std::vector<std::uint32_t> starts, std::size_t n,
                                 const SortBlock& sortBlock);

  /// The order that sorts each window of kWindow of q's columns by their number of entries
  /// (fewest first, ties in their order), each window cut into blocks at `starts`
  /// (ascending states of q, e.g. where its breadth-first levels begin), each block sorted
  /// alone.
  static BlockOrder byColumnLength(const Generator& q, const std::vector<std::uint32_t>& starts);

  std::size_t size() const { return order_.size(); }
  /// The state at position k, in the numbering before.
  std::size_t operator[](std::size_t k) const { return order_[k]; }
  std::size_t blockCount() const { return starts_.empty() ? 0 : starts_.size() - 1; }
  /// Block b is [blockStart(b), blockStart(b + 1)).
  std::size_t blockStart(std::size_t b) const { return starts_[b]; }
  /// Each state's position: the inverse permutation, as an order of its own.
  BlockOrder inverse() const;

 private:
  /// `starts` checked (ascending, the first 0 unless n is 0) and closed with n.
  static std::vector<std::uint32_t> blockStarts(std::vector<std::uint32_t> starts, std::size_t n);

  std::vector<std::uint32_t> starts_;  // the blocks' starts, then n
  std::vector<std::uint32_t> order_;
};

/// Renumbers q in place: its state order[k] becomes state k (column k is column order[k]
/// with its sources renumbered, in the same storage). Scratch of one block's entries per
/// thread. Returns each former state's position, the inverse of `order`, which the
/// renumbering of the sources needs. Throws std::invalid_argument when the sizes differ.
BlockOrder renumberWithin(Generator& q, const BlockOrder& order);

/// v, indexed by the new numbering of renumberWithin(q, order), in the old numbering:
/// v[order[k]] becomes the old v[k]. In place, a block at a time (no inverse needed).
void restoreOrder(Eigen::VectorXd& v, const BlockOrder& order);

/// A LevelSource over the renumbered states: its partitions are `inner`'s (over the
/// numbering before) taken through `order`.
class ReorderedLevels final : public LevelSource {
 public:
  ReorderedLevels(const LevelSource& inner, const BlockOrder& order)
      : inner_(inner), order_(order) {}
  std::string placeName(std::size_t place) const override { return inner_.placeName(place); }
  std::vector<std::uint64_t> spans() const override { return inner_.spans(); }
  BlockPartition levels(std::size_t place) const override;

 private:
  const LevelSource& inner_;
  const BlockOrder& order_;
};

}  // namespace mmt::solver
