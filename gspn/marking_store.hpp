#pragma once
/// \file
/// A set of markings stored back to back in one arena, indexed by an open-addressing hash
/// set of 32-bit ids. No heap allocation per marking: inserting a marking appends
/// `width` token counters to the arena and one id to the hash set.

#include <cstdint>
#include <vector>

#include <boost/unordered/unordered_flat_set.hpp>

#include "gspn/net.hpp"

namespace mmt::gspn {

/// 64-bit hash of a marking (multiply–xorshift mixing per counter, final avalanche).
std::uint64_t hashMarking(MarkingView m);

class MarkingStore {
 public:
  using Id = std::uint32_t;

  explicit MarkingStore(std::size_t width)
      : width_(width), index_(0, Hash{this}, Equal{this}) {}
  MarkingStore(const MarkingStore&) = delete;
  MarkingStore& operator=(const MarkingStore&) = delete;

  /// Returns the id of m and whether it was new. Ids are dense, in insertion order.
  std::pair<Id, bool> insert(MarkingView m) {
    const Id candidate = static_cast<Id>(size());
    arena_.insert(arena_.end(), m.begin(), m.end());
    auto [it, inserted] = index_.insert(candidate);
    if (!inserted) arena_.resize(arena_.size() - width_);
    return {*it, inserted};
  }

  MarkingView operator[](Id id) const { return {arena_.data() + std::size_t(id) * width_, width_}; }
  std::size_t size() const { return width_ == 0 ? index_.size() : arena_.size() / width_; }
  std::size_t width() const { return width_; }

  void clear() {
    arena_.clear();
    index_.clear();
  }
  /// Bytes held by the arena and the index (for progress and benchmark reports).
  std::size_t memoryBytes() const {
    return arena_.capacity() * sizeof(Tokens) + index_.bucket_count() * (sizeof(Id) + 1);
  }
  /// Moves the arena out (markings row-major, `width()` counters each); the store is empty after.
  std::vector<Tokens> releaseArena() {
    index_.clear();
    return std::move(arena_);
  }

 private:
  struct Hash {
    const MarkingStore* store;
    std::size_t operator()(Id id) const { return hashMarking((*store)[id]); }
  };
  struct Equal {
    const MarkingStore* store;
    bool operator()(Id a, Id b) const {
      MarkingView x = (*store)[a], y = (*store)[b];
      for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i] != y[i]) return false;
      return true;
    }
  };

  std::size_t width_;
  std::vector<Tokens> arena_;
  boost::unordered_flat_set<Id, Hash, Equal> index_;
};

}  // namespace mmt::gspn
