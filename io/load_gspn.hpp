#pragma once
/// \file
/// mmt's own net format (`.gspn`, docs/gspn.md) read into a `gspn::Net` through the
/// builder every format shares (io/net_reader.hpp): parameters are evaluated (with `-D`
/// overrides) and inlined, names are resolved, expressions are checked for where they may
/// appear (token counts in rates and arc multiplicities, measure atoms in measures).

#include <optional>

#include "grammar/diagnostics.hpp"
#include "grammar/gspn.hpp"
#include "grammar/parameters.hpp"
#include "gspn/net.hpp"

namespace mmt::io {

using grammar::ParameterOverrides;

/// Builds the net of `parsed`. Every semantic error (unknown or duplicate name, a token
/// count where only constants are allowed, an override of an undeclared parameter, ...) is
/// added to `diagnostics` with its position; returns nothing if there was any.
std::optional<gspn::Net> lowerGspn(const grammar::ParsedGspn& parsed,
                                   grammar::Diagnostics& diagnostics,
                                   const ParameterOverrides& overrides = {});

/// Parses and lowers `source` in one step.
std::optional<gspn::Net> loadGspn(const grammar::SourceFile& source,
                                  grammar::Diagnostics& diagnostics,
                                  const ParameterOverrides& overrides = {});

}  // namespace mmt::io
