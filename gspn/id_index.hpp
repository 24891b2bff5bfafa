#pragma once
/// \file
/// A hash set of 32-bit ids whose keys live elsewhere (the records of a marking store),
/// laid out so that one lookup reads one cache line of the set: open addressing over
/// groups of 12 slots, each group one 64-byte line holding its 12 ids and a one-byte tag
/// (8 bits of the hash) per id. A lookup reads the group its hash names and compares the
/// key only where a tag matches, so a hit costs the group's line and the record's, and a
/// miss usually the group's line alone. `prefetch` starts the first load early, so that a
/// caller with many keys to look up can overlap their misses (the batched lookups of
/// PackedMarkingStore::findMany).
///
/// Layout after the "Swiss tables" of Abseil and Boost's unordered_flat_set (groups of
/// slots with per-slot tag bytes, probed a group at a time), simplified for a set that
/// never erases: slots fill in order within a group and groups fill in probe order, so
/// the first empty slot met ends a search.
///
/// The records are the caller's: where the index needs a record's hash (to grow), it asks
/// a `Keys` object, `keys.hash(id)`, and `keys.prefetch(id)` starts loading the record.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace mmt::gspn {

class IdIndex {
 public:
  using Id = std::uint32_t;
  static constexpr std::size_t kSlots = 12;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// Slots allocated (kSlots a group).
  std::size_t bucketCount() const { return groups_.size() * kSlots; }
  std::size_t memoryBytes() const { return groups_.capacity() * sizeof(Group); }

  /// Starts loading the group where a key of this hash is looked for.
  void prefetch(std::uint64_t hash) const {
    if (!groups_.empty()) __builtin_prefetch(&groups_[groupOf(hash)]);
  }
  /// The first id in the group of `hash` whose tag matches, if any: the record a caller
  /// may prefetch before find() compares it.
  std::optional<Id> firstCandidate(std::uint64_t hash) const {
    if (groups_.empty()) return std::nullopt;
    const Group& group = groups_[groupOf(hash)];
    const std::uint8_t t = tagOf(hash);
    for (std::size_t i = 0; i < kSlots && group.tag[i] != 0; ++i)
      if (group.tag[i] == t) return group.id[i];
    return std::nullopt;
  }

  /// The id stored under `hash` for which `equal(id)` holds, if any.
  template <typename Equal>
  std::optional<Id> find(std::uint64_t hash, Equal&& equal) const {
    if (groups_.empty()) return std::nullopt;
    const std::uint8_t t = tagOf(hash);
    for (std::size_t g = groupOf(hash);; g = (g + 1) & mask_) {
      const Group& group = groups_[g];
      for (std::size_t i = 0; i < kSlots; ++i) {
        if (group.tag[i] == 0) return std::nullopt;
        if (group.tag[i] == t && equal(group.id[i])) return group.id[i];
      }
    }
  }

  /// Adds `id`, whose key is known not to be in the set, under `hash`.
  template <typename Keys>
  void insertNew(Id id, std::uint64_t hash, const Keys& keys) {
    if ((size_ + 1) * 8 > bucketCount() * 7) grow(keys);
    place(id, hash);
    ++size_;
  }

  /// Room for `count` ids without growing.
  template <typename Keys>
  void reserve(std::size_t count, const Keys& keys) {
    if (count * 8 <= bucketCount() * 7) return;
    std::size_t groups = groups_.empty() ? 4 : groups_.size();
    while (count * 8 > groups * kSlots * 7) groups *= 2;
    rehash(groups, keys);
  }

 private:
  struct alignas(64) Group {
    Id id[kSlots];
    std::uint8_t tag[kSlots];  ///< 0: the slot is empty
    std::uint32_t unused;
  };
  static_assert(sizeof(Group) == 64);

  /// Bits 6 and up name the group: the store uses the low 6 bits to pick one of its
  /// parts, so within a part they are the same.
  std::size_t groupOf(std::uint64_t hash) const { return (hash >> 6) & mask_; }
  /// The top 8 bits, never 0 (0 marks an empty slot).
  static std::uint8_t tagOf(std::uint64_t hash) {
    const auto t = static_cast<std::uint8_t>(hash >> 56);
    return t == 0 ? 1 : t;
  }

  void place(Id id, std::uint64_t hash) {
    for (std::size_t g = groupOf(hash);; g = (g + 1) & mask_) {
      Group& group = groups_[g];
      for (std::size_t i = 0; i < kSlots; ++i)
        if (group.tag[i] == 0) {
          group.tag[i] = tagOf(hash);
          group.id[i] = id;
          return;
        }
    }
  }

  template <typename Keys>
  void grow(const Keys& keys) {
    rehash(groups_.empty() ? 4 : 2 * groups_.size(), keys);
  }

  /// Moves every id into a table of `groups` groups (a power of two). Each id's record is
  /// read for its hash and its new group written at random: three stages, a chunk of old
  /// groups apart (load the records; hash them and load their new groups; place them), so
  /// that the misses of a chunk overlap.
  template <typename Keys>
  void rehash(std::size_t groups, const Keys& keys) {
    std::vector<Group> old(groups);
    old.swap(groups_);
    mask_ = groups_.size() - 1;
    constexpr std::size_t kChunk = 4;
    struct Stage {
      Id id[kChunk * kSlots];
      std::uint64_t hash[kChunk * kSlots];
      std::size_t n = 0;
    } stages[3];
    const std::size_t chunks = (old.size() + kChunk - 1) / kChunk;
    for (std::size_t c = 0; c < chunks + 2; ++c) {
      if (c < chunks) {
        Stage& load = stages[c % 3];
        load.n = 0;
        for (std::size_t g = c * kChunk; g < std::min(old.size(), (c + 1) * kChunk); ++g)
          for (std::size_t i = 0; i < kSlots && old[g].tag[i] != 0; ++i) {
            load.id[load.n++] = old[g].id[i];
            keys.prefetch(old[g].id[i]);
          }
      }
      if (c >= 1 && c <= chunks) {
        Stage& hashing = stages[(c - 1) % 3];
        for (std::size_t i = 0; i < hashing.n; ++i) {
          hashing.hash[i] = keys.hash(hashing.id[i]);
          prefetch(hashing.hash[i]);
        }
      }
      if (c >= 2) {
        const Stage& placing = stages[(c - 2) % 3];
        for (std::size_t i = 0; i < placing.n; ++i) place(placing.id[i], placing.hash[i]);
      }
    }
  }

  std::vector<Group> groups_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace mmt::gspn
