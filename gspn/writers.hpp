#pragma once
/// \file
/// Writers: the names, numbers and expressions of a net as its `.gspn` text writes them; a
/// net as Graphviz DOT produced with the cgraph library, one cluster per place/transition
/// group; a tangible reachability graph in PRISM's explicit format. The net formats mmt
/// reads, `.gspn` text included, are written beside their readers (io/formats.hpp).

#include <iosfwd>
#include <string>

#include "gspn/net.hpp"
#include "gspn/reachability.hpp"

namespace mmt::gspn {

/// A name as the text format writes it: bare when it is a plain name, quoted otherwise.
std::string textName(const std::string& name);

/// Shortest decimal text that reads back to the same double.
std::string formatNumber(double x);

/// An expression of `net` in `notation` (the text format's by default, `#P` for token
/// counts), each place, transition and measure named by `name` (the text format's
/// textName by default).
std::string formatExpression(const Net& net, const Expression& e,
                             Expression::Notation notation = Expression::Notation::Mmt,
                             std::string (*name)(const std::string&) = textName);

/// Writes `net` as a Graphviz digraph to `path`: places are circles (with their initial
/// tokens), timed transitions white boxes, immediate transitions black bars, inhibitor arcs
/// end in a circle. Each non-empty group becomes a `cluster_<group>` subgraph.
/// Throws std::runtime_error if the file cannot be written.
void writeDot(const Net& net, const std::string& path);

/// The same digraph laid out by Graphviz's dot and rendered as text in `format` ("svg";
/// each place's node id is `p:NAME`, a transition's `t:NAME`, a group's cluster
/// `cluster_GROUP`). Safe from several threads (gspn::GraphvizSession). Throws std::runtime_error
/// when Graphviz fails.
std::string renderNet(const Net& net, const std::string& format);

/// Writes the graph in PRISM's explicit format: the `.tra` file (transitions "i j rate",
/// by source), the `.sta` file (states as place-count tuples) and the `.lab` file (the
/// initial state, deadlocks), so that results can be cross-checked with PRISM or other
/// tools. Throws std::runtime_error when a file cannot be written.
void writePrism(const Net& net, const TangibleReachabilityGraph& g, const std::string& traPath,
                const std::string& staPath, const std::string& labPath);

}  // namespace mmt::gspn
