#pragma once
/// \file
/// The replicas the compiler made interchangeable, as symmetry factors of the compiled net
/// (gspn/symmetry.hpp; docs/symmetry.md): the replicas of a farm or a map, each a block of
/// its tasks' places (`idle`, `busy`, `full`) and transitions (`process`, and the transfers
/// that reach only that replica). Transfers that reach every replica at once (a map's
/// scatter and gather) are fixed by the group; a transfer that reaches some replicas but not
/// all leaves the farm out. The outermost farm or map of a tree gives the factor; those
/// nested inside it are not lumped. Deals are never proposed: their turns tell replicas
/// apart.
///
/// These are proposals: whatever distinguishes one replica in the net (a slower processor,
/// a size that names the replica, a shared processor) is found when the factor is checked
/// against the net (gspn::symmetryViolation), which the caller does before using it.

#include <vector>

#include "compiler/model.hpp"
#include "compiler/templates.hpp"
#include "gspn/symmetry.hpp"

namespace mmt::compiler {

/// One factor per outermost farm or map of the system's skeletons, blocks in replica order.
std::vector<gspn::SymmetryFactor> replicaSymmetry(const System& system, const Routing& routing,
                                                  const Ports& ports);

}  // namespace mmt::compiler
