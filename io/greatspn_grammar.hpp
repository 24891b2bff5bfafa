#pragma once
/// \file
/// The expression language of GreatSPN's files: what its editor writes in PNPRO attributes
/// (`ExprLang.g4` of greatspn/SOURCES, JavaGUI/Editor) and in the `.def` file of a `.net`
/// net (DSPN-Tool's `newparser.lyy` and the classic `WN/TRANSL` grammar), read into the
/// expression syntax tree mmt's own languages share (grammar/expression_ast.hpp). The
/// rules live in greatspn_grammar_def.hpp and are instantiated once, in
/// greatspn_grammar.cpp; io/label.hpp turns the tree GreatSPN's names build into mmt's.
///
/// Read, lowest precedence first: `->` `<->`; `||` `|`; `&&` `&`; `==` `=` `!=` `/=` `<>`;
/// `< <= > >=`; `+ -`; `* /`; prefix `- ! ~`; `^`; and the primaries: numbers, names,
/// `True` `False`, `#P` and `#(P)` (a name in double quotes holds any character but a
/// quote), `(…)`, calls with square brackets (`Min[a, b]`,
/// `If[c, a, b]`) or parentheses (`min(a, b)`, classic GreatSPN's and mmt's), conditionals
/// `when c: a; … ever b;` (the condition may be bracketed, `ever :` may carry a colon), and
/// the measures `E{…}`, `P{…}`, `X{…}`, each optionally scaled by a number or name written
/// before it (`2 E{#P}`).

#include <boost/spirit/home/x3.hpp>

#include "grammar/diagnostics.hpp"
#include "grammar/error_handler.hpp"
#include "grammar/expression_ast.hpp"

namespace mmt::io::greatspn_parser {
struct label_class;
using label_type = boost::spirit::x3::rule<label_class, mmt::grammar::ast::Expr>;
BOOST_SPIRIT_DECLARE(label_type)
}  // namespace mmt::io::greatspn_parser

namespace mmt::io {

/// Parses the whole of `text` as one GreatSPN expression into `out`, its nodes in
/// `positions`. Syntax errors go to `diagnostics` (against `text`); returns false if there
/// was any. The tree keeps GreatSPN's names (`Min`, `If`, `when`, `E`): see
/// io/label.hpp for their meaning.
bool parseGreatSpnExpression(const grammar::SourceFile& text, grammar::Diagnostics& diagnostics,
                             grammar::SourcePositions& positions, grammar::ast::Expr& out);

}  // namespace mmt::io
