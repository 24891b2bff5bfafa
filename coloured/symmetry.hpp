#pragma once
/// \file
/// The symmetry a symmetric net declares by its colour classes, as permutations of its
/// unfolding (coloured/unfold.hpp). A well-formed net's behaviour is invariant under the
/// permutations of each unordered class that keep its static subclasses, and under the
/// rotations of each circular class (Chiola, Dutheillet, Franceschinis & Haddad, "Stochastic
/// well-formed coloured nets for symmetric modelling applications", IEEE Trans. Computers
/// 42(11), 1993, §3; the group its symbolic reachability graph lumps by). Ordered sorts
/// (integer ranges) are not permuted. docs/symmetry.md, "Colour classes".
///
/// The group is given by its elements, which the lumping checks against the unfolded net
/// one by one (gspn::permutationViolation): constants in arcs, guards that name a colour
/// and initial markings that single one out leave the subgroup that respects them.

#include <cstdint>
#include <string>
#include <vector>

#include "coloured/net.hpp"
#include "coloured/unfold.hpp"

namespace mmt::coloured {

struct ColourPermutations {
  struct Class {
    std::string name;   ///< the sort ("Srv")
    std::string group;  ///< "symmetric", "cyclic", "symmetric on each static subclass"
    std::uint64_t colours = 0;
    std::uint64_t order = 0;  ///< the number of its permutations in the group
  };
  /// The classes that the net's places or variables use, with two colours or more.
  std::vector<Class> classes;
  /// Every element of the product of the classes' groups, but the identity, that maps each
  /// kept binding of every transition onto a kept binding: per element the image of each
  /// unfolded place and transition (indices into Unfolding::places and ::transitions).
  /// They form a group with the identity (a bijection of a finite set into itself is onto).
  struct Element {
    std::vector<std::uint32_t> places, transitions;
  };
  std::vector<Element> elements;
  /// The product of the classes' orders, the elements tried.
  std::uint64_t tried = 0;
  /// Why no elements were tried, when the classes' group is too large to enumerate (empty
  /// otherwise).
  std::string refused;
};

struct ColourPermutationLimits {
  /// Elements of the classes' group enumerated (7!).
  std::uint64_t elements = 5040;
  /// Elements times unfolded places and transitions: the memory the images take.
  std::uint64_t images = 10'000'000;
};

/// The colour permutations of `net` as permutations of `unfolding`, its unfolding.
ColourPermutations colourPermutations(const Net& net, const Unfolding& unfolding,
                                      const ColourPermutationLimits& limits = {});

}  // namespace mmt::coloured
