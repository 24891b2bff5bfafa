#pragma once
/// \file
/// Readers of the net formats of other tools, documented in docs/formats.md:
/// - PNML (ISO/IEC 15909-2) place/transition nets with the GSPN labels used by PIPE
///   (`rate`, `timed`, `infiniteServer`, `priority`, inhibitor arcs) and mmt's own
///   `<toolspecific tool="mmt">` labels (k servers, marking-dependent rates and arcs,
///   groups, measures);
/// - GreatSPN's `.net` / `.def` pair (the GreatSPN 2 editor's format);
/// - GreatSPN's editor projects (`.PNPRO`).
/// Both translate into the `.gspn` text format and load it (grammar/translation.hpp), so
/// their nets obey the same rules and `-D` sets GreatSPN's marking and rate parameters.
/// A feature mmt cannot represent (colours, capacities, deterministic transitions, ...)
/// is an error naming the element, never a silent misread.

#include <optional>

#include "grammar/diagnostics.hpp"
#include "grammar/load_gspn.hpp"
#include "gspn/net.hpp"

namespace mmt::grammar {

/// Reads a PNML document. Malformed XML and unsupported elements are reported with their
/// position in `diagnostics`; returns nothing if there was any error.
std::optional<gspn::Net> loadPnml(const SourceFile& source, Diagnostics& diagnostics,
                                  const ParameterOverrides& overrides = {});

/// Reads a GreatSPN net: `net` is the `.net` file, `definitions` the `.def` file beside it
/// (marking-dependent rates and measures; may be empty text when the file does not exist).
/// Errors are reported in the diagnostics of the file they are in.
std::optional<gspn::Net> loadGreatSpn(const SourceFile& net, Diagnostics& netDiagnostics,
                                      const SourceFile& definitions,
                                      Diagnostics& definitionDiagnostics,
                                      const ParameterOverrides& overrides = {});

/// Reads the GSPN page of a GreatSPN editor project (PNPRO, docs/formats.md): EXP, IMM,
/// DET and deterministic GEN transitions, constants and templates as parameters (`-D`
/// sets them), input, output and inhibitor arcs with multiplicity expressions. A coloured
/// page, or more than one GSPN page, is an error naming them.
std::optional<gspn::Net> loadPnpro(const SourceFile& source, Diagnostics& diagnostics,
                                   const ParameterOverrides& overrides = {});

/// True when `path` names a raw net that loadNet reads: `.gspn`, `.pnml`, `.net`, or
/// `.pnpro` (any case).
bool isNetFile(std::string_view path);

/// Loads the raw net `source` by the extension of its path: mmt's `.gspn` text, PNML, or a
/// GreatSPN `.net` with `definitions`, its `.def` (empty text when there is none; unused for
/// the other formats). Throws std::invalid_argument when isNetFile(source.path) is false.
std::optional<gspn::Net> loadNet(const SourceFile& source, Diagnostics& diagnostics,
                                 const SourceFile& definitions,
                                 Diagnostics& definitionDiagnostics,
                                 const ParameterOverrides& overrides = {});

}  // namespace mmt::grammar
