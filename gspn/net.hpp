#pragma once
/// \file
/// Generalized Stochastic Petri Nets: a builder that hands out integer handles and an
/// immutable net in compressed-sparse-row form.
///
/// Semantics follow [GSPN84] M. Ajmone Marsan, G. Conte, G. Balbo, ACM TOCS 2(2), 1984, and
/// [GSPN95] Ajmone Marsan et al., "Modelling with GSPNs", Wiley 1995, ch. 2 and 6:
/// - a transition t is enabled in marking m when m(p) >= I(t,p) for every input arc and
///   m(p) < H(t,p) for every inhibitor arc, and its guard, if it has one, is true in m
///   (an enabling function of the marking: SPNP's guards [SPNP], GreatSPN's);
/// - timed transitions fire after an exponential delay (race policy); immediate
///   transitions fire in zero time, have priority over timed ones, and among the enabled
///   immediate transitions of the highest priority level one fires with probability
///   weight / (sum of weights).

#include <boost/unordered/unordered_flat_map.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gspn/distribution.hpp"
#include "gspn/expression.hpp"

namespace mmt::gspn {

using PlaceId = std::uint32_t;
using TransitionId = std::uint32_t;
/// Token count of one place. A marking is a contiguous array of `placeCount()` of these.
using Tokens = std::uint32_t;
using MarkingView = std::span<const Tokens>;

enum class TransitionKind : std::uint8_t { Timed, Immediate };

/// How the firing rate of a timed transition depends on its enabling degree e(m)
/// ([GSPN95] §6.3): single-server λ, infinite-server λ·e(m), k-server λ·min(k, e(m)).
enum class ServerSemantics : std::uint8_t { Single, Infinite, KServer };

/// An arc's multiplicity is a positive constant or, when `expression != kConstant`, an
/// expression over the marking before the firing (the FMS "flush" arcs). A marking-dependent
/// multiplicity that evaluates to 0 disables the transition on an input arc, and makes the
/// arc absent on an output or inhibitor arc (docs/modelling.md, "Raw nets").
struct Arc {
  static constexpr std::uint32_t kConstant = 0xffffffffu;
  PlaceId place;
  std::uint32_t multiplicity;
  /// Index into Net::arcExpressions(), or kConstant.
  std::uint32_t expression = kConstant;
};

struct Place {
  std::string name;
  Tokens initial = 0;
  /// The system element this place belongs to (one Graphviz cluster per group); may be empty.
  std::string group;
};

struct Transition {
  std::string name;
  TransitionKind kind = TransitionKind::Timed;
  /// Timed: firing rate λ per model time unit (1 / mean delay). Unused when immediate.
  double rate = 1.0;
  /// Timed: when not empty, the rate in marking m is this expression's value (the server
  /// semantics are then ignored). It must be >= 0 where the transition is enabled.
  Expression rateExpression;
  /// Timed: the declared delay of one server when it is not exponential (const, erlang,
  /// ...); `rate` is then 1 / its mean, which is all the numerical solver uses. Empty for
  /// an exponential delay, and always empty with a rate expression.
  std::optional<Distribution> declaredDelay;
  ServerSemantics servers = ServerSemantics::Single;
  /// Number of servers for ServerSemantics::KServer.
  std::uint32_t serverCount = 1;
  /// Immediate: relative weight (> 0) and priority level (>= 1). Unused when timed.
  double weight = 1.0;
  std::uint32_t priority = 1;
  std::string group;
  /// When not empty, t is enabled only in markings where this expression is non-zero.
  Expression guard;
};

/// A user measure of a raw net: a name and an expression over measure atoms.
struct Measure {
  std::string name;
  Expression expression;
};

/// A permutation of a net's places and transitions: place p goes to places[p], transition
/// t to transitions[t].
struct NetPermutation {
  std::vector<PlaceId> places;
  std::vector<TransitionId> transitions;
  bool operator==(const NetPermutation&) const = default;
};

/// The symmetry a coloured net declares by its colour classes (coloured/symmetry.hpp): the
/// group of colour permutations, as permutations of the unfolded net, and per class what
/// its group is. Each element permutes the first places and transitions of the net (those
/// its size covers) and fixes the rest. The lumping checks every element against the net
/// before it uses one (gspn::permutationViolation), keeping the subgroup that maps the net
/// onto itself.
struct DeclaredSymmetry {
  struct Class {
    std::string name;         ///< the colour class ("Srv")
    std::string group;        ///< "symmetric", "cyclic", "symmetric on each static subclass"
    std::size_t colours = 0;  ///< the class's size
  };
  std::vector<Class> classes;
  /// The elements but the identity that map every kept binding onto a kept one.
  std::vector<NetPermutation> elements;
  /// The order of the classes' group (the elements tried, the identity included); 0 when
  /// it was not enumerated.
  std::uint64_t tried = 0;
  /// Why the classes' group was not enumerated (too large), or empty.
  std::string refused;
  bool empty() const { return classes.empty(); }
};

class Net;

/// Collects places, transitions and arcs; `freeze()` validates and produces a `Net`.
/// Handles are dense indices in creation order.
class NetBuilder {
 public:
  explicit NetBuilder(std::string name = "net") : name_(std::move(name)) {}

  PlaceId addPlace(std::string name, Tokens initial = 0, std::string group = {});
  /// \param rate firing rate (> 0, finite), per model time unit.
  TransitionId addTimed(std::string name, double rate, std::string group = {},
                        ServerSemantics servers = ServerSemantics::Single,
                        std::uint32_t serverCount = 1);
  /// \param weight relative firing weight (> 0); \param priority level (>= 1, higher wins).
  TransitionId addImmediate(std::string name, double weight = 1.0, std::uint32_t priority = 1,
                            std::string group = {});

  void addInput(TransitionId t, PlaceId p, std::uint32_t multiplicity = 1);
  void addOutput(TransitionId t, PlaceId p, std::uint32_t multiplicity = 1);
  void addInhibitor(TransitionId t, PlaceId p, std::uint32_t multiplicity = 1);
  /// Arcs whose multiplicity depends on the marking (see Arc).
  void addInput(TransitionId t, PlaceId p, Expression multiplicity);
  void addOutput(TransitionId t, PlaceId p, Expression multiplicity);
  void addInhibitor(TransitionId t, PlaceId p, Expression multiplicity);
  /// Makes the rate of timed transition t the value of `rate` in each marking.
  void setRateExpression(TransitionId t, Expression rate);
  /// Enables t only in the markings where `guard` is non-zero (an expression over token
  /// counts, without measure atoms).
  void setGuard(TransitionId t, Expression guard);
  /// Gives timed transition t the delay distribution `delay` (per server): its rate becomes
  /// 1 / delay.mean(), and a non-exponential delay is kept for the simulator.
  void setDelay(TransitionId t, const Distribution& delay);
  void addMeasure(std::string name, Expression expression);
  /// Says that the net unfolds a coloured net, each place's and transition's group being
  /// the coloured place or transition it is a colour of (coloured/unfold.hpp): results then
  /// report the coloured totals beside each colour.
  /// `tried` and `kept` are the unfolding's bindings: the colour values tried while
  /// binding, and the bindings whose guard holds (coloured::Unfolding).
  void setUnfolded(std::uint64_t tried = 0, std::uint64_t kept = 0) {
    unfolded_ = true;
    bindingsTried_ = tried;
    bindingsKept_ = kept;
  }
  /// The group of colour permutations that the coloured net declares.
  void declareSymmetry(DeclaredSymmetry symmetry) { declared_ = std::move(symmetry); }

  std::size_t placeCount() const { return places_.size(); }
  std::size_t transitionCount() const { return transitions_.size(); }

  /// Validates (unique names, positive rates and weights, positive multiplicities) and
  /// returns the immutable net. Throws std::invalid_argument naming the offending element.
  Net freeze() const;

 private:
  struct PendingArc {
    TransitionId transition;
    PlaceId place;
    std::uint32_t multiplicity;
    std::uint32_t expression;
  };
  std::string name_;
  std::vector<Place> places_;
  std::vector<Transition> transitions_;
  std::vector<PendingArc> inputs_, outputs_, inhibitors_;
  std::vector<Expression> arcExpressions_;
  std::vector<Measure> measures_;
  bool unfolded_ = false;
  std::uint64_t bindingsTried_ = 0, bindingsKept_ = 0;
  DeclaredSymmetry declared_;
};

/// An immutable GSPN. Arcs of each kind are stored in one flat array with per-transition
/// offsets (CSR), so the enabling test is a tight loop over contiguous memory.
class Net {
 public:
  const std::string& name() const { return name_; }
  /// The net unfolds a coloured net: groups are its coloured places and transitions
  /// (NetBuilder::setUnfolded).
  bool unfolded() const { return unfolded_; }
  /// An unfolded net's bindings: colour values tried while binding, and bindings kept (one
  /// transition each); 0 for other nets (NetBuilder::setUnfolded).
  std::uint64_t bindingsTried() const { return bindingsTried_; }
  std::uint64_t bindingsKept() const { return bindingsKept_; }
  /// The colour symmetry of the coloured net it unfolds (NetBuilder::declareSymmetry);
  /// empty for other nets.
  const DeclaredSymmetry& declaredSymmetry() const { return declared_; }
  std::size_t placeCount() const { return places_.size(); }
  std::size_t transitionCount() const { return transitions_.size(); }
  const Place& place(PlaceId p) const { return places_[p]; }
  const Transition& transition(TransitionId t) const { return transitions_[t]; }
  const std::vector<Place>& places() const { return places_; }
  const std::vector<Transition>& transitions() const { return transitions_; }
  bool isImmediate(TransitionId t) const {
    return transitions_[t].kind == TransitionKind::Immediate;
  }

  std::span<const Arc> inputs(TransitionId t) const { return slice(inputs_, t); }
  std::span<const Arc> outputs(TransitionId t) const { return slice(outputs_, t); }
  std::span<const Arc> inhibitors(TransitionId t) const { return slice(inhibitors_, t); }

  /// Transitions of each kind, in id order.
  const std::vector<TransitionId>& timedTransitions() const { return timed_; }
  const std::vector<TransitionId>& immediateTransitions() const { return immediate_; }

  std::vector<Tokens> initialMarking() const;
  /// Timed transitions that declare a non-exponential delay (the numerical solver uses
  /// only their means).
  std::size_t declaredDelayCount() const {
    std::size_t n = 0;
    for (const Transition& t : transitions_) n += t.declaredDelay.has_value();
    return n;
  }

  const std::vector<Expression>& arcExpressions() const { return arcExpressions_; }
  const std::vector<Measure>& measures() const { return measures_; }
  /// True when some arc of t has a marking-dependent multiplicity.
  bool hasMarkingDependentArcs(TransitionId t) const { return markingDependentArcs_[t] != 0; }
  /// Whether t's enabling evaluates expressions (marking-dependent arcs or a guard), not
  /// only compares counts with its arcs' multiplicities.
  bool hasMarkingDependentEnabling(TransitionId t) const {
    return markingDependentEnabling_[t] != 0;
  }

  /// Multiplicity of arc a in marking m. Throws std::domain_error when a marking-dependent
  /// multiplicity is negative or not an integer.
  std::uint32_t multiplicity(const Arc& a, MarkingView m) const {
    return a.expression == Arc::kConstant ? a.multiplicity : evaluateMultiplicity(a, m);
  }

  /// Throws std::domain_error when a guard is not a number in m.
  bool isEnabled(TransitionId t, MarkingView m) const {
    if (markingDependentEnabling_[t]) return isEnabledMarkingDependent(t, m);
    for (const Arc& a : inputs(t))
      if (m[a.place] < a.multiplicity) return false;
    for (const Arc& a : inhibitors(t))
      if (m[a.place] >= a.multiplicity) return false;
    return true;
  }

  /// Enabling degree: how many times t could fire in a row from m (0 when disabled).
  /// A transition with no input arcs has degree 1 when enabled.
  std::uint32_t enablingDegree(TransitionId t, MarkingView m) const;

  /// Firing rate of timed transition t in m according to its server semantics or rate
  /// expression; 0 if disabled. Throws std::domain_error when a rate expression is negative
  /// or not a number in a marking that enables t.
  double rate(TransitionId t, MarkingView m) const;

  /// Writes the marking reached by firing t from `from` into `to` (same size; may alias).
  /// Throws std::domain_error when a place would hold more tokens than Tokens can count.
  void fire(TransitionId t, MarkingView from, std::span<Tokens> to) const;

  std::optional<PlaceId> findPlace(std::string_view name) const;
  std::optional<TransitionId> findTransition(std::string_view name) const;

  /// "P1.idle=1, A2.running=1" — the marked places of m, for messages.
  std::string describe(MarkingView m) const;

 private:
  /// to[p] += count, or std::domain_error naming the place when it would overflow.
  void addTokens(TransitionId t, PlaceId p, Tokens count, MarkingView from,
                 std::span<Tokens> to) const;
  friend class NetBuilder;
  struct ArcTable {
    std::vector<std::uint32_t> offset;  // size transitionCount + 1
    std::vector<Arc> arcs;
  };
  static std::span<const Arc> slice(const ArcTable& table, TransitionId t) {
    return {table.arcs.data() + table.offset[t], table.offset[t + 1] - table.offset[t]};
  }

  std::uint32_t evaluateMultiplicity(const Arc& a, MarkingView m) const;
  bool isEnabledMarkingDependent(TransitionId t, MarkingView m) const;

  std::string name_;
  bool unfolded_ = false;
  std::uint64_t bindingsTried_ = 0, bindingsKept_ = 0;
  DeclaredSymmetry declared_;
  std::vector<Place> places_;
  std::vector<Transition> transitions_;
  ArcTable inputs_, outputs_, inhibitors_;
  std::vector<Expression> arcExpressions_;
  std::vector<Measure> measures_;
  std::vector<char> markingDependentArcs_;
  /// Marking-dependent arcs or a guard: the enabling test evaluates expressions.
  std::vector<char> markingDependentEnabling_;
  std::vector<TransitionId> timed_, immediate_;
  boost::unordered_flat_map<std::string, PlaceId> placeIndex_;
  boost::unordered_flat_map<std::string, TransitionId> transitionIndex_;
};

/// Copies `net` into a builder, element by element in id order (so every id stays the
/// same and more can be added after them); `asImmediate` (by transition, may be empty)
/// lists timed transitions to add as immediate ones of weight 1 instead.
NetBuilder copyNet(const Net& net, const std::vector<char>& asImmediate = {});
/// `net` with every timed transition's delay constant, its mean (1 / its rate): what
/// `mmt simulate --delays constant` simulates, as a net the DSPN solver reads
/// (solver/dspn.hpp). Throws std::invalid_argument naming a transition whose rate depends
/// on the marking (its mean is no one number).
Net withConstantDelays(const Net& net);
/// Gives transition `to` of `b` every arc of transition `from` of `net` (input, output and
/// inhibitor, constant or marking-dependent), on the same places.
void copyArcs(const Net& net, TransitionId from, NetBuilder& b, TransitionId to);

}  // namespace mmt::gspn
