#pragma once
/// \file
/// A model written out: its net in every format mmt reads (docs/formats.md), its explored
/// chain in PRISM's explicit format, and pictures of the net and of a solved system. The
/// writers themselves live beside their readers (gspn/writers.hpp, io/formats.hpp) and the
/// system's picture in compiler/picture.hpp; front ends call them through here.

#include <iosfwd>
#include <string>

#include "api/model.hpp"
#include "compiler/metrics.hpp"
#include "gspn/reachability.hpp"

namespace mmt::api {

/// A net format that fits in one file.
enum class NetFormat {
  Text,   ///< mmt's `.gspn` text (docs/gspn.md)
  Pnml,   ///< PNML in PIPE's GSPN conventions
  Pnpro,  ///< a GreatSPN editor project with one GSPN page
};

/// `model`'s net in `format`; each reads back to the same net (PNPRO without groups and
/// measures). Throws std::invalid_argument naming the element a format cannot hold (a
/// declared non-exponential delay in PNPRO).
std::string writeNet(const Model& model, NetFormat format);

/// GreatSPN's pair of files: the `.net` structure and the `.def` definitions.
struct GreatSpnFiles {
  std::string net;
  std::string def;
};
/// `model`'s net as GreatSPN files. Throws std::invalid_argument naming the element
/// GreatSPN cannot express (a declared non-exponential delay, a name with blanks).
GreatSpnFiles writeGreatSpn(const Model& model);

/// `model`'s net as a Graphviz digraph written to `path`, one cluster per element. Throws
/// std::runtime_error when the file cannot be written.
void writeNetDot(const Model& model, const std::string& path);

/// `model`'s net laid out by Graphviz's dot and rendered in `format` ("svg"). Safe from
/// several threads. Throws std::runtime_error when Graphviz fails.
std::string drawNet(const Model& model, const std::string& format);

/// The tangible chain `graph` of `model` (edges included: call it from an ExploredHook) in
/// PRISM's explicit format, to the files `tra`, `sta` and `lab`. Throws std::runtime_error
/// when a file cannot be written.
void writePrism(const Model& model, const gspn::TangibleReachabilityGraph& graph,
                const std::string& tra, const std::string& sta, const std::string& lab);

/// The system `model` (a system description) drawn with its solved `metrics`, coloured by
/// utilization, the bottleneck outlined (compiler/picture.hpp), written to `path` in
/// `format` ("svg", "png" or "dot"). Throws std::invalid_argument for a raw net,
/// std::runtime_error when Graphviz fails.
void drawSystem(const Model& model, const compiler::SystemMetrics& metrics, const std::string& path,
                const std::string& format);
/// The same picture as text in `format` ("svg", or "dot").
std::string renderSystem(const Model& model, const compiler::SystemMetrics& metrics,
                         const std::string& format);

}  // namespace mmt::api
