// The one translation unit that instantiates the raw GSPN grammar.
#include "grammar/gspn.hpp"

#include "grammar/config.hpp"
#include "grammar/gspn_def.hpp"

namespace mmt::grammar::gspn_parser {
BOOST_SPIRIT_INSTANTIATE(gspn_file_type, parser::iterator_type, parser::context_type)
}  // namespace mmt::grammar::gspn_parser

namespace mmt::grammar {

std::optional<ParsedGspn> parseGspn(const SourceFile& source, Diagnostics& diagnostics) {
  ParsedGspn parsed{gspn_ast::File{}, SourcePositions(source)};
  ParseHandler handler{diagnostics, parsed.positions, source.text.begin()};
  Iterator first = source.text.begin();
  auto const parser = x3::with<x3::error_handler_tag>(std::ref(handler))[gspn_parser::file];
  const bool ok =
      x3::phrase_parse(first, source.text.end(), parser, parser::skipper, parsed.file.statements);
  if (!ok && !diagnostics.hasErrors())
    handler.expected(first, source.text.end(), "a statement");
  if (!ok || diagnostics.hasErrors()) return std::nullopt;
  return parsed;
}

}  // namespace mmt::grammar
