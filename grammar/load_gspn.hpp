#pragma once
/// \file
/// From a parsed `.gspn` file to a `gspn::Net`: parameters are evaluated (with `-D`
/// overrides) and inlined, names are resolved, expressions are checked for where they may
/// appear (token counts in rates and arc multiplicities, measure atoms in measures).

#include <map>
#include <optional>
#include <string>

#include "grammar/diagnostics.hpp"
#include "grammar/gspn.hpp"
#include "gspn/net.hpp"

namespace mmt::grammar {

/// Parameter values given on the command line (`-D N=5`), by name.
using ParameterOverrides = std::map<std::string, double>;

/// Builds the net of `parsed`. Every semantic error (unknown or duplicate name, a token
/// count where only constants are allowed, an override of an undeclared parameter, ...) is
/// added to `diagnostics` with its position; returns nothing if there was any.
std::optional<gspn::Net> lowerGspn(const ParsedGspn& parsed, Diagnostics& diagnostics,
                                   const ParameterOverrides& overrides = {});

/// Parses and lowers `source` in one step.
std::optional<gspn::Net> loadGspn(const SourceFile& source, Diagnostics& diagnostics,
                                  const ParameterOverrides& overrides = {});

}  // namespace mmt::grammar
