#include "gspn/marking_store.hpp"

#include <omp.h>

#include <algorithm>

#include "gspn/symmetry.hpp"

namespace mmt::gspn {

std::uint64_t hashBytes(const std::uint8_t* data, std::size_t size) {
  // 8 bytes at a time, multiply–xorshift mixing, final avalanche.
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ size;
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, data + i, 8);
    h ^= word;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  if (i < size) {
    std::uint64_t word = 0;
    std::memcpy(&word, data + i, size - i);
    h ^= word;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
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

void PackedMarkingStore::rebuildIndex() {
  for (Index& part : index_) part.reserve(count_ / kParts);
  for (Id id = 0; id < count_; ++id) index_[partOf(hashOf(id))].insert(id);
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
  append(key);
  const Id candidate = static_cast<Id>(count_);
  ++count_;
  auto [it, inserted] = index_[partOf(hashOf(candidate))].insert(candidate);
  if (!inserted) {
    --count_;
    arena_.resize(arena_.size() - key.size() * bytes_);
    if (symmetry_) offsets_.pop_back();
  }
  return {*it, inserted};
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
  std::vector<std::uint8_t> parts(fresh.size());
  const bool parallel = threads > 1 && count >= 4096;
#pragma omp parallel num_threads(threads) if (parallel)
  {
#pragma omp for schedule(static)
    for (std::ptrdiff_t k = 0; k < count; ++k) {
      const Id id = first + static_cast<Id>(k);
      encode(fresh[k], arena_.data() + (bytesOf(id) - arena_.data()));
      parts[k] = static_cast<std::uint8_t>(partOf(hashOf(id)));
    }
    // Each thread indexes the parts it owns, in id order.
    const auto me = static_cast<std::size_t>(omp_get_thread_num());
    const auto team = static_cast<std::size_t>(omp_get_num_threads());
    for (std::ptrdiff_t k = 0; k < count; ++k)
      if (parts[k] % team == me) index_[parts[k]].insert(first + static_cast<Id>(k));
  }
}

std::optional<PackedMarkingStore::Id> PackedMarkingStore::find(
    MarkingView key, std::vector<std::uint8_t>& scratch) const {
  if (bytesNeeded(key) > bytes_) return std::nullopt;  // wider than anything stored
  scratch.resize(key.size() * bytes_);
  encode(key, scratch.data());
  const std::uint64_t hash = hashBytes(scratch.data(), scratch.size());
  const Index& part = index_[partOf(hash)];
  auto it = part.find(Encoded{scratch.data(), scratch.size(), hash});
  if (it == part.end()) return std::nullopt;
  return *it;
}

void PackedMarkingStore::key(Id id, std::vector<Tokens>& out) const {
  out.resize(sizeOf(id) / bytes_);
  counters(id, out);
}

void PackedMarkingStore::decode(Id id, std::span<Tokens> out) const {
  if (!symmetry_) return counters(id, out);
  thread_local std::vector<Tokens> record;
  key(id, record);
  symmetry_->expand(record, out);
}

}  // namespace mmt::gspn
