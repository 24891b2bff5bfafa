#pragma once
/// \file
/// Parsing the raw GSPN text format (`.gspn`, docs/gspn.md) into its AST. The rules live in
/// gspn_def.hpp and are instantiated once, in gspn.cpp.

#include <boost/spirit/home/x3.hpp>
#include <optional>

#include "grammar/diagnostics.hpp"
#include "grammar/error_handler.hpp"
#include "grammar/gspn_ast.hpp"

namespace mmt::grammar::gspn_parser {
struct file_class;
using gspn_file_type = boost::spirit::x3::rule<file_class, std::vector<gspn_ast::Statement>>;
struct label_class;
using gspn_label_type = boost::spirit::x3::rule<label_class, mmt::grammar::ast::Expr>;
BOOST_SPIRIT_DECLARE(gspn_file_type, gspn_label_type)
}  // namespace mmt::grammar::gspn_parser

namespace mmt::grammar {

/// A parsed `.gspn` file: the AST and where each node came from. Refers to the SourceFile
/// it was parsed from, which must outlive it.
struct ParsedGspn {
  gspn_ast::File file;
  SourcePositions positions;
};

/// Parses `source`. Every syntax error found is added to `diagnostics` (the parser
/// recovers at the next `;`); returns nothing if there was any.
std::optional<ParsedGspn> parseGspn(const SourceFile& source, Diagnostics& diagnostics);

/// Parses the whole of `text` as one expression of the `.gspn` language (a value found in
/// another format's file, such as a PNML rate), into `out` with its nodes in `positions`.
/// Syntax errors go to `diagnostics` (against `text`); returns false if there was any.
bool parseGspnExpression(const SourceFile& text, Diagnostics& diagnostics,
                         SourcePositions& positions, ast::Expr& out);

}  // namespace mmt::grammar
