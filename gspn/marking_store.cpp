#include "gspn/marking_store.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <new>

#include "gspn/symmetry.hpp"

namespace mmt::gspn {

std::uint64_t hashBytes(const std::uint8_t* data, std::size_t size) {
  // Multiply–xorshift mixing of 8 bytes at a time in four independent lanes (32 bytes a
  // step: one lane is a chain of dependent multiplies, four keep the multiplier busy, so a
  // marking of 233 places hashes about three times faster), the lanes then mixed into one,
  // a final avalanche.
  constexpr std::uint64_t kMultiplier = 0xBF58476D1CE4E5B9ull;
  auto mix = [](std::uint64_t h, std::uint64_t word) {
    h ^= word;
    h *= kMultiplier;
    return h ^ (h >> 31);
  };
  std::uint64_t lane[4] = {0x9E3779B97F4A7C15ull ^ size, 0xC2B2AE3D27D4EB4Full,
                           0x165667B19E3779F9ull, 0x27D4EB2F165667C5ull};
  std::size_t i = 0;
  for (; i + 32 <= size; i += 32)
    for (int k = 0; k < 4; ++k) {
      std::uint64_t word;
      std::memcpy(&word, data + i + 8 * k, 8);
      lane[k] = mix(lane[k], word);
    }
  std::uint64_t h = i == 0 ? lane[0] : mix(mix(mix(lane[0], lane[1]), lane[2]), lane[3]);
  for (; i + 8 <= size; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, data + i, 8);
    h = mix(h, word);
  }
  if (i < size) {
    std::uint64_t word = 0;
    std::memcpy(&word, data + i, size - i);
    h = mix(h, word);
  }
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  return h;
}

std::uint64_t hashMarking(MarkingView m) {
  return hashBytes(reinterpret_cast<const std::uint8_t*>(m.data()), m.size() * sizeof(Tokens));
}

namespace {
/// Bytes per counter that hold every count of m: 1, 2 or 4.
std::size_t bytesNeeded(MarkingView m) {
  Tokens largest = 0;
  for (Tokens x : m) largest = x > largest ? x : largest;
  return largest <= 0xff ? 1 : largest <= 0xffff ? 2 : 4;
}
}  // namespace

void PackedMarkingStore::counters(Id id, std::span<Tokens> out) const {
  const std::uint8_t* in = bytesOf(id);
  const std::size_t n = sizeOf(id) / bytes_;
  switch (bytes_) {
    case 1:
      for (std::size_t p = 0; p < n; ++p) out[p] = in[p];
      break;
    case 2:
      for (std::size_t p = 0; p < n; ++p) {
        std::uint16_t x;
        std::memcpy(&x, in + 2 * p, 2);
        out[p] = x;
      }
      break;
    default:
      if (n != 0) std::memcpy(out.data(), in, n * 4);
  }
}

void PackedMarkingStore::widen(std::size_t bytes) {
  std::vector<std::uint8_t> wider(arena_.size() / bytes_ * bytes);
  std::vector<Tokens> record;
  for (Id id = 0; id < count_; ++id) {
    record.resize(sizeOf(id) / bytes_);
    counters(id, record);
    std::uint8_t* out = wider.data() + (bytesOf(id) - arena_.data()) / bytes_ * bytes;
    for (std::size_t p = 0; p < record.size(); ++p) std::memcpy(out + p * bytes, &record[p], bytes);
  }
  for (std::uint64_t& offset : offsets_) offset = offset / bytes_ * bytes;
  arena_ = std::move(wider);
  bytes_ = bytes;
  // Hashes depend on the encoding: rebuild the index.
  resetIndex();
  if (indexing_) rebuildIndex();
}

PackedMarkingStore::DirectIndex::DirectIndex(std::uint32_t bits)
    : shift_(32 - bits), slots_(static_cast<Id*>(std::calloc(std::size_t(1) << bits, sizeof(Id)))) {
  if (!slots_) throw std::bad_alloc();
}

void PackedMarkingStore::DirectIndex::Free::operator()(Id* p) const { std::free(p); }

void PackedMarkingStore::rebuildIndex() {
  if (directBits_ != 0) {
    DirectIndex& index = direct();
    for (Id id = 0; id < count_; ++id) index.slot(counter(id, 0)) = id + 1;
    return;
  }
  for (IdIndex& part : index_) part.reserve(count_ / kParts, Records{this});
  for (Id id = 0; id < count_; ++id) index(id, hashOf(id));
}

void PackedMarkingStore::append(MarkingView key) {
  if (const std::size_t need = bytesNeeded(key); need > bytes_) widen(need);
  const std::size_t at = arena_.size(), size = key.size() * bytes_;
  if (at + size > arena_.capacity())
    arena_.reserve(std::max<std::size_t>(64, 2 * arena_.capacity()));
  arena_.resize(at + size);
  encode(key, arena_.data() + at);
  if (symmetry_) offsets_.push_back(arena_.size());
}

void PackedMarkingStore::encode(MarkingView key, std::uint8_t* out) const {
  // Little-endian hosts: the low bytes of a counter are its first bytes.
  switch (bytes_) {
    case 1:
      for (std::size_t p = 0; p < key.size(); ++p) out[p] = static_cast<std::uint8_t>(key[p]);
      break;
    default:
      for (std::size_t p = 0; p < key.size(); ++p) std::memcpy(out + p * bytes_, &key[p], bytes_);
  }
}

PackedMarkingStore::Id PackedMarkingStore::appendUnindexed(MarkingView key) {
  if (indexing_) {
    indexing_ = false;
    resetIndex();
  }
  append(key);
  return static_cast<Id>(count_++);
}

std::pair<PackedMarkingStore::Id, bool> PackedMarkingStore::insert(MarkingView key) {
  if (directBits_ != 0) {
    if (const Id id = findDirect(key[0]); id != kAbsent) return {id, false};
    append(key);
    const auto id = static_cast<Id>(count_++);
    direct().slot(key[0]) = id + 1;
    return {id, true};
  }
  append(key);
  const auto candidate = static_cast<Id>(count_);
  const std::uint64_t hash = hashOf(candidate);
  const std::uint8_t* bytes = bytesOf(candidate);
  const std::size_t size = sizeOf(candidate);
  if (auto id = lookup(hash, bytes, size)) {
    arena_.resize(arena_.size() - size);
    if (symmetry_) offsets_.pop_back();
    return {*id, false};
  }
  ++count_;
  index(candidate, hash);
  return {candidate, true};
}

void PackedMarkingStore::appendNew(const std::vector<MarkingView>& fresh, int threads) {
  std::size_t need = bytes_, counters = 0;
  for (MarkingView key : fresh) {
    need = std::max(need, bytesNeeded(key));
    counters += key.size();
  }
  if (need > bytes_) widen(need);
  const std::size_t at = arena_.size(), size = at + counters * bytes_;
  if (size > arena_.capacity()) arena_.reserve(std::max(size, 2 * arena_.capacity()));
  arena_.resize(size);
  if (symmetry_) {
    offsets_.reserve(offsets_.size() + fresh.size());
    for (MarkingView key : fresh) offsets_.push_back(offsets_.back() + key.size() * bytes_);
  }
  const auto count = static_cast<std::ptrdiff_t>(fresh.size());
  const auto first = static_cast<Id>(count_);
  count_ += fresh.size();
  const bool parallel = threads > 1 && count >= 4096;
  if (directBits_ != 0) {
    DirectIndex& index = direct();
#pragma omp parallel for num_threads(threads) schedule(static) if (parallel)
    for (std::ptrdiff_t k = 0; k < count; ++k) {
      const Id id = first + static_cast<Id>(k);
      encode(fresh[k], arena_.data() + (bytesOf(id) - arena_.data()));
      index.slot(fresh[k][0]) = id + 1;
    }
    return;
  }
  std::vector<std::uint64_t> hashes(fresh.size());
#pragma omp parallel num_threads(threads) if (parallel)
  {
#pragma omp for schedule(static)
    for (std::ptrdiff_t k = 0; k < count; ++k) {
      const Id id = first + static_cast<Id>(k);
      encode(fresh[k], arena_.data() + (bytesOf(id) - arena_.data()));
      hashes[k] = hashOf(id);
    }
    // Each thread indexes the parts it owns, in id order. Their room is made first, so
    // that a group loaded ahead (kAhead records on) is where the record will go.
    const auto me = static_cast<std::size_t>(omp_get_thread_num());
    const auto team = static_cast<std::size_t>(omp_get_num_threads());
    std::size_t adding[kParts] = {};
    for (std::ptrdiff_t k = 0; k < count; ++k) ++adding[partOf(hashes[k])];
    for (std::size_t part = me; part < kParts; part += team)
      index_[part].reserve(index_[part].size() + adding[part], Records{this});
    constexpr std::ptrdiff_t kAhead = 16;
    for (std::ptrdiff_t k = 0; k < count; ++k) {
      if (k + kAhead < count && partOf(hashes[k + kAhead]) % team == me)
        index_[partOf(hashes[k + kAhead])].prefetch(hashes[k + kAhead]);
      if (partOf(hashes[k]) % team == me) index(first + static_cast<Id>(k), hashes[k]);
    }
  }
}

std::optional<PackedMarkingStore::Id> PackedMarkingStore::find(
    MarkingView key, std::vector<std::uint8_t>& scratch) const {
  if (directBits_ != 0) {
    const Id id = findDirect(key[0]);
    return id == kAbsent ? std::nullopt : std::optional<Id>(id);
  }
  if (bytes_ == sizeof(Tokens)) {  // the key is its own encoding (findMany)
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(key.data());
    const std::size_t size = key.size() * sizeof(Tokens);
    return lookup(hashBytes(bytes, size), bytes, size);
  }
  if (bytesNeeded(key) > bytes_) return std::nullopt;  // wider than anything stored
  scratch.resize(key.size() * bytes_);
  encode(key, scratch.data());
  const std::uint64_t hash = hashBytes(scratch.data(), scratch.size());
  return lookup(hash, scratch.data(), scratch.size());
}

void PackedMarkingStore::findMany(std::span<const MarkingView> keys, std::span<Id> ids,
                                  FindScratch& scratch) const {
  // Every key encoded and hashed first; then a pipeline over the keys, each stage kAhead
  // keys behind the one before: load key i's group; read key i - kAhead's group and load
  // the record its first tag match names; compare key i - 2 kAhead. Sixteen loads of each
  // kind are so in flight, about as many as a core's line-fill buffers.
  constexpr std::size_t kAhead = 16;
  const std::size_t n = keys.size();
  if (directBits_ != 0) {
    for (std::size_t i = 0; i < n; ++i) {
      if (i + kAhead < n && direct_.active())
        __builtin_prefetch(&direct_.slot(keys[i + kAhead][0]));
      ids[i] = findDirect(keys[i][0]);
    }
    return;
  }
  // Stored 4 bytes a counter, a key is its own encoding (little-endian words, as encode
  // writes them), hashed and compared where it is; otherwise each is encoded first.
  const bool inPlace = bytes_ == sizeof(Tokens);
  std::vector<std::size_t>& begin = scratch.begin;
  if (!inPlace) {
    begin.resize(n + 1);
    begin[0] = 0;
    for (std::size_t i = 0; i < n; ++i) begin[i + 1] = begin[i] + keys[i].size() * bytes_;
    scratch.bytes.resize(begin[n]);
  }
  const auto bytesAt = [&](std::size_t i) {
    return inPlace ? reinterpret_cast<const std::uint8_t*>(keys[i].data())
                   : scratch.bytes.data() + begin[i];
  };
  scratch.hash.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!inPlace) {
      if (bytesNeeded(keys[i]) > bytes_) {  // wider than anything stored
        ids[i] = kAbsent;
        continue;
      }
      encode(keys[i], scratch.bytes.data() + begin[i]);
    }
    ids[i] = 0;
    scratch.hash[i] = hashBytes(bytesAt(i), keys[i].size() * bytes_);
  }
  const std::uint64_t* hash = scratch.hash.data();
  for (std::size_t i = 0; i < n + 2 * kAhead; ++i) {
    if (i < n && ids[i] != kAbsent) index_[partOf(hash[i])].prefetch(hash[i]);
    if (const std::size_t j = i - kAhead; i >= kAhead && j < n && ids[j] != kAbsent)
      if (auto candidate = index_[partOf(hash[j])].firstCandidate(hash[j]))
        __builtin_prefetch(bytesOf(*candidate));
    if (const std::size_t k = i - 2 * kAhead; i >= 2 * kAhead && ids[k] != kAbsent) {
      const auto id = lookup(hash[k], bytesAt(k), keys[k].size() * bytes_);
      ids[k] = id.value_or(kAbsent);
    }
  }
}

void PackedMarkingStore::key(Id id, std::vector<Tokens>& out) const {
  out.resize(sizeOf(id) / bytes_);
  counters(id, out);
}

void PackedMarkingStore::decode(Id id, std::span<Tokens> out) const {
  if (!symmetry_ && !layout_) return counters(id, out);
  thread_local std::vector<Tokens> record;
  key(id, record);
  if (layout_)
    layout_->expand(record, out);
  else
    symmetry_->expand(record, out);
}

}  // namespace mmt::gspn
