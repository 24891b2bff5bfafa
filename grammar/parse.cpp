#include "grammar/parse.hpp"

#include "grammar/config.hpp"
#include "grammar/hdl.hpp"

namespace mmt::grammar {

std::optional<ParsedSystem> parseSystem(const SourceFile& source, Diagnostics& diagnostics) {
  ParsedSystem parsed{ast::System{}, SourcePositions(source)};
  ParseHandler handler{diagnostics, parsed.positions, source.text.begin()};
  Iterator first = source.text.begin();
  auto const parser = x3::with<x3::error_handler_tag>(std::ref(handler))[systemRule()];
  const bool ok = x3::phrase_parse(first, source.text.end(), parser, parser::skipper,
                                   parsed.system);
  if (!ok && !diagnostics.hasErrors())
    handler.expected(first, source.text.end(), "'system'");
  if (!ok || diagnostics.hasErrors()) return std::nullopt;
  return parsed;
}

}  // namespace mmt::grammar
