#include "gspn/marking_layout.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace mmt::gspn {

namespace {

/// The tokens t's constant arcs add to each place they touch (outputs minus inputs), in
/// the order the arcs first name the place, the places whose count they leave as it is
/// left out.
std::vector<std::pair<PlaceId, std::int64_t>> constantChange(const Net& net, TransitionId t) {
  std::vector<std::pair<PlaceId, std::int64_t>> change;
  for (int side = 0; side < 2; ++side)
    for (const Arc& a : side == 0 ? net.inputs(t) : net.outputs(t)) {
      if (a.expression != Arc::kConstant) continue;
      const std::int64_t by = side == 0 ? -std::int64_t(a.multiplicity) : a.multiplicity;
      auto it = std::find_if(change.begin(), change.end(),
                             [&](const auto& c) { return c.first == a.place; });
      if (it == change.end())
        change.emplace_back(a.place, by);
      else
        it->second += by;
    }
  std::erase_if(change, [](const auto& c) { return c.second == 0; });
  return change;
}

/// Whether some transition changes p's count: a marking-dependent arc to or from p, or
/// constant arcs that take and put back different numbers of tokens.
std::vector<char> changingPlaces(const Net& net) {
  std::vector<char> changes(net.placeCount(), 0);
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    for (const auto arcs : {net.inputs(t), net.outputs(t)})
      for (const Arc& a : arcs)
        if (a.expression != Arc::kConstant) changes[a.place] = 1;
    for (const auto& [p, by] : constantChange(net, t)) changes[p] = 1;
  }
  return changes;
}

}  // namespace

MarkingLayout::MarkingLayout(const Net& net, std::span<const std::uint64_t> bounds)
    : constant_(net.initialMarking()), field_(net.placeCount()) {
  if (!bounds.empty() && bounds.size() != net.placeCount())
    throw std::invalid_argument("a marking layout needs one bound per place (" +
                                std::to_string(net.placeCount()) + "), not " +
                                std::to_string(bounds.size()));
  const std::vector<char> changes = changingPlaces(net);
  for (PlaceId p = 0; p < net.placeCount(); ++p)
    if (changes[p]) changing_.push_back(p);
  packed_ = !bounds.empty();
  for (PlaceId p : changing_) packed_ = packed_ && bounds[p] <= 0xffffffffu;
  // Packed: fields laid one after another, a field that does not fit in what is left of a
  // word starting the next word. Otherwise: a word per changing place.
  std::uint32_t word = 0, used = 0;
  for (PlaceId p : changing_) {
    const std::uint32_t width =
        packed_ ? static_cast<std::uint32_t>(std::bit_width(bounds[p])) : 32;
    if (used + width > 32) {
      ++word;
      used = 0;
    }
    // Fields from the word's most significant bit down, so that words compare as their
    // fields do in order. A place bounded by 0 takes no bits (shift 0, mask 0).
    field_[p] = {word, width == 0 ? 0 : 32 - used - width,
                 width == 32 ? 0xffffffffull : (std::uint64_t(1) << width) - 1,
                 packed_ ? bounds[p] : 0xffffffffull};
    word_.push_back(word);
    shift_.push_back(field_[p].shift);
    mask_.push_back(static_cast<Tokens>(field_[p].mask));
    used += width;
  }
  // At least one word, so that a net with no changing place has a key to store.
  keyLength_ = std::size_t(word) + 1;
  if (packed_ && word == 0) significantBits_ = used;
}

void MarkingLayout::key(MarkingView m, std::vector<Tokens>& key) const {
  key.resize(keyLength_);
  Tokens* out = key.data();
  // The fields come word by word: each word is gathered in a register and written once.
  Tokens outside = 0;  // bits of a count past its field
  std::uint32_t word = 0;
  Tokens gathered = 0;
  for (std::size_t k = 0; k < changing_.size(); ++k) {
    const Tokens v = m[changing_[k]];
    if (word_[k] != word) {
      out[word] = gathered;
      word = word_[k];
      gathered = 0;
    }
    outside |= v & ~mask_[k];
    gathered |= v << shift_[k];
  }
  out[word] = gathered;
  if (outside != 0)
    for (PlaceId p : changing_)
      if ((m[p] & ~field_[p].mask) != 0) outgrown(p, m[p]);
}

void MarkingLayout::outgrown(PlaceId p, std::uint64_t tokens) const {
  throw std::logic_error(
      "a marking holds " + std::to_string(tokens) + " tokens in a place proven to hold at most " +
      std::to_string(field_[p].bound) + " (gspn/invariants.hpp): the bound or the net is wrong");
}

std::optional<MarkingLayout::Firing> MarkingLayout::firing(const Net& net, TransitionId t) const {
  if (!packed_ || net.hasMarkingDependentArcs(t)) return std::nullopt;
  Firing f;
  for (const auto& [p, by] : constantChange(net, t)) {
    const Field& field = field_[p];
    // A constant place's arcs put back what they take: no change falls outside the key.
    if (field.word == kConstant) return std::nullopt;
    // Two's complement: a negative change is added modulo 2^32.
    const auto addend = static_cast<Tokens>(static_cast<std::uint64_t>(by) << field.shift);
    auto it = std::find_if(f.add.begin(), f.add.end(),
                           [&](const auto& a) { return a.first == field.word; });
    if (it == f.add.end())
      f.add.emplace_back(field.word, addend);
    else
      it->second += addend;
    if (by > 0) f.grows.emplace_back(p, static_cast<Tokens>(by));
  }
  return f;
}

void MarkingLayout::expand(MarkingView key, std::span<Tokens> out) const {
  std::copy(constant_.begin(), constant_.end(), out.begin());
  for (std::size_t k = 0; k < changing_.size(); ++k)
    out[changing_[k]] = (key[word_[k]] >> shift_[k]) & mask_[k];
}

}  // namespace mmt::gspn
