#pragma once
/// \file
/// A net whose replicas are interchangeable, read as a *population model*: the places of
/// no replica (the *fixed part*: an emitter, a collector, a shared bus) keep their
/// markings, and each class of replicas is counted by local state — how many of its N
/// replicas hold each token vector of one replica's places (docs/meanfield.md).
///
/// The replicas are the blocks of the symmetric factors of gspn/symmetry.hpp: a farm's
/// workers (compiler/symmetry.hpp), or machines a raw net's automorphisms interchange. The
/// chain this counting describes is the chain lumped by that group (its canonical marking
/// holds the same counts), a population CTMC in the sense of Kurtz (J. Appl. Prob. 7(1),
/// 1970): each transition becomes a *class*, one per orbit of transitions under the group,
/// whose members fire for one replica (or one of each of two classes) at a time. A member's
/// expressions may read the fixed places, the places of its own replicas, and sums over
/// every replica (λ / Σ_k #W[k].idle, a farm's shared rate): each such sum is an *orbit
/// sum*, Σ over the local states ℓ of the replicas' count c_ℓ times the term read in ℓ,
/// and so a function of the counts that extends to any N. Anything else that tells one
/// replica from another (a transition reading another replica's place, a map's scatter
/// that moves every replica at once, a marking-dependent arc on a replica) has no such
/// reading: populationModel refuses it, naming the element.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gspn/expression.hpp"
#include "gspn/net.hpp"
#include "gspn/symmetry.hpp"

namespace mmt::meanfield {

/// The net has no population reading: `element` is the transition or place at fault and
/// what() says why.
class UnsupportedModel : public std::invalid_argument {
 public:
  UnsupportedModel(std::string element, const std::string& message)
      : std::invalid_argument(message), element_(std::move(element)) {}
  const std::string& element() const { return element_; }

 private:
  std::string element_;
};

struct Limits {
  /// Local states of one class of replicas (token vectors of one replica's places).
  std::size_t localStates = 10'000;
  /// Tangible markings of the fixed part.
  std::size_t fixedStates = 2'000;
  /// Branches of one resolution of immediate transitions.
  std::size_t resolutionBranches = 100'000;
};

/// The codes a class's expressions read in place of place ids (gspn::Expression's token
/// counts): fixed place i is i; position q of the replica in slot s is
/// kSlotCode + s · kPositions + q; orbit sum k of the expression is kSumCode + k.
inline constexpr std::uint32_t kPositions = 1u << 16;
inline constexpr std::uint32_t kSlotCode = 1u << 28;
inline constexpr std::uint32_t kSumCode = 1u << 30;

/// Σ over every tuple of distinct replicas, one per slot (a replica of class `classes[s]`
/// in slot s), of `term`, which reads the fixed places and its slots' places.
struct OrbitSum {
  std::vector<std::uint32_t> classes;
  gspn::Expression term;
};

/// A class member's rate or guard over the codes above.
struct PopulationExpression {
  gspn::Expression code;
  std::vector<OrbitSum> sums;
  bool empty() const { return code.empty(); }
};

/// One class of interchangeable replicas: a symmetric factor's blocks, counted.
struct Replicas {
  std::string label;  ///< what a replica is ("W")
  /// N: the replicas of the model (the net's blocks, or more: setCount).
  std::uint64_t count = 0;
  /// The net's places of each replica, [block][position]; block 0's name the positions.
  std::vector<std::vector<gspn::PlaceId>> places;
  /// Block 0's place names, by position.
  std::vector<std::string> names;
  /// Every token vector (one per position) a replica may hold, the initial one first.
  std::vector<std::vector<gspn::Tokens>> localStates;
  /// "W[k].busy", "W[k].idle=2, W[k].busy", "empty": the places of block 0 that a local
  /// state marks, "[1]" after the label read as "[k]".
  std::string describe(std::uint32_t state) const;
};

/// Where an arc of a class's members is: fixed place `index`, or position `position` of
/// the replica in slot `index`.
struct Location {
  bool slot = false;
  std::uint32_t index = 0;
  std::uint32_t position = 0;
  bool operator==(const Location&) const = default;
};
struct ClassArc {
  Location at;
  gspn::Tokens multiplicity = 1;
};

/// An orbit of the net's transitions under the replicas' group: transitions that fire
/// alike for one replica of each class in `slots` (none: a transition of the fixed part).
struct TransitionClass {
  std::string name;  ///< the representative's, every slot on replica 1
  gspn::TransitionId representative = 0;
  std::vector<gspn::TransitionId> members;
  std::vector<std::uint32_t> slots;  ///< the replica class of each slot, distinct
  /// Members per assignment of replicas to the slots (1 but where the net repeats one).
  double perAssignment = 1;
  gspn::TransitionKind kind = gspn::TransitionKind::Timed;
  double rate = 1;  ///< λ per model time unit, of each member's server
  gspn::ServerSemantics servers = gspn::ServerSemantics::Single;
  std::uint32_t serverCount = 1;
  double weight = 1;
  std::uint32_t priority = 1;
  PopulationExpression rateExpression, guard;
  std::vector<ClassArc> inputs, outputs, inhibitors;
  bool immediate() const { return kind == gspn::TransitionKind::Immediate; }
};

struct PopulationModel {
  std::string name;
  /// The fixed part: its places (the net's) and their initial tokens.
  std::vector<gspn::PlaceId> fixedPlaces;
  std::vector<std::string> fixedNames;
  std::vector<gspn::Tokens> fixedInitial;
  std::vector<Replicas> replicas;
  std::vector<TransitionClass> classes;
  /// By net transition, its class.
  std::vector<std::uint32_t> classOf;
  /// By net place: its replica class and position, or (class −1) its fixed index.
  struct Role {
    int replicas = -1;
    std::uint32_t index = 0;
  };
  std::vector<Role> roles;

  /// The model with class f holding `count` replicas: the same classes read at another N.
  void setCount(std::size_t f, std::uint64_t count) { replicas[f].count = count; }
  /// Lines that two models read from nets of two sizes share exactly when they differ in
  /// nothing but their counts: the fixed places, each class of replicas (label, positions,
  /// local states) and each transition class (arcs, rates, weights, expressions).
  std::vector<std::string> signature() const;
};

/// The population model of `net` whose replicas are the blocks of `factors` (each a
/// symmetric factor, checked against the net by the caller: gspn::symmetryViolation with
/// the initial marking). Throws UnsupportedModel (see the file comment; also a class of
/// more than limits.localStates local states, or a replica place that grows without
/// bound), std::invalid_argument for a factor that is not symmetric.
PopulationModel populationModel(const gspn::Net& net,
                                const std::vector<gspn::SymmetryFactor>& factors,
                                const Limits& limits = {});

/// The first line of their signatures where a and b differ, as "A; B", or nothing.
std::optional<std::string> signatureDifference(const PopulationModel& a, const PopulationModel& b);

}  // namespace mmt::meanfield
