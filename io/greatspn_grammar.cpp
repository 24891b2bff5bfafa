// The one translation unit that instantiates GreatSPN's expression grammar.
#include "io/greatspn_grammar.hpp"

#include "grammar/config.hpp"
#include "io/greatspn_grammar_def.hpp"

namespace mmt::io::greatspn_parser {
BOOST_SPIRIT_INSTANTIATE(label_type, grammar::parser::iterator_type, grammar::parser::context_type)
}  // namespace mmt::io::greatspn_parser

namespace mmt::io {

bool parseGreatSpnExpression(const grammar::SourceFile& text, grammar::Diagnostics& diagnostics,
                             grammar::SourcePositions& positions, grammar::ast::Expr& out) {
  return grammar::parser::parseAll(greatspn_parser::label, text, diagnostics, positions, out,
                                   "an expression");
}

}  // namespace mmt::io
