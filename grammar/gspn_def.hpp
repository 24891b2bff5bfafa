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
using parser::recover_at_top_level_statement_end;
using parser::report_and_fail;
using x3::alnum;
using x3::alpha;
using x3::char_;
using x3::lexeme;
using x3::lit;

/// Characters that may continue a plain name: compiled nets use `A.ready[D]`.
const auto name_char = alnum | char_("_.[]");
inline auto keyword(const char* word) { return lexeme[lit(word) >> !name_char]; }

const auto reserved = keyword("net") | keyword("param") | keyword("place") | keyword("timed") |
                      keyword("immediate") | keyword("measure") | keyword("rate") |
                      keyword("delay") | keyword("servers") | keyword("weight") |
                      keyword("priority") | keyword("guard") | keyword("in") | keyword("out") |
                      keyword("inhibit");

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

const x3::rule<name_class, std::string> name = "a name";
const x3::rule<identifier_class, ast::Identifier> identifier = "a name";
#include "grammar/expression_rules.hpp"

const x3::rule<arc_class, ast::ArcSpec> arc = "an arc 'P' or 'P * multiplicity'";
const x3::rule<arcs_class, std::vector<ast::ArcSpec>> arcs = "a list of arcs";
const x3::rule<group_class, std::string> group = "a group name";
const x3::rule<net_name_class, ast::NetName> net_name = "'net NAME;'";
const x3::rule<param_class, ast::Param> param = "'param NAME = value;'";
const x3::rule<place_class, ast::PlaceDecl> place = "a place";
const x3::rule<timed_class, ast::Timed> timed = "a timed transition";
const x3::rule<immediate_class, ast::Immediate> immediate = "an immediate transition";
const x3::rule<measure_class, ast::MeasureDecl> measure = "a measure";
const x3::rule<statement_choice_class, ast::Statement> statement_choice =
    "'net', 'param', 'place', 'timed', 'immediate' or 'measure'";
const x3::rule<statement_class, ast::Statement> statement = "a statement";
const x3::rule<end_of_file_class> end_of_file = "end of file";
const gspn_file_type file = "a GSPN";
const gspn_label_type label = "an expression";
const x3::rule<label_end_class> label_end = "the end of the expression";

const auto plain_name = lexeme[(alpha | char_('_')) >> *name_char];
const auto quoted_name = lexeme['"' >> +(char_ - '"' - x3::eol) >> '"'];
const auto name_def = quoted_name | (!reserved >> plain_name);
const auto identifier_def = name;
const auto arc_def = identifier >> -('*' > primary);
const auto arcs_def = arc % ',';
const auto group_def = lit('@') > name;

const auto net_name_def = keyword("net") > identifier > ';';
const auto param_def = keyword("param") > identifier > '=' > expr > ';';
const auto place_def = keyword("place") > identifier > -('=' > expr) > -group > ';';
const auto timing = x3::rule<struct timing_class, std::string>{"'rate' or 'delay'"} =
    lexeme[(x3::string("rate") | x3::string("delay")) >> !name_char];
const auto timed_def = keyword("timed") > identifier > timing > expr >
                       -(keyword("servers") > expr) > -(keyword("guard") > expr) > -group >
                       -(keyword("in") > arcs) > -(keyword("out") > arcs) >
                       -(keyword("inhibit") > arcs) > ';';
const auto immediate_def = keyword("immediate") > identifier > -(keyword("weight") > expr) >
                           -(keyword("priority") > expr) > -(keyword("guard") > expr) > -group >
                           -(keyword("in") > arcs) > -(keyword("out") > arcs) >
                           -(keyword("inhibit") > arcs) > ';';
const auto measure_def = keyword("measure") > identifier > '=' > expr > ';';
const auto statement_choice_def = net_name | param | place | timed | immediate | measure;
const auto statement_def = x3::expect[statement_choice];
const auto end_of_file_def = x3::eoi;
const auto file_def = *(!x3::eoi >> statement) > end_of_file;
const auto label_end_def = x3::eoi;
const auto label_def = expr > label_end;

BOOST_SPIRIT_DEFINE(name, identifier, arc, arcs, group, net_name, param, place, timed, immediate,
                    measure, statement_choice, statement, end_of_file, file, label_end, label)

}  // namespace mmt::grammar::gspn_parser
