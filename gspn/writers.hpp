#pragma once
/// \file
/// Writers: a net in the `.gspn` text format (stable, diffable, used by golden tests), as
/// PNML and GreatSPN files (exchange.cpp), and as
/// Graphviz DOT produced with the cgraph library, one cluster per place/transition group;
/// a tangible reachability graph in PRISM's explicit format.

#include <iosfwd>
#include <string>

#include "gspn/net.hpp"
#include "gspn/reachability.hpp"

namespace mmt::gspn {

/// Writes `net` in the raw GSPN text format (docs/gspn.md), which reads back to the same
/// net: places, then transitions with their `in`, `out` and `inhibit` arcs, then measures.
/// Rates and weights are written with enough digits to round-trip exactly.
void writeText(const Net& net, std::ostream& out);

/// A name as the text format writes it: bare when it is a plain name, quoted otherwise.
std::string textName(const std::string& name);

/// Shortest decimal text that reads back to the same double.
std::string formatNumber(double x);

/// An expression of `net` in the text format's syntax (`#P` for token counts).
std::string formatExpression(const Net& net, const Expression& e);

/// Writes `net` as a Graphviz digraph to `path`: places are circles (with their initial
/// tokens), timed transitions white boxes, immediate transitions black bars, inhibitor arcs
/// end in a circle. Each non-empty group becomes a `cluster_<group>` subgraph.
/// Throws std::runtime_error if the file cannot be written.
void writeDot(const Net& net, const std::string& path);

/// Writes the graph in PRISM's explicit format: the `.tra` file (transitions "i j rate",
/// by source), the `.sta` file (states as place-count tuples) and the `.lab` file (the
/// initial state, deadlocks), so that results can be cross-checked with PRISM or other
/// tools. Throws std::runtime_error when a file cannot be written.
void writePrism(const Net& net, const TangibleReachabilityGraph& g, const std::string& traPath,
                const std::string& staPath, const std::string& labPath);

/// Writes `net` as PNML in PIPE's GSPN conventions (docs/formats.md): `rate`, `timed`,
/// `infiniteServer`, `priority`, "Default,N" markings and inscriptions, `<type
/// value="inhibitor"/>`, marking-dependent rates and arc weights in PIPE's functional
/// notation (`#(P)`), and a `<toolspecific tool="mmt">` label for k servers, groups and
/// measures. Reads back to the same net.
void writePnml(const Net& net, std::ostream& out);

/// Writes `net` as a GreatSPN pair: the `.net` file to `netOut`, the `.def` file (marking-
/// dependent rates, measures) to `defOut`. Reads back to the same net. Throws
/// std::invalid_argument naming the element when GreatSPN cannot express it: a declared
/// non-exponential delay, or a name containing blanks. A marking-dependent arc multiplicity
/// is written after the arc's label position, as GreatSPN's editor does.
void writeGreatSpn(const Net& net, std::ostream& netOut, std::ostream& defOut);

/// Writes `net` as a GreatSPN editor project (PNPRO) with one GSPN page: EXP transitions
/// (`delay` = the rate, `nservers` 1, k or Infinite), IMM transitions (weight, priority),
/// INPUT, OUTPUT and INHIBITOR arcs (`mult`, an expression where it depends on the
/// marking). Reads back to the same net but for groups and measures, which PNPRO pages do
/// not carry. Throws std::invalid_argument naming the transition that declares a
/// non-exponential delay.
void writePnpro(const Net& net, std::ostream& out);

}  // namespace mmt::gspn
