#pragma once
/// \file
/// How an explorer stores a marking: as a key that leaves out the places no transition
/// changes and, where P-invariants or inhibitor arcs bound every other place, packs each
/// into the bits its bound needs. LU on the Paragon at n = 5 (examples/lu_paragon.hdl) has
/// 266 places, of which 94 change, each between 0 and 1: a key of three 32-bit words
/// instead of 266 counters, so hashing, comparing and storing a marking costs a twentieth.
/// Explicit-state tools pack a state's variables into bit fields by their ranges the same
/// way (Storm's explicit generator, storm/generator/CompressedState.h; Fast Downward's
/// packed states, each field within one word as here).

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "gspn/net.hpp"

namespace mmt::gspn {

class MarkingLayout {
 public:
  /// The layout of `net`'s markings. `bounds`, when not empty, gives per place the most
  /// tokens it may hold in a reachable marking, or Boundedness::kNoBound (see
  /// gspn/invariants.hpp): when every changing place has one, keys are packed bit fields;
  /// otherwise each changing place is one counter of the key. A place is constant when
  /// every transition's constant arcs take from it as many tokens as they put back and no
  /// marking-dependent arc touches it: its count is its initial one in every reachable
  /// marking. Throws std::invalid_argument when `bounds` is neither empty nor of one
  /// entry per place.
  MarkingLayout(const Net& net, std::span<const std::uint64_t> bounds);

  std::size_t placeCount() const { return constant_.size(); }
  /// The places kept in a key, ascending.
  const std::vector<PlaceId>& changing() const { return changing_; }
  /// Whether keys are bit fields (every changing place bounded).
  bool packed() const { return packed_; }
  /// Counters (32-bit words) in every key. Keys compare as their markings do: two keys
  /// compared word by word as unsigned integers are in the lexicographic order of their
  /// markings (the changing places in order, each packed field below the one before it).
  std::size_t keyLength() const { return keyLength_; }
  /// Of a packed key of one word, the bits its fields fill from the most significant
  /// down (the 32 − significantBits() low bits of every key are 0); 32 otherwise.
  std::uint32_t significantBits() const { return significantBits_; }

  /// Writes the key of marking m (placeCount() counters) into `key`. Throws
  /// std::logic_error when a packed place holds more tokens than its field (its proven
  /// bound was wrong: the layout cannot store that marking).
  void key(MarkingView m, std::vector<Tokens>& key) const;
  /// Writes the marking whose key is `key` into `out` (placeCount() counters).
  void expand(MarkingView key, std::span<Tokens> out) const;

  /// What firing a transition does to a packed key: numbers to add to some of its words,
  /// and the places whose counts grow, with the most tokens their fields hold. A field
  /// holds v·2^shift, so firing adds Σ (out_p − in_p)·2^shift_p to each word; where every
  /// new count fits its field, the sum is the new word exactly, and modulo 2^32 it is
  /// computed without unpacking the other fields. Only the fields that grow need a check:
  /// a field that shrinks stays within its bits, the transition being enabled.
  struct Firing {
    std::vector<std::pair<std::uint32_t, Tokens>> add;  ///< (word, addend modulo 2^32)
    std::vector<std::pair<PlaceId, Tokens>> grows;      ///< (place, tokens added)
  };
  /// The firing of t, for a packed layout and a transition whose arcs are all constant;
  /// std::nullopt otherwise (the key is then computed from the fired marking).
  std::optional<Firing> firing(const Net& net, TransitionId t) const;
  /// Writes into `to` the key of the marking that firing `f`'s transition, enabled in
  /// marking m, leads to; `from` is m's key. The same words as key() of the fired marking,
  /// and the same std::logic_error where a count outgrows its field.
  void fire(const Firing& f, MarkingView m, MarkingView from, std::vector<Tokens>& to) const {
    to.assign(from.begin(), from.end());
    for (const auto& [word, addend] : f.add) to[word] += addend;
    for (const auto& [p, added] : f.grows)
      if (std::uint64_t(m[p]) + added > field_[p].mask) outgrown(p, std::uint64_t(m[p]) + added);
  }
  /// The tokens of place p in the marking whose key is `key`.
  Tokens tokens(MarkingView key, PlaceId p) const {
    const std::uint32_t word = wordOf(p);
    return word == kConstant ? constant_[p] : inWord(key[word], p);
  }
  /// The word of a key that holds place p, or kConstant for a constant place.
  static constexpr std::uint32_t kConstant = 0xffffffffu;
  std::uint32_t wordOf(PlaceId p) const { return field_[p].word; }
  /// The tokens of place p, read from the key's word that holds it.
  Tokens inWord(Tokens word, PlaceId p) const {
    return static_cast<Tokens>((std::uint64_t(word) >> field_[p].shift) & field_[p].mask);
  }
  /// The count of a constant place.
  Tokens constantTokens(PlaceId p) const { return constant_[p]; }

 private:
  /// Where a place sits in a key: word `word`, bits [shift, shift + width), or kConstant.
  struct Field {
    std::uint32_t word = kConstant;
    std::uint32_t shift = 0;
    std::uint64_t mask = 0;   // 2^width − 1
    std::uint64_t bound = 0;  // the proven bound of a packed field
  };
  std::vector<Tokens> constant_;  // the initial marking: the constant places' counts
  std::vector<PlaceId> changing_;
  std::vector<Field> field_;  // per place
  /// Throws the std::logic_error of a count past its place's field.
  [[noreturn]] void outgrown(PlaceId p, std::uint64_t tokens) const;
  // Per changing place, in key order (words ascending): its word, shift and mask, for
  // key() and expand() to run through without indexing field_ by place.
  std::vector<std::uint32_t> word_, shift_;
  std::vector<Tokens> mask_;
  bool packed_ = false;
  std::size_t keyLength_ = 0;
  std::uint32_t significantBits_ = 32;
};

}  // namespace mmt::gspn
