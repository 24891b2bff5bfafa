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
                      keyword("weight") | keyword("priority") | keyword("in") |
                      keyword("out") | keyword("inhibit");

struct name_class;
struct identifier_class : x3::annotate_on_success {};
struct number_class : x3::annotate_on_success {};
struct token_count_class : x3::annotate_on_success {};
struct call_class : x3::annotate_on_success {};
struct unary_class : x3::annotate_on_success {};
struct chain_class : x3::annotate_on_success {};
struct primary_class;
struct factor_class;
struct power_class : x3::annotate_on_success {};
struct multiplicative_class : x3::annotate_on_success {};
struct additive_class : x3::annotate_on_success {};
struct relational_class : x3::annotate_on_success {};
struct equality_class : x3::annotate_on_success {};
struct conjunction_class : x3::annotate_on_success {};
struct expr_class : x3::annotate_on_success {};
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
struct end_of_file_class;

x3::rule<name_class, std::string> const name = "a name";
x3::rule<identifier_class, ast::Identifier> const identifier = "a name";
x3::rule<number_class, ast::Number> const number = "a number";
x3::rule<token_count_class, ast::TokenCount> const token_count = "a token count '#P'";
x3::rule<call_class, ast::Call> const call = "a call such as 'min(a, b)'";
x3::rule<unary_class, ast::Unary> const unary = "a negation";
x3::rule<primary_class, ast::Expr> const primary =
    "an expression (number, name, '#P', call or '(')";
x3::rule<factor_class, ast::Expr> const factor = "an expression";
x3::rule<power_class, ast::Chain> const power = "an expression";
x3::rule<multiplicative_class, ast::Chain> const multiplicative = "an expression";
x3::rule<additive_class, ast::Chain> const additive = "an expression";
x3::rule<relational_class, ast::Chain> const relational = "an expression";
x3::rule<equality_class, ast::Chain> const equality = "an expression";
x3::rule<conjunction_class, ast::Chain> const conjunction = "an expression";
x3::rule<expr_class, ast::Chain> const expr = "an expression";
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

auto const plain_name = lexeme[(alpha | char_('_')) >> *name_char];
auto const quoted_name = lexeme['"' >> +(char_ - '"' - x3::eol) >> '"'];
auto const name_def = quoted_name | (!reserved >> plain_name);
auto const identifier_def = name;
auto const number_def = exact_unsigned_real;
auto const token_count_def = lit('#') > identifier;
auto const call_def = (identifier >> '(') > (expr % ',') > ')';
auto const primary_def = number | token_count | call | identifier | ('(' > expr > ')');
auto const unary_def = char_("-!") > factor;
auto const factor_def = unary | power;
/// One `operator operand` step of a chain. A rule of its own so that X3 builds an
/// Operation instead of pushing the operator's characters into the chain.
template <typename Operators, typename Operand>
auto step(Operators const& operators, Operand const& operand) {
  return x3::rule<struct step_class, ast::Operation>{"an operator"} = operators > operand;
}
auto const power_def = primary >> *step(x3::string("^"), factor);
auto const multiplicative_def = factor >> *step(x3::string("*") | x3::string("/"), factor);
auto const additive_def =
    multiplicative >> *step(x3::string("+") | x3::string("-"), multiplicative);
auto const relational_def =
    additive >> *step(x3::string("<=") | x3::string(">=") | x3::string("<") | x3::string(">"),
                      additive);
auto const equality_def = relational >> *step(x3::string("==") | x3::string("!="), relational);
auto const conjunction_def = equality >> *step(x3::string("&&"), equality);
auto const expr_def = conjunction >> *step(x3::string("||"), conjunction);

auto const arc_def = identifier >> -('*' > primary);
auto const arcs_def = arc % ',';
auto const group_def = lit('@') > name;

auto const net_name_def = keyword("net") > identifier > ';';
auto const param_def = keyword("param") > identifier > '=' > expr > ';';
auto const place_def = keyword("place") > identifier > -('=' > expr) > -group > ';';
auto const timing = x3::rule<struct timing_class, std::string>{"'rate' or 'delay'"} =
    lexeme[(x3::string("rate") | x3::string("delay")) >> !name_char];
auto const timed_def = keyword("timed") > identifier > timing > expr >
                       -(keyword("servers") > expr) > -group > -(keyword("in") > arcs) >
                       -(keyword("out") > arcs) > -(keyword("inhibit") > arcs) > ';';
auto const immediate_def = keyword("immediate") > identifier > -(keyword("weight") > expr) >
                           -(keyword("priority") > expr) > -group >
                           -(keyword("in") > arcs) > -(keyword("out") > arcs) >
                           -(keyword("inhibit") > arcs) > ';';
auto const measure_def = keyword("measure") > identifier > '=' > expr > ';';
auto const statement_choice_def = net_name | param | place | timed | immediate | measure;
auto const statement_def = x3::expect[statement_choice];
auto const end_of_file_def = x3::eoi;
auto const file_def = *(!x3::eoi >> statement) > end_of_file;

BOOST_SPIRIT_DEFINE(name, identifier, number, token_count, call, unary, primary, factor, power,
                    multiplicative, additive, relational, equality, conjunction, expr, arc,
                    arcs, group, net_name, param, place, timed, immediate, measure,
                    statement_choice, statement, end_of_file, file)

}  // namespace mmt::grammar::gspn_parser
