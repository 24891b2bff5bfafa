#pragma once
/// \file
/// Readers of the net formats of other tools, documented in docs/formats.md:
/// - PNML (ISO/IEC 15909-2) place/transition nets with the GSPN labels used by PIPE
///   (`rate`, `timed`, `infiniteServer`, `priority`, inhibitor arcs) and mmt's own
///   `<toolspecific tool="mmt">` labels (k servers, marking-dependent rates and arcs,
///   groups, measures);
/// - GreatSPN's `.net` / `.def` pair (the GreatSPN 2 editor's format);
/// - GreatSPN's editor projects (`.PNPRO`).
/// Each builds its net through io::NetReader, as mmt's own `.gspn` reader does, so their
/// nets obey the same rules and `-D` sets GreatSPN's marking and rate parameters and
/// PNPRO's constants and templates. Labels are read in their format's expression language
/// (io/label.hpp): mmt's (with PIPE's `#(P)`) in PNML, GreatSPN's in `.def` and PNPRO.
/// A feature mmt cannot represent (colours, capacities, deterministic transitions, ...)
/// is an error naming the element, never a silent misread.

#include <iosfwd>
#include <optional>

#include "coloured/unfold.hpp"
#include "grammar/diagnostics.hpp"
#include "grammar/parameters.hpp"
#include "gspn/net.hpp"

namespace mmt::io {

using grammar::Diagnostics;
using grammar::ParameterOverrides;
using grammar::SourceFile;

/// Reads a PNML document: a place/transition net, or a symmetric net, which is unfolded
/// within `unfolding`'s limits (coloured/unfold.hpp). Malformed XML and unsupported elements
/// are reported with their position in `diagnostics`; returns nothing if there was any
/// error.
std::optional<gspn::Net> loadPnml(const SourceFile& source, Diagnostics& diagnostics,
                                  const ParameterOverrides& overrides = {},
                                  const coloured::UnfoldLimits& unfolding = {});

/// Reads a GreatSPN net: `net` is the `.net` file, `definitions` the `.def` file beside it
/// (marking-dependent rates and measures; may be empty text when the file does not exist).
/// Errors are reported in the diagnostics of the file they are in.
std::optional<gspn::Net> loadGreatSpn(const SourceFile& net, Diagnostics& netDiagnostics,
                                      const SourceFile& definitions,
                                      Diagnostics& definitionDiagnostics,
                                      const ParameterOverrides& overrides = {});

/// Reads a GSPN page of a GreatSPN editor project (PNPRO, docs/formats.md): EXP, IMM,
/// DET and deterministic GEN transitions, constants and templates as parameters (`-D`
/// sets them), input, output and inhibitor arcs with multiplicity expressions. A coloured
/// page (a stochastic well-formed net) is unfolded within `unfolding`'s limits. The page
/// is the one named `page`, or the first when `page` is empty (with a warning naming the
/// others when there are several); a name that no page has is an error naming them.
std::optional<gspn::Net> loadPnpro(const SourceFile& source, Diagnostics& diagnostics,
                                   const ParameterOverrides& overrides = {},
                                   const coloured::UnfoldLimits& unfolding = {},
                                   const std::string& page = {});

/// True when `path` names a GreatSPN editor project: `.PNPRO` as GreatSPN's editor saves
/// it, `.pnpro` as other tools write it (any case).
bool isPnproFile(std::string_view path);

/// True when `path` names a raw net that loadNet reads: `.gspn`, `.pnml`, `.net`, or
/// `.pnpro` (any case).
bool isNetFile(std::string_view path);

/// Loads the raw net `source` by the extension of its path: mmt's `.gspn` text, PNML, or a
/// GreatSPN `.net` with `definitions`, its `.def` (empty text when there is none; unused for
/// the other formats), or a PNPRO project's `page` (loadPnpro; `page` must be empty for
/// the other formats). Throws std::invalid_argument when isNetFile(source.path) is false or
/// a page is named for a file that is not a PNPRO project.
std::optional<gspn::Net> loadNet(const SourceFile& source, Diagnostics& diagnostics,
                                 const SourceFile& definitions, Diagnostics& definitionDiagnostics,
                                 const ParameterOverrides& overrides = {},
                                 const coloured::UnfoldLimits& unfolding = {},
                                 const std::string& page = {});

// --- Writers (io/writers.cpp). Each reads back to the same net through the reader above.

/// Writes `net` in mmt's `.gspn` text format (docs/gspn.md), stable and diffable: places,
/// then transitions with their `in`, `out` and `inhibit` arcs, then measures. Rates and
/// weights are written with enough digits to round-trip exactly.
void writeText(const gspn::Net& net, std::ostream& out);

/// Writes `net` as PNML in PIPE's GSPN conventions (docs/formats.md): `rate`, `timed`,
/// `infiniteServer`, `priority`, "Default,N" markings and inscriptions, `<type
/// value="inhibitor"/>`, marking-dependent rates and arc weights in PIPE's functional
/// notation (`#(P)`), and a `<toolspecific tool="mmt">` label for k servers, groups and
/// measures. Reads back to the same net.
void writePnml(const gspn::Net& net, std::ostream& out);

/// Writes `net` as a GreatSPN pair: the `.net` file to `netOut`, the `.def` file (marking-
/// dependent rates, measures) to `defOut`. Reads back to the same net. Throws
/// std::invalid_argument naming the element when GreatSPN cannot express it: a declared
/// non-exponential delay, or a name containing blanks. A marking-dependent arc multiplicity
/// is written after the arc's label position, as GreatSPN's editor does.
void writeGreatSpn(const gspn::Net& net, std::ostream& netOut, std::ostream& defOut);

/// Writes `net` as a GreatSPN editor project (PNPRO) with one GSPN page: EXP transitions
/// (`delay` = the rate, `nservers` 1, k or Infinite), IMM transitions (weight, priority),
/// INPUT, OUTPUT and INHIBITOR arcs (`mult`, an expression where it depends on the
/// marking). Reads back to the same net but for groups and measures, which PNPRO pages do
/// not carry. Throws std::invalid_argument naming the transition that declares a
/// non-exponential delay.
void writePnpro(const gspn::Net& net, std::ostream& out);

}  // namespace mmt::io
