#pragma once
/// \file
/// Parsing a system description into its AST.

#include <optional>

#include "grammar/ast.hpp"
#include "grammar/diagnostics.hpp"
#include "grammar/error_handler.hpp"

namespace mmt::grammar {

/// A parsed description: the AST and where each node came from. Refers to the SourceFile
/// it was parsed from, which must outlive it.
struct ParsedSystem {
  ast::System system;
  SourcePositions positions;
};

/// Parses `source`. Every syntax error found is added to `diagnostics` (the parser
/// recovers at statement boundaries); returns nothing if there was any.
std::optional<ParsedSystem> parseSystem(const SourceFile& source, Diagnostics& diagnostics);

}  // namespace mmt::grammar
