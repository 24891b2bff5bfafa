#pragma once
/// \file
/// Immediate transitions that commute: firing independent ones in one order.
///
/// When a timed firing ends, several immediate transitions are often enabled that do not
/// touch each other (a finished task's messages, each on its own link). Every order of
/// firing them reaches the same tangible markings with the same probabilities, yet the
/// full interleaving visits 2^k vanishing markings for k of them. Like the extended
/// conflict sets of [CMBC93] (Chiola, Ajmone Marsan, Balbo, Conte, IEEE TSE 19(2), 1993)
/// §4 and the ample sets of partial-order reduction for probabilistic systems [BGC04]
/// (Baier, Größer, Ciesinski, QEST 2004), this picks one *process* of interacting
/// transitions and fires only it: k independent transitions are resolved through k
/// vanishing markings.
///
/// Transition u *affects* v when u may change a place that v reads: an input or inhibitor
/// place, a place of v's guard or of a marking-dependent multiplicity of v (u changes a
/// place when its constant output and input multiplicities differ there, or when one of
/// its arcs there depends on the marking). u and v are *dependent* when either affects
/// the other. From a vanishing marking m, the immediate transitions that may fire before
/// the next timed one are among F(m): those whose every constant input place p holds
/// enough tokens in m or is filled by some immediate transition. Split F(m) into the
/// connected components of the dependency relation; the component C of the first enabled
/// transition of the highest priority, and the rest R = F(m) \ C, never touch each other.
///
/// Claim: the final (tangible marking, immediate firing counts) of the resolution from m
/// has the same law as "fire t ∈ A with probability w_t / Σ_A w, then resolve", where A is
/// C's enabled transitions of the highest priority. Proof (a coupling): the GSPN choice
/// among the enabled transitions of the highest level ([GSPN95] §2.4) can be drawn as a
/// choice of side (C or R, in proportion to each side's weight at that level, or the side
/// of higher priority) followed by a choice within the side in proportion to its own
/// weights. Neither side changes what the other reads, so each side's sequence of firings
/// is a function of its own choices alone: its own chain, whatever the interleaving. The
/// final marking and counts are the two sides' finals combined, so any schedule, C first
/// included, gives the same law; as the split holds again in every marking reached
/// (F only shrinks), firing A first and repeating the argument from each successor is
/// exact. The same holds for priorities within either side (they only delay the other).
///
/// The caller keeps the full interleaving where a reduced resolution turns out cyclic
/// (gspn/vanishing.hpp), so vanishing cycles and timeless traps are found as before.

#include <cstdint>
#include <utility>
#include <vector>

#include "gspn/net.hpp"

namespace mmt::gspn {

class CommutingImmediates {
 public:
  explicit CommutingImmediates(const Net& net);

  /// `enabled`: the immediate transitions enabled in m at its highest priority level, with
  /// their weights, in a fixed order (the first names the process kept). Keeps only those
  /// in the first one's process and returns true when it dropped any; leaves `enabled`
  /// as it is and returns false when they all interact. Cost: the process's transitions
  /// and the arcs around them (each met once), stopping as soon as the process holds
  /// every enabled transition.
  bool keepOneProcess(MarkingView m, std::vector<std::pair<TransitionId, double>>& enabled);

 private:
  /// Compressed rows: row i is index[offset[i] .. offset[i + 1]).
  struct Rows {
    std::vector<std::uint32_t> offset{0};
    std::vector<std::uint32_t> index;
    std::span<const std::uint32_t> operator[](std::size_t i) const {
      return {index.data() + offset[i], offset[i + 1] - offset[i]};
    }
    void endRow() { offset.push_back(static_cast<std::uint32_t>(index.size())); }
  };
  /// True when t's every constant input place holds enough tokens in m or is filled by an
  /// immediate transition: t ∈ F(m).
  bool mayFire(TransitionId t, MarkingView m) const;
  /// Marks t met; when it may fire, adds it to the process. Returns true when t is an
  /// enabled one, newly met.
  bool meet(TransitionId t, MarkingView m);

  const Net& net_;
  Rows reads_, changes_;      // by transition: the places it reads, and changes (immediates)
  Rows readers_, changers_;   // by place: the immediate transitions reading, changing it
  std::vector<char> filled_;  // by place: some immediate transition increases it
  // Scratch, kept between calls: a transition is met in this call when met_[t] == stamp_.
  std::vector<std::uint32_t> met_, enabledMark_;
  std::uint32_t stamp_ = 0;
  std::vector<TransitionId> process_;
};

}  // namespace mmt::gspn
