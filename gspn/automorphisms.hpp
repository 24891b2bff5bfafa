#pragma once
/// \file
/// Symmetry found in a raw net (docs/symmetry.md, "Raw nets"): the automorphism group of
/// the net's coloured graph, computed by nauty (McKay & Piperno, "Practical graph
/// isomorphism, II", J. Symbolic Computation 60, 2014), and the part of it that is a
/// product of symmetric, cyclic or dihedral groups on blocks, as gspn::Symmetry uses it.
///
/// The graph has a vertex per place (coloured by its initial marking), per transition
/// (coloured by kind, rate, server semantics, weight, priority and the shape of its rate
/// expression and guard, places left out), per arc (coloured by direction, multiplicity and
/// the shape of a marking-dependent multiplicity) joined to its place and transition, and
/// per place an expression reads, joined to the place and to the transition or arc that
/// reads it. An automorphism of this graph permutes places and transitions; blocks are then
/// recognised from the generators, and every factor is checked against the net with
/// gspn::symmetryViolation (which compares the expressions themselves), so a factor used is
/// a symmetry of the net whatever the colours missed.

#include <string>
#include <vector>

#include "gspn/net.hpp"
#include "gspn/symmetry.hpp"

namespace mmt::gspn {

struct AutomorphismSettings {
  /// The search stops once it has visited this many search-tree nodes times the graph's
  /// size (vertices + edges): a budget of work (the 10 MB contest net ServersAndClients
  /// spends it in 1.1 s on a 2-core machine of 2026) that stops it at the same point on
  /// any machine and at any load, so that the symmetry found, and every answer lumped by
  /// it, does not depend on the machine's speed. The generators found by then are still
  /// automorphisms and are used.
  double maxWork = 2e9;
  /// A backstop in wall-clock seconds (nauty's kill request from a watchdog), for a node
  /// whose refinement alone would run long.
  double maxSeconds = 60.0;
};

struct FoundSymmetry {
  /// Factors on disjoint places, each checked with symmetryViolation (initial marking
  /// included); empty when the net has no usable symmetry.
  std::vector<SymmetryFactor> factors;
  /// log10 of the order of the whole automorphism group found (0: only the identity).
  double log10GroupOrder = 0;
  double seconds = 0;
  /// The work budget (or the backstop) stopped the search.
  bool stopped = false;
  /// What was found and not used (orbits that form no blocks, a factor the check refused).
  std::vector<std::string> notes;
};

/// The symmetry of `net` (see the file comment). Not reentrant across threads: nauty's kill
/// request is one flag for the process, so concurrent searches share their time limits.
FoundSymmetry findSymmetry(const Net& net, const AutomorphismSettings& settings = {});

}  // namespace mmt::gspn
