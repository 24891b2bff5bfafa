#pragma once
/// \file
/// The rules of the raw GSPN text format (docs/gspn.md). Same conventions as hdl_def.hpp:
/// statements are `expect[...]` rules that recover at the next `;`, so one parse reports
/// every syntax error; rule names are what users read in "expected ..." messages.

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/utility/annotate_on_success.hpp>

#include "grammar/error_handler.hpp"
#include "grammar/exact_real.hpp"
#include "grammar/gspn.hpp"
#include "grammar/gspn_adapted.hpp"

namespace mmt::grammar::gspn_parser {

namespace x3 = boost::spirit::x3;
namespace ast = mmt::grammar::gspn_ast;
using x3::alnum;
using x3::alpha;
using x3::char_;
using x3::lexeme;
using x3::lit;
using parser::recover_at_top_level_statement_end;
using parser::report_and_fail;

/// Characters that may continue a plain name: compiled nets use `A.ready[D]`.
auto const name_char = alnum | char_("_.[]");
inline auto keyword(char const* word) { return lexeme[lit(word) >> !name_char]; }

auto const reserved = keyword("net") | keyword("param") | keyword("place") |
                      keyword("timed") | keyword("immediate") | keyword("measure") |
                      keyword("rate") | keyword("delay") | keyword("servers") |
                      keyword("weight") | keyword("priority") | keyword("guard") | keyword("in") |
                      keyword("out") | keyword("inhibit");

struct name_class;
struct identifier_class : x3::annotate_on_success {};
struct arc_class : x3::annotate_on_success {};
struct arcs_class;
struct group_class;
struct net_name_class : x3::annotate_on_success {};
struct param_class : x3::annotate_on_success {};
struct place_class : x3::annotate_on_success {};
struct timed_class : x3::annotate_on_success {};
struct immediate_class : x3::annotate_on_success {};
struct measure_class : x3::annotate_on_success {};
struct statement_choice_class;
struct statement_class : recover_at_top_level_statement_end {};
struct file_class : report_and_fail {};
struct label_class : report_and_fail {};
struct label_end_class;
struct end_of_file_class;

x3::rule<name_class, std::string> const name = "a name";
x3::rule<identifier_class, ast::Identifier> const identifier = "a name";
#include "grammar/expression_rules.hpp"

x3::rule<arc_class, ast::ArcSpec> const arc = "an arc 'P' or 'P * multiplicity'";
x3::rule<arcs_class, std::vector<ast::ArcSpec>> const arcs = "a list of arcs";
x3::rule<group_class, std::string> const group = "a group name";
x3::rule<net_name_class, ast::NetName> const net_name = "'net NAME;'";
x3::rule<param_class, ast::Param> const param = "'param NAME = value;'";
x3::rule<place_class, ast::PlaceDecl> const place = "a place";
x3::rule<timed_class, ast::Timed> const timed = "a timed transition";
x3::rule<immediate_class, ast::Immediate> const immediate = "an immediate transition";
x3::rule<measure_class, ast::MeasureDecl> const measure = "a measure";
x3::rule<statement_choice_class, ast::Statement> const statement_choice =
    "'net', 'param', 'place', 'timed', 'immediate' or 'measure'";
x3::rule<statement_class, ast::Statement> const statement = "a statement";
x3::rule<end_of_file_class> const end_of_file = "end of file";
gspn_file_type const file = "a GSPN";
gspn_label_type const label = "an expression";
x3::rule<label_end_class> const label_end = "the end of the expression";

auto const plain_name = lexeme[(alpha | char_('_')) >> *name_char];
auto const quoted_name = lexeme['"' >> +(char_ - '"' - x3::eol) >> '"'];
auto const name_def = quoted_name | (!reserved >> plain_name);
auto const identifier_def = name;
auto const arc_def = identifier >> -('*' > primary);
auto const arcs_def = arc % ',';
auto const group_def = lit('@') > name;

auto const net_name_def = keyword("net") > identifier > ';';
auto const param_def = keyword("param") > identifier > '=' > expr > ';';
auto const place_def = keyword("place") > identifier > -('=' > expr) > -group > ';';
auto const timing = x3::rule<struct timing_class, std::string>{"'rate' or 'delay'"} =
    lexeme[(x3::string("rate") | x3::string("delay")) >> !name_char];
auto const timed_def = keyword("timed") > identifier > timing > expr >
                       -(keyword("servers") > expr) > -(keyword("guard") > expr) > -group >
                       -(keyword("in") > arcs) >
                       -(keyword("out") > arcs) > -(keyword("inhibit") > arcs) > ';';
auto const immediate_def = keyword("immediate") > identifier > -(keyword("weight") > expr) >
                           -(keyword("priority") > expr) > -(keyword("guard") > expr) > -group >
                           -(keyword("in") > arcs) > -(keyword("out") > arcs) >
                           -(keyword("inhibit") > arcs) > ';';
auto const measure_def = keyword("measure") > identifier > '=' > expr > ';';
auto const statement_choice_def = net_name | param | place | timed | immediate | measure;
auto const statement_def = x3::expect[statement_choice];
auto const end_of_file_def = x3::eoi;
auto const file_def = *(!x3::eoi >> statement) > end_of_file;
auto const label_end_def = x3::eoi;
auto const label_def = expr > label_end;

BOOST_SPIRIT_DEFINE(name, identifier, arc, arcs, group, net_name, param, place, timed, immediate, measure,
                    statement_choice, statement, end_of_file, file, label_end, label)

}  // namespace mmt::grammar::gspn_parser
