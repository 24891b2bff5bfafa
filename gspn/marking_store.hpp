#pragma once
/// \file
/// A set of markings stored back to back in one arena, indexed by an open-addressing hash
/// set of 32-bit ids. No heap allocation per marking: inserting a marking appends
/// `width` token counters to the arena and one id to the hash set.

#include <boost/unordered/unordered_flat_set.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "gspn/id_index.hpp"
#include "gspn/marking_layout.hpp"
#include "gspn/net.hpp"

namespace mmt::gspn {

/// 64-bit hash of a marking (multiply–xorshift mixing per counter, final avalanche).
std::uint64_t hashMarking(MarkingView m);

/// Whether the `size` bytes at `a` and at `b` are the same, compared 8 bytes at a time
/// inline: markings and records are short, and a call to memcmp cost more than the
/// comparison (perf on Kanban's exploration).
inline bool sameBytes(const std::uint8_t* a, const std::uint8_t* b, std::size_t size) {
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    if (x != y) return false;
  }
  for (; i < size; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

/// Whether two markings (or two keys) hold the same counters.
inline bool sameMarking(MarkingView x, MarkingView y) {
  return x.size() == y.size() &&
         sameBytes(reinterpret_cast<const std::uint8_t*>(x.data()),
                   reinterpret_cast<const std::uint8_t*>(y.data()), x.size() * sizeof(Tokens));
}

class MarkingStore {
 public:
  using Id = std::uint32_t;

  explicit MarkingStore(std::size_t width) : width_(width), index_(0, Hash{this}, Equal{this}) {}
  MarkingStore(const MarkingStore&) = delete;
  MarkingStore& operator=(const MarkingStore&) = delete;

  /// Returns the id of m and whether it was new. Ids are dense, in insertion order.
  std::pair<Id, bool> insert(MarkingView m) { return insert(m, hashMarking(m)); }
  /// The same, with m's hashMarking given.
  std::pair<Id, bool> insert(MarkingView m, std::uint64_t hash) {
    const Id candidate = static_cast<Id>(size());
    arena_.insert(arena_.end(), m.begin(), m.end());
    hashes_.push_back(hash);
    auto [it, inserted] = index_.insert(candidate);
    if (!inserted) {
      arena_.resize(arena_.size() - width_);
      hashes_.pop_back();
    }
    return {*it, inserted};
  }
  /// hashMarking of the marking stored as `id`, kept from its insertion.
  std::uint64_t hashOf(Id id) const { return hashes_[id]; }

  MarkingView operator[](Id id) const { return {arena_.data() + std::size_t(id) * width_, width_}; }
  std::size_t size() const { return width_ == 0 ? index_.size() : arena_.size() / width_; }
  std::size_t width() const { return width_; }

  /// Empties the store. An index grown far beyond what it held is dropped rather than
  /// cleared: clearing costs its whole capacity, and a vanishing eliminator clears its
  /// stores after every firing, so that one large resolution made every later one pay for
  /// it (the memset was 15 % of LU's exploration profile at n = 5).
  void clear() {
    const std::size_t held = index_.size();
    arena_.clear();
    hashes_.clear();
    if (index_.bucket_count() > 4 * held + 256)
      index_ = Index(0, Hash{this}, Equal{this});
    else
      index_.clear();
  }
  /// Bytes held by the arena and the index (for progress and benchmark reports).
  std::size_t memoryBytes() const {
    return arena_.capacity() * sizeof(Tokens) + hashes_.capacity() * sizeof(std::uint64_t) +
           index_.bucket_count() * (sizeof(Id) + 1);
  }
  /// Moves the arena out (markings row-major, `width()` counters each); the store is empty after.
  std::vector<Tokens> releaseArena() {
    index_.clear();
    hashes_ = std::vector<std::uint64_t>();
    return std::move(arena_);
  }

 private:
  struct Hash {
    const MarkingStore* store;
    std::size_t operator()(Id id) const { return store->hashes_[id]; }
  };
  struct Equal {
    const MarkingStore* store;
    bool operator()(Id a, Id b) const { return sameMarking((*store)[a], (*store)[b]); }
  };

  std::size_t width_;
  std::vector<Tokens> arena_;
  std::vector<std::uint64_t> hashes_;  // each marking's hash, so that a rehash reads it
  using Index = boost::unordered_flat_set<Id, Hash, Equal>;
  Index index_;
};

/// 64-bit hash of a byte string (the packed form of a marking).
std::uint64_t hashBytes(const std::uint8_t* data, std::size_t size);

class Symmetry;

/// Markings packed with every counter in 1, 2 or 4 bytes, the smallest width that holds
/// every count seen so far: a Kanban marking with 16 places takes 16 bytes instead of 64.
/// When a count outgrows the width, the arena is re-encoded at the next width (a few times
/// at most per exploration). Ids are dense, in insertion order. The hash index is split
/// into kParts parts by hash, so that several threads can insert into different parts at
/// once (appendNew).
///
/// Under a symmetry, the store holds orbits: each record is the orbit's key
/// (Symmetry::key, of varying length), insert, find and appendNew take keys, and decode
/// expands a key into the orbit's canonical marking. With a MarkingLayout, the records are
/// the layout's keys (the changing places only, packed into bit fields where bounded), and
/// decode expands them the same way. Without either, a marking is its own key.
///
/// Where the layout's keys are one word of at most kDirectBits significant bits, the index
/// is not hashed but direct: an array of an id for each of the 2^bits keys, one load a
/// lookup instead of a hash group and then the record it names (two cache misses). The
/// tandem queue, c = 1023: 22 bits, 2,096,128 markings, 16 MB.
class PackedMarkingStore {
 public:
  using Id = std::uint32_t;
  static constexpr std::size_t kParts = 64;
  /// The most significant bits of a one-word key indexed directly: 64 MB of address
  /// space at most, of which only the pages some key falls in become resident.
  static constexpr std::uint32_t kDirectBits = 24;

  /// `symmetry`, when set, must outlive the store.
  explicit PackedMarkingStore(std::size_t placeCount, const Symmetry* symmetry = nullptr)
      : places_(placeCount), symmetry_(symmetry) {
    if (symmetry_) offsets_.push_back(0);
    resetIndex();
  }
  /// A store whose keys are `layout`'s (MarkingLayout::key): insert, find and appendNew
  /// take them, decode expands them. A packed layout's words are stored as they are, 4
  /// bytes each.
  explicit PackedMarkingStore(std::shared_ptr<const MarkingLayout> layout)
      : places_(layout->placeCount()),
        bytes_(layout->packed() ? 4 : 1),
        layout_(std::move(layout)) {
    if (layout_->packed() && layout_->keyLength() == 1 && layout_->significantBits() >= 1 &&
        layout_->significantBits() <= kDirectBits)
      directBits_ = layout_->significantBits();
    resetIndex();
  }
  /// The index's hash functors point at their store: a move rebuilds a hash index (cheap
  /// once dropIndex() has been called, as on a finished graph).
  PackedMarkingStore(PackedMarkingStore&& other) noexcept { *this = std::move(other); }
  PackedMarkingStore& operator=(PackedMarkingStore&& other) noexcept {
    places_ = other.places_;
    bytes_ = other.bytes_;
    count_ = other.count_;
    arena_ = std::move(other.arena_);
    offsets_ = std::move(other.offsets_);
    symmetry_ = other.symmetry_;
    layout_ = other.layout_;
    directBits_ = other.directBits_;
    indexing_ = other.indexing_;
    const bool indexed = other.indexed();
    DirectIndex direct = std::move(other.direct_);
    other.resetIndex();
    other.count_ = 0;
    other.offsets_.assign(other.symmetry_ ? 1 : 0, 0);
    resetIndex();
    direct_ = std::move(direct);  // ids alone: it moves as it is
    if (indexed && !direct_.active()) rebuildIndex();
    return *this;
  }

  /// Returns the id of `key` and whether it was new.
  std::pair<Id, bool> insert(MarkingView key);
  /// Appends `key`, known not to be stored, as id size(), and stops indexing the store for
  /// good: for a store built once and never searched (insert and find may not be called
  /// on it afterwards), such as the markings a rank receives when the ranks' markings move
  /// to their owners (mpi/state_space.cpp), which so take no hash index.
  Id appendUnindexed(MarkingView key);
  /// Makes room for `records` more records without a symmetry (their keys' lengths vary
  /// under one: nothing is reserved then).
  void reserve(std::size_t records) {
    if (!symmetry_) arena_.reserve(arena_.size() + records * stride());
  }
  /// Appends keys known to be distinct and not stored (each looked up with find() since
  /// the last change), with ids size(), size() + 1, … in the order given, on up to
  /// `threads` threads.
  void appendNew(const std::vector<MarkingView>& fresh, int threads);
  /// The id of `key` if stored. Does not modify the store: safe to call from several
  /// threads at once while nothing is inserted. `scratch` is the caller's encoding buffer.
  std::optional<Id> find(MarkingView key, std::vector<std::uint8_t>& scratch) const;
  /// find() for every key: `ids[i]` is the id of `keys[i]`, or kAbsent. The lookups are
  /// pipelined, each one's loads (the index's group, then the record a tag names) started
  /// well before they are read, so that the cache misses of many lookups overlap instead
  /// of following one another. Read-only, like find(). `scratch` is the caller's buffers.
  static constexpr Id kAbsent = 0xffffffffu;
  struct FindScratch {
    std::vector<std::uint8_t> bytes;  ///< the keys encoded, back to back
    std::vector<std::size_t> begin;
    std::vector<std::uint64_t> hash;
  };
  void findMany(std::span<const MarkingView> keys, std::span<Id> ids, FindScratch& scratch) const;

  /// Writes marking `id` into `out` (placeCount() counters): under a symmetry, the
  /// canonical marking of the orbit.
  void decode(Id id, std::span<Tokens> out) const;
  std::vector<Tokens> decode(Id id) const {
    std::vector<Tokens> m(places_);
    decode(id, m);
    return m;
  }
  /// Writes the key stored for `id` into `out` (the marking itself without a symmetry or
  /// a layout).
  void key(Id id, std::vector<Tokens>& out) const;
  /// The tokens of place `p` in marking `id`, read without decoding the rest; only
  /// without a symmetry (a key is not a marking under one: use decode()).
  Tokens tokens(Id id, PlaceId p) const {
    if (!layout_) return counter(id, p);
    const std::uint32_t word = layout_->wordOf(p);
    return word == MarkingLayout::kConstant ? layout_->constantTokens(p)
                                            : layout_->inWord(counter(id, word), p);
  }

  std::size_t size() const { return count_; }
  std::size_t placeCount() const { return places_; }
  /// The symmetry whose orbits the store holds, or null.
  const Symmetry* symmetry() const { return symmetry_; }
  /// The layout whose keys the store holds, or null.
  const MarkingLayout* layout() const { return layout_.get(); }
  /// Bytes per counter: 1, 2 or 4.
  std::size_t counterBytes() const { return bytes_; }
  /// Bytes held by the arena, the offsets of a store of keys and, until dropIndex(), the
  /// index: a direct index counts its whole array, of which only the pages some key fell
  /// in are resident.
  std::size_t memoryBytes() const {
    std::size_t index = 0;
    for (const IdIndex& part : index_) index += part.memoryBytes();
    index += direct_.memoryBytes();
    return arena_.capacity() + offsets_.capacity() * sizeof(std::uint64_t) + index;
  }
  /// Frees the hash index; find and insert may not be called afterwards.
  void dropIndex() { resetIndex(); }
  /// Frees the spare capacity of the arena (a copy of the arena while it runs) and offsets.
  void shrinkToFit() {
    arena_.shrink_to_fit();
    offsets_.shrink_to_fit();
  }

 private:
  /// Bytes of one record without a symmetry: a counter per place, or per word of the
  /// layout's keys.
  std::size_t stride() const { return (layout_ ? layout_->keyLength() : places_) * bytes_; }
  const std::uint8_t* bytesOf(Id id) const {
    return arena_.data() + (symmetry_ ? offsets_[id] : std::size_t(id) * stride());
  }
  /// Counter k of record `id` (without a symmetry).
  Tokens counter(Id id, std::size_t k) const {
    const std::uint8_t* in = bytesOf(id) + k * bytes_;
    switch (bytes_) {
      case 1:
        return *in;
      case 2: {
        std::uint16_t x;
        std::memcpy(&x, in, 2);
        return x;
      }
      default: {
        std::uint32_t x;
        std::memcpy(&x, in, 4);
        return x;
      }
    }
  }
  std::size_t sizeOf(Id id) const { return symmetry_ ? offsets_[id + 1] - offsets_[id] : stride(); }
  std::uint64_t hashOf(Id id) const { return hashBytes(bytesOf(id), sizeOf(id)); }
  static std::size_t partOf(std::uint64_t hash) { return hash % kParts; }
  bool indexed() const {
    if (direct_.active()) return true;
    for (const IdIndex& part : index_)
      if (!part.empty()) return true;
    return false;
  }
  void resetIndex() {
    index_.assign(kParts, IdIndex{});
    direct_ = DirectIndex();
  }

  /// The direct index of the class comment: slot(word) is the entry of a key whose one
  /// word is `word`, holding its id + 1, or 0 for none. Its array comes from calloc, so
  /// that the pages no key falls in are neither written nor resident.
  class DirectIndex {
   public:
    DirectIndex() = default;
    explicit DirectIndex(std::uint32_t bits);
    bool active() const { return slots_ != nullptr; }
    Id& slot(Tokens word) const { return slots_.get()[word >> shift_]; }
    std::size_t memoryBytes() const { return active() ? (std::size_t(1) << (32 - shift_)) * 4 : 0; }

   private:
    struct Free {
      void operator()(Id* p) const;
    };
    std::uint32_t shift_ = 0;
    std::unique_ptr<Id[], Free> slots_;
  };
  /// The direct index, allocated at its first use.
  DirectIndex& direct() {
    if (!direct_.active()) direct_ = DirectIndex(directBits_);
    return direct_;
  }
  /// The id of a one-word key in the direct index, or kAbsent.
  Id findDirect(Tokens word) const {
    return direct_.active() && direct_.slot(word) != 0 ? direct_.slot(word) - 1 : kAbsent;
  }
  /// Whether record `id` holds the `size` bytes at `bytes`.
  bool holds(Id id, const std::uint8_t* bytes, std::size_t size) const {
    return sizeOf(id) == size && sameBytes(bytesOf(id), bytes, size);
  }
  /// The id of the record that holds the `size` encoded bytes at `bytes`, whose hash is
  /// `hash`, if any.
  std::optional<Id> lookup(std::uint64_t hash, const std::uint8_t* bytes, std::size_t size) const {
    return index_[partOf(hash)].find(hash, [&](Id id) { return holds(id, bytes, size); });
  }
  /// The records, as the index asks for them (IdIndex's Keys).
  struct Records {
    const PackedMarkingStore* store;
    std::uint64_t hash(Id id) const { return store->hashOf(id); }
    void prefetch(Id id) const { __builtin_prefetch(store->bytesOf(id)); }
  };
  /// Indexes record `id`, known not to be indexed yet.
  void index(Id id, std::uint64_t hash) { index_[partOf(hash)].insertNew(id, hash, Records{this}); }
  bool indexing_ = true;  ///< false after appendUnindexed
  /// Indexes every stored record (after a re-encoding or a move).
  void rebuildIndex();
  /// Writes the counters of `key` at the current width into `out` (key.size() × bytes_).
  void encode(MarkingView key, std::uint8_t* out) const;
  /// The counters of record `id`, at the current width, into `out`.
  void counters(Id id, std::span<Tokens> out) const;
  /// Appends the encoding of `key` to the arena (widening first if needed).
  void append(MarkingView key);
  void widen(std::size_t bytes);

  std::size_t places_ = 0;
  std::size_t bytes_ = 1;
  std::size_t count_ = 0;
  std::vector<std::uint8_t> arena_;
  /// Under a symmetry: record `id` is arena_[offsets_[id], offsets_[id + 1]).
  std::vector<std::uint64_t> offsets_;
  const Symmetry* symmetry_ = nullptr;
  std::shared_ptr<const MarkingLayout> layout_;
  std::vector<IdIndex> index_;
  std::uint32_t directBits_ = 0;  ///< the direct index's bits; 0: the hash index
  DirectIndex direct_;
};

}  // namespace mmt::gspn
