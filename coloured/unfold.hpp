#pragma once
/// \file
/// The unfolding of a symmetric net into its place/transition net (Jensen & Kristensen,
/// "Coloured Petri Nets", Springer 2009, §2.4 and §4.3; ISO/IEC 15909-2): a place per
/// (place, colour), a transition per (transition, binding) whose guard holds, and per such
/// binding the arcs that its inscriptions evaluate to. The unfolded net has the coloured
/// net's reachability graph, marking for marking (the Model Checking Contest publishes each
/// symmetric net beside its P/T unfolding, with the same state-space size).
///
/// A binding assigns every variable of a transition (those of its guard and its arcs) a
/// colour of its sort. Bindings are generated one variable at a time, and the guard's
/// conjuncts are checked as soon as their variables are bound, so a partial binding that a
/// conjunct refuses is not extended; a conjunct `x = term` whose term is bound computes x
/// instead of trying every colour of its sort. The time is then about the bindings kept, not
/// the binding space, for the selective guards the contest's nets have.

#include <cstdint>
#include <string>
#include <vector>

#include "coloured/net.hpp"

namespace mmt::coloured {

struct UnfoldLimits {
  /// Colour values tried while binding, over all transitions; past it, Error names the
  /// transition and its binding space.
  std::uint64_t tried = 100'000'000;
  /// Unfolded places (the sum of the places' sort sizes).
  std::uint64_t places = 50'000'000;
  /// Unfolded transitions (bindings kept): a net of a million transitions takes some 8 s
  /// and 1 GB to read and build whole.
  std::uint64_t transitions = 2'000'000;
};

struct Unfolding {
  struct Place {
    std::string name;           ///< "State_0_1": the place's and its colour's names
    std::uint64_t initial = 0;  ///< tokens of that colour in the initial marking
    std::uint32_t coloured = 0;
    Colour colour = 0;
  };
  struct Arc {
    std::uint32_t place = 0;   ///< an unfolded place
    std::uint64_t weight = 0;  ///< ≥ 1
  };
  struct Transition {
    std::string name;  ///< "Change_1_2": the transition's and its binding's names
    std::uint32_t coloured = 0;
    /// The binding: a colour per variable of the transition, in declaration order.
    std::vector<VariableId> variables;
    std::vector<Colour> binding;
    std::vector<Arc> inputs, outputs;  ///< one per unfolded place, in its order
    std::vector<Arc> inhibitors;
  };
  std::vector<Place> places;  ///< place by place, each colour in order
  std::vector<Transition> transitions;
  /// Colour values tried while binding, and the bindings whose guard holds (one unfolded
  /// transition each).
  std::uint64_t tried = 0;
  std::uint64_t kept = 0;
};

/// Unfolds `net`. Throws Error at the term where a multiset goes negative or a count passes
/// 2^62, at a transition whose bindings pass `limits.tried` or `limits.transitions`, or at the
/// place that passes `limits.places`.
Unfolding unfold(const Net& net, const UnfoldLimits& limits = {});

}  // namespace mmt::coloured
