#pragma once
/// \file
/// Symmetries of a net: groups of permutations of its places and transitions that map the
/// net onto itself, and the canonical markings that let exploration keep one marking per
/// orbit (docs/symmetry.md).
///
/// A group is a direct product of *factors*, or a group given by its elements (a coloured
/// net's colour permutations; see Symmetry's second constructor). A factor permutes k ≥ 2 *blocks*,
/// each a list of places and a list of transitions of the same lengths: block b's i-th place
/// (transition) corresponds to every other block's i-th. The factor is the full symmetric group on
/// its blocks (interchangeable replicas: a farm's workers), the cyclic group of their rotations or
/// the dihedral group of rotations and reflections (stations of a ring). Factors act on disjoint
/// places; a transition may be in a block of several factors (a transfer from a replica of one farm
/// to a replica of another moves with both), and an element in no block is fixed.
///
/// If the group maps the net (arcs, rates, weights, priorities, guards, marking-dependent
/// expressions) onto itself, the CTMC is strongly lumpable with respect to the orbits of
/// markings: the rate from m into the orbit of m' is the same for every m in m's orbit
/// (Kemeny & Snell 1960, ch. 6; Buchholz, J. Appl. Prob. 31, 1994; for nets, the symbolic
/// reachability graph of Chiola, Dutheillet, Franceschinis & Haddad, IEEE TC 42(11), 1993).
/// With π invariant under the group, every measure equals its average over the group
/// (docs/symmetry.md, "What each element reports"), which SymmetricMeasures computes.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gspn/measure_source.hpp"
#include "gspn/net.hpp"

namespace mmt::gspn {

/// One factor of a symmetry group (see the file comment).
struct SymmetryFactor {
  enum class Kind : std::uint8_t { Symmetric, Cyclic, Dihedral };
  Kind kind = Kind::Symmetric;
  /// What a block is, for reports ("W": the replicas of farm worker W).
  std::string label;
  /// [block][position]: every block has the same number of places, and of transitions.
  std::vector<std::vector<PlaceId>> places;
  std::vector<std::vector<TransitionId>> transitions;

  std::size_t blockCount() const { return places.size(); }
};

/// A normal form of expression e with place p read as `rename(p)`: a prefix text in which
/// the operands of commutative operators (+, ×, min, max, &&, ||, ==, !=) are sorted and
/// nested associative ones flattened. Equal normal forms compute the same function of the
/// marking (up to the rounding of a sum or product taken in another order).
std::string normalForm(const Expression& e, const std::function<PlaceId(PlaceId)>& rename);

/// "symmetric", "cyclic", "dihedral".
const char* toString(SymmetryFactor::Kind kind);

/// Why `factor` is not a symmetry of `net`, or nothing when it is: its blocks are not
/// disjoint or not of equal shapes, or a generator (for the symmetric group a transposition
/// and a k-cycle of the blocks, for the cyclic group the rotation, for the dihedral group
/// the rotation and a reflection) does not map the net onto itself: an arc, a rate, server
/// semantics, a weight, a priority, a declared delay, a guard, a marking-dependent rate or
/// multiplicity, or the initial marking differs from its image. Expressions are compared
/// up to the order of the operands of +, ×, min, max, &&, ||, == and != (exact: equal
/// normal forms mean equal functions). The initial marking is checked only when
/// `initialMarking` is set (a steady-state question on one recurrent class does not need
/// it fixed; docs/symmetry.md).
std::optional<std::string> symmetryViolation(const Net& net, const SymmetryFactor& factor,
                                             bool initialMarking = true);

/// Why `sigma` does not map `net` onto itself, or nothing when it does: the differences
/// symmetryViolation names (an arc, a rate, server semantics, a weight, a priority, a
/// declared delay, a guard, a marking-dependent rate or multiplicity, and the initial
/// marking when `initialMarking` is set) between an element and its image. `sigma` must be
/// a permutation of all of the net's places and transitions.
std::optional<std::string> permutationViolation(const Net& net, const NetPermutation& sigma,
                                                bool initialMarking = true);

/// A symmetry group of a net, as the explorer and the measures use it: a product of factors
/// (see the file comment), or a group given by its elements (a coloured net's colour
/// permutations, coloured/symmetry.hpp). Holds a copy of its factors and per-element lookup
/// tables (O(places + transitions) memory), or of its elements.
class Symmetry {
 public:
  /// Throws std::invalid_argument when a place is in two blocks, a transition in two blocks
  /// of one factor, or a block's shape differs (it does not check that the factors are
  /// symmetries of the net: symmetryViolation does).
  Symmetry(const Net& net, std::vector<SymmetryFactor> factors);
  /// The group of the identity and `elements`, permutations of all of net's places and
  /// transitions that are closed under composition and inverses. Its canonical marking is
  /// the lexicographically least image over the group, found in O(|G| · places) per marking
  /// (most images differ from the best one in their first places); its keys are canonical
  /// markings. Throws std::invalid_argument when an element's size is not the net's.
  Symmetry(const Net& net, std::vector<NetPermutation> elements);

  const std::vector<SymmetryFactor>& factors() const { return factors_; }
  std::size_t placeCount() const { return placeBlock_.size(); }

  /// Rewrites m into the canonical marking of its orbit: for a symmetric factor the blocks'
  /// token vectors sorted lexicographically (ascending), for a cyclic (dihedral) factor the
  /// lexicographically least of its rotations (and reflections). O(k · w + r² · w) for k
  /// blocks of w places in a symmetric factor with r runs of equal adjacent blocks (an
  /// insertion sort of the runs), O(k² · w) in a cyclic or dihedral one.
  void canonicalize(std::span<Tokens> m) const;

  /// Markings in the orbit of m: Π over factors of k! / Π_v c_v! (c_v blocks equal to v) for
  /// a symmetric factor, and |group| / |stabilizer of m| for a cyclic or dihedral one. A
  /// double: exact below 2^53, an approximation beyond.
  double orbitSize(MarkingView m) const;

  /// log10 of orbitSize(m), finite where orbitSize overflows a double (a farm of 1,000:
  /// orbits of up to 10^477 markings).
  double log10OrbitSize(MarkingView m) const;
  /// orbitSize and log10OrbitSize of the orbit whose key (key()) is `key`, without
  /// computing it again; `m`, a marking of the orbit, is read only when hasRings().
  double orbitSizeOfKey(std::span<const Tokens> key, MarkingView m) const;
  double log10OrbitSizeOfKey(std::span<const Tokens> key, MarkingView m) const;
  /// Whether a factor is cyclic or dihedral, or the group is given by its elements.
  bool hasRings() const { return rings_; }
  /// The group's order when it is given by its elements (0 otherwise).
  std::size_t elementCount() const { return elements_.empty() ? 0 : elements_.size() + 1; }

  /// log10 of the group's order: Σ log10 k! (symmetric), log10 k (cyclic), log10 2k (dihedral).
  double log10Order() const;

  /// For a canonical marking m, how many interchangeable copies of timed or immediate
  /// transition t fire alike: 0 when an equal earlier block of a symmetric factor fires
  /// for it (t is skipped), otherwise the product over the symmetric factors t is in of
  /// 1 + the number of later blocks equal to t's block (1 for t in no block, or only in
  /// cyclic or dihedral factors). Firing t once with its rate
  /// (weight) times this count gives the lumped chain's rates: the transposition of two
  /// equal blocks fixes m and maps one copy's firing onto the other's.
  std::uint32_t firingMultiplicity(TransitionId t, MarkingView m) const;

  /// The *key* of m's orbit, the form in which exploration stores and compares orbits
  /// (O(places) to compute, usually far shorter than a marking): the counters of the places
  /// in no block of a symmetric factor, in place order, with the cyclic and dihedral factors
  /// canonical; then per symmetric factor its number R of distinct block vectors and R
  /// pairs (how many blocks, the vector), vectors ascending. Two markings have equal keys
  /// exactly when they are in one orbit; a farm of 1,000 workers with three places each
  /// takes about 15 counters instead of 3,000. m need not be canonical.
  void key(MarkingView m, std::vector<Tokens>& out) const;
  /// Writes the canonical marking (canonicalize) of the orbit with key `key` into m.
  void expand(std::span<const Tokens> key, std::span<Tokens> m) const;

  /// The runs of equal blocks of each symmetric factor of a canonical marking:
  /// start[f][b] is the number of blocks in the run that block b starts, 0 when b
  /// continues a run (empty for a cyclic or dihedral factor).
  struct Runs {
    std::vector<std::vector<std::uint32_t>> start;
  };
  void runs(MarkingView canonical, Runs& out) const;
  /// Calls visit(t, copies) for every transition t whose firingMultiplicity in the
  /// canonical marking with runs `runs` is not 0, with that multiplicity, visiting only
  /// the first block of each run: O(runs × transitions per block + transitions in no
  /// symmetric block) instead of O(transitions).
  template <typename Visit>
  void forEachRepresentative(const Runs& runs, Visit&& visit) const {
    for (TransitionId t : unblocked_) visit(t, std::uint32_t(1));
    for (std::uint32_t f = 0; f < factors_.size(); ++f) {
      const std::vector<std::uint32_t>& start = runs.start[f];
      for (std::uint32_t b = 0; b < start.size(); b += start[b])
        for (TransitionId t : factors_[f].transitions[b])
          // A transition in blocks of several symmetric factors is visited from its first.
          if (firstSymmetricFactor_[t] == f)
            if (const std::uint32_t copies = copiesOf(t, runs); copies != 0) visit(t, copies);
    }
  }

  /// The orbit of place p (its own position in every block of its factor), p alone when it
  /// is in no block.
  std::vector<PlaceId> placeOrbit(PlaceId p) const;
  std::vector<TransitionId> transitionOrbit(TransitionId t) const;

  /// The group's images of the places `reads`, for averages over the group of a function
  /// f that reads only them: (1/|G|) Σ_σ f(σm) = (1/n) Σ_c f(m_c), where m_c reads
  /// `reads[i]` from place images[c][i] (n images: the injective maps of the touched blocks
  /// into the factor's blocks for a symmetric factor, the rotations and reflections for the
  /// others, combined over factors). Throws std::length_error past 1,000,000 images.
  std::vector<std::vector<PlaceId>> images(std::span<const PlaceId> reads) const;

 private:
  struct Position {
    std::uint32_t factor = kNone, block = 0, index = 0;
  };
  static constexpr std::uint32_t kNone = 0xffffffffu;
  static constexpr std::size_t kMaxImages = 1'000'000;

  /// Π over the symmetric factors t is in of the length of the run its block starts, 0
  /// when its block continues a run (firingMultiplicity, from the runs).
  std::uint32_t copiesOf(TransitionId t, const Runs& runs) const {
    std::uint32_t copies = 1;
    for (const Position& at : transitionBlocks_[t])
      if (factors_[at.factor].kind == SymmetryFactor::Kind::Symmetric)
        copies *= runs.start[at.factor][at.block];
    return copies;
  }

  /// Rotates and reflects the blocks of each cyclic and dihedral factor of m into their
  /// least order.
  void canonicalizeRings(std::span<Tokens> m) const;
  /// The orbit size of m under the cyclic and dihedral factors alone (at most 2k each), or
  /// under the group of elements.
  double ringOrbitSize(MarkingView m) const;
  /// The least image of m over the group of elements, written into m.
  void canonicalizeByElements(std::span<Tokens> m) const;

  /// Lexicographic comparison of the token vectors of blocks a and b of factor f in m.
  int compareBlocks(std::size_t f, std::size_t a, std::size_t b, MarkingView m) const;
  /// The maximal runs of equal adjacent blocks of factor f in m, as (first block, count),
  /// in one pass.
  void adjacentRuns(std::size_t f, MarkingView m,
                    std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) const;

  std::vector<SymmetryFactor> factors_;
  /// A group given by its elements (the identity left out), and per element the place
  /// whose tokens each place receives (the inverse of its place map).
  std::vector<NetPermutation> elements_;
  std::vector<std::vector<PlaceId>> inverse_;
  /// Per factor: its blocks lie at base + b · stride + i (block b, position i) when
  /// `strided`, as a farm's replicas declared place after place do; compared then
  /// without the place lists.
  struct Layout {
    bool strided = false;
    PlaceId base = 0;
    std::size_t stride = 0;
  };
  std::vector<Layout> layouts_;
  std::vector<Position> placeBlock_;
  /// The places in no block of a symmetric factor (the head of a key), and the
  /// transitions in no block of one.
  std::vector<PlaceId> free_;
  std::vector<TransitionId> unblocked_;
  /// Per transition: the first symmetric factor it is in a block of (kNone if none).
  std::vector<std::uint32_t> firstSymmetricFactor_;
  bool rings_ = false;  // a cyclic or dihedral factor
  /// A transition's position in each factor it belongs to (a transfer between two farms
  /// is in a block of each).
  std::vector<std::vector<Position>> transitionBlocks_;
};

/// A steady-state (or transient) solution of the lumped chain, seen as the solution of the
/// whole one: a place's mean tokens and a transition's throughput are their averages over
/// the element's orbit, an expectation is taken of f's average over the group. Exact when
/// the distribution of the unlumped chain is invariant under the group (docs/symmetry.md).
/// Without a symmetry (null), `lumped`'s own values. Holds references to `lumped` and
/// `symmetry`.
class SymmetricMeasures final : public MeasureSource {
 public:
  SymmetricMeasures(const MeasureSource& lumped, const Symmetry* symmetry)
      : lumped_(lumped), symmetry_(symmetry) {}
  double meanTokens(PlaceId p) const override;
  double throughput(TransitionId t) const override;
  double expectation(const std::function<double(MarkingView)>& f,
                     std::span<const PlaceId> reads) const override;

 private:
  const MeasureSource& lumped_;
  const Symmetry* symmetry_;
};

/// Calls visit(t, λ) for every timed transition t of `net` that fires in canonical marking
/// m, with the rate at which it fires together with the interchangeable copies it stands
/// for: Symmetry::firingMultiplicity times λ_t(m), copies that another stands for skipped
/// (Symmetry::forEachRepresentative); λ_t(m) for every enabled one without a symmetry
/// (null). Summed over an orbit of transitions, the lumped chain's rates give the full
/// chain's ([GSPN95] §6.4's throughput on the lumped chain).
template <typename Visit>
void forEachLumpedRate(const Net& net, const Symmetry* symmetry, MarkingView m, Visit&& visit) {
  if (!symmetry) {
    for (TransitionId t : net.timedTransitions())
      if (const double rate = net.rate(t, m); rate != 0.0) visit(t, rate);
    return;
  }
  thread_local Symmetry::Runs runs;
  symmetry->runs(m, runs);
  symmetry->forEachRepresentative(runs, [&](TransitionId t, std::uint32_t copies) {
    if (net.transition(t).kind != TransitionKind::Timed) return;
    if (const double rate = net.rate(t, m); rate != 0.0) visit(t, copies * rate);
  });
}

}  // namespace mmt::gspn
