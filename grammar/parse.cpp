#include "grammar/parse.hpp"

#include "grammar/config.hpp"
#include "grammar/hdl.hpp"

namespace mmt::grammar {

std::optional<ParsedSystem> parseSystem(const SourceFile& source, Diagnostics& diagnostics) {
  ParsedSystem parsed{ast::System{}, SourcePositions(source)};
  if (!parser::parseAll(systemRule(), source, diagnostics, parsed.positions, parsed.system,
                        "'system'"))
    return std::nullopt;
  return parsed;
}

}  // namespace mmt::grammar
