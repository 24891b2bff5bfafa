// The one translation unit that instantiates the raw GSPN grammar.
#include "grammar/gspn.hpp"

#include "grammar/config.hpp"
#include "grammar/gspn_def.hpp"

namespace mmt::grammar::gspn_parser {
BOOST_SPIRIT_INSTANTIATE(gspn_file_type, parser::iterator_type, parser::context_type)
BOOST_SPIRIT_INSTANTIATE(gspn_label_type, parser::iterator_type, parser::context_type)
}  // namespace mmt::grammar::gspn_parser

namespace mmt::grammar {

std::optional<ParsedGspn> parseGspn(const SourceFile& source, Diagnostics& diagnostics) {
  ParsedGspn parsed{gspn_ast::File{}, SourcePositions(source)};
  if (!parser::parseAll(gspn_parser::file, source, diagnostics, parsed.positions,
                        parsed.file.statements, "a statement"))
    return std::nullopt;
  return parsed;
}

bool parseGspnExpression(const SourceFile& text, Diagnostics& diagnostics,
                         SourcePositions& positions, ast::Expr& out) {
  return parser::parseAll(gspn_parser::label, text, diagnostics, positions, out, "an expression");
}

}  // namespace mmt::grammar
