#include "gspn/marking_store.hpp"

#include <omp.h>

#include <algorithm>

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

void PackedMarkingStore::widen(std::size_t bytes) {
  std::vector<std::uint8_t> wider(count_ * places_ * bytes);
  std::vector<Tokens> m(places_);
  for (Id id = 0; id < count_; ++id) {
    decode(id, m);
    std::uint8_t* out = wider.data() + std::size_t(id) * places_ * bytes;
    for (std::size_t p = 0; p < places_; ++p) std::memcpy(out + p * bytes, &m[p], bytes);
  }
  arena_ = std::move(wider);
  bytes_ = bytes;
  // Hashes depend on the encoding: rebuild the index.
  resetIndex();
  rebuildIndex();
}

void PackedMarkingStore::rebuildIndex() {
  for (Index& part : index_) part.reserve(count_ / kParts);
  for (Id id = 0; id < count_; ++id) index_[partOf(hashOf(id))].insert(id);
}

void PackedMarkingStore::append(MarkingView m) {
  if (const std::size_t need = bytesNeeded(m); need > bytes_) widen(need);
  const std::size_t at = arena_.size();
  if (at + stride() > arena_.capacity())
    arena_.reserve(std::max<std::size_t>(64, 2 * arena_.capacity()));
  arena_.resize(at + stride());
  encode(m, arena_.data() + at);
}

void PackedMarkingStore::encode(MarkingView m, std::uint8_t* out) const {
  // Little-endian hosts: the low bytes of a counter are its first bytes.
  switch (bytes_) {
    case 1:
      for (std::size_t p = 0; p < places_; ++p) out[p] = static_cast<std::uint8_t>(m[p]);
      break;
    default:
      for (std::size_t p = 0; p < places_; ++p) std::memcpy(out + p * bytes_, &m[p], bytes_);
  }
}

std::pair<PackedMarkingStore::Id, bool> PackedMarkingStore::insert(MarkingView m) {
  append(m);
  const Id candidate = static_cast<Id>(count_);
  ++count_;
  auto [it, inserted] = index_[partOf(hashOf(candidate))].insert(candidate);
  if (!inserted) {
    --count_;
    arena_.resize(arena_.size() - stride());
  }
  return {*it, inserted};
}

void PackedMarkingStore::appendNew(const std::vector<MarkingView>& fresh, int threads) {
  std::size_t need = bytes_;
  for (MarkingView m : fresh) need = std::max(need, bytesNeeded(m));
  if (need > bytes_) widen(need);
  const std::size_t at = arena_.size(), size = at + fresh.size() * stride();
  if (size > arena_.capacity()) arena_.reserve(std::max(size, 2 * arena_.capacity()));
  arena_.resize(size);
  const auto count = static_cast<std::ptrdiff_t>(fresh.size());
  const auto first = static_cast<Id>(count_);
  count_ += fresh.size();
  std::vector<std::uint8_t> parts(fresh.size());
  const bool parallel = threads > 1 && count >= 4096;
#pragma omp parallel num_threads(threads) if (parallel)
  {
#pragma omp for schedule(static)
    for (std::ptrdiff_t k = 0; k < count; ++k) {
      std::uint8_t* out = arena_.data() + at + k * stride();
      encode(fresh[k], out);
      parts[k] = static_cast<std::uint8_t>(partOf(hashBytes(out, stride())));
    }
    // Each thread indexes the parts it owns, in id order.
    const auto me = static_cast<std::size_t>(omp_get_thread_num());
    const auto team = static_cast<std::size_t>(omp_get_num_threads());
    for (std::ptrdiff_t k = 0; k < count; ++k)
      if (parts[k] % team == me) index_[parts[k]].insert(first + static_cast<Id>(k));
  }
}

std::optional<PackedMarkingStore::Id> PackedMarkingStore::find(
    MarkingView m, std::vector<std::uint8_t>& scratch) const {
  if (bytesNeeded(m) > bytes_) return std::nullopt;  // wider than anything stored
  scratch.resize(stride());
  encode(m, scratch.data());
  const std::uint64_t hash = hashBytes(scratch.data(), stride());
  const Index& part = index_[partOf(hash)];
  auto it = part.find(Encoded{scratch.data(), hash});
  if (it == part.end()) return std::nullopt;
  return *it;
}

void PackedMarkingStore::decode(Id id, std::span<Tokens> out) const {
  const std::uint8_t* in = arena_.data() + std::size_t(id) * stride();
  switch (bytes_) {
    case 1:
      for (std::size_t p = 0; p < places_; ++p) out[p] = in[p];
      break;
    case 2:
      for (std::size_t p = 0; p < places_; ++p) {
        std::uint16_t x;
        std::memcpy(&x, in + 2 * p, 2);
        out[p] = x;
      }
      break;
    default:
      std::memcpy(out.data(), in, places_ * 4);
  }
}

}  // namespace mmt::gspn
