#pragma once
/// \file
/// Writers for a frozen net: a plain-text dump (stable, diffable, used by golden tests) and
/// Graphviz DOT produced with the cgraph library, one cluster per place/transition group.

#include <iosfwd>
#include <string>

#include "gspn/net.hpp"

namespace mmt::gspn {

/// Writes `net` as text: one `place` line per place, then one block per transition with
/// its `in`, `out` and `inhibit` arcs (multiplicities as `name*k`). Groups follow `@`.
void writeText(const Net& net, std::ostream& out);

/// Writes `net` as a Graphviz digraph to `path`: places are circles (with their initial
/// tokens), timed transitions white boxes, immediate transitions black bars, inhibitor arcs
/// end in a circle. Each non-empty group becomes a `cluster_<group>` subgraph.
/// Throws std::runtime_error if the file cannot be written.
void writeDot(const Net& net, const std::string& path);

}  // namespace mmt::gspn
