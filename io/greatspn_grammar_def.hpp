#pragma once
/// \file
/// The rules of GreatSPN's expression language (greatspn_grammar.hpp says what they read):
/// mmt's precedence ladder (grammar/expression_ladder.hpp) with GreatSPN's operands (calls
/// `Min[a, b]`, `when … ever …`, the measures `E{…}`, `P{…}`, `X{…}`) and an implication
/// level below it. Operators GreatSPN spells in several ways are read as mmt's one
/// spelling (`=` as `==`, `/=` and `<>` as `!=`, `&` as `&&`, `|` as `||`, `~` as `!`).

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/utility/annotate_on_success.hpp>

#include "grammar/error_handler.hpp"
#include "grammar/exact_real.hpp"
#include "grammar/expression_adapted.hpp"
#include "io/greatspn_grammar.hpp"

namespace mmt::io::greatspn_parser {

namespace x3 = boost::spirit::x3;
namespace ast = mmt::grammar::ast;
using grammar::exact_unsigned_real;
using grammar::parser::report_and_fail;
using x3::alnum;
using x3::alpha;
using x3::char_;
using x3::lexeme;
using x3::lit;

const auto name_char = alnum | char_('_');
inline auto keyword(const char* word) { return lexeme[lit(word) >> !name_char]; }
/// Reads `text` and gives mmt's spelling `as`.
inline auto spelled(const char* text, const char* as) {
  return lit(text) >> x3::attr(std::string(as));
}

struct name_class;
struct identifier_class : x3::annotate_on_success {};
struct function_name_class : x3::annotate_on_success {};
struct call_class : x3::annotate_on_success {};
struct when_class : x3::annotate_on_success {};
struct measure_class : x3::annotate_on_success {};
struct scaled_measure_class : x3::annotate_on_success {};
struct primary_class;
struct expr_class : x3::annotate_on_success {};
struct end_class;
struct label_class : report_and_fail {};

const x3::rule<name_class, std::string> name = "a name";
const x3::rule<identifier_class, ast::Identifier> identifier = "a name";
const x3::rule<function_name_class, ast::Identifier> function_name = "a function";
const x3::rule<call_class, ast::Call> call = "a call such as 'Min[a, b]'";
const x3::rule<when_class, ast::Call> when = "'when condition: value; ever value;'";
const x3::rule<measure_class, ast::Call> measure = "a measure 'E{…}', 'P{…}' or 'X{…}'";
const x3::rule<scaled_measure_class, ast::Chain> scaled_measure = "a scaled measure";
const x3::rule<primary_class, ast::Expr> primary =
    "an expression (number, name, '#P', call or '(')";
const x3::rule<expr_class, ast::Chain> expr = "an expression";
const x3::rule<end_class> end = "the end of the expression";
const label_type label = "an expression";

const auto unary_operator = char_("-!") | (lit('~') >> x3::attr('!'));
const auto multiplicative_operator =
    x3::string("*") | (lit('/') >> !lit('=') >> x3::attr(std::string("/")));
const auto additive_operator =
    x3::string("+") | (lit('-') >> !lit('>') >> x3::attr(std::string("-")));
const auto relational_operator = x3::string("<=") | x3::string(">=") |
                                 (lit('<') >> !char_("->") >> x3::attr(std::string("<"))) |
                                 x3::string(">");
const auto equality_operator = x3::string("==") | x3::string("!=") | spelled("/=", "!=") |
                               spelled("<>", "!=") | spelled("=", "==");
const auto conjunction_operator = x3::string("&&") | spelled("&", "&&");
const auto disjunction_operator = x3::string("||") | spelled("|", "||");

#include "grammar/expression_ladder.hpp"

// A name in double quotes holds what GreatSPN's names cannot (mmt's `W[1].idle`), as mmt's
// writers quote it.
const auto quoted_name = lexeme['"' >> +(char_ - '"' - x3::eol) >> '"'];
const auto name_def =
    quoted_name | (lexeme[(alpha | char_('_')) >> *name_char] - keyword("when") - keyword("ever"));
const auto identifier_def = name;
const auto function_name_def = name;
const auto call_def =
    ((function_name >> '[') > (expr % ',') > ']') | ((function_name >> '(') > (expr % ',') > ')');

/// An expression where a rule needs an ast::Expr (a container's element).
const auto operand = x3::rule<struct operand_class, ast::Expr>{"an expression"} = expr;
// `when c1: v1; when c2: v2; ever v;` is read as the call when(c1, v1, c2, v2, v).
const auto when_condition = x3::rule<struct when_condition_class, ast::Expr>{"a condition"} =
    ('[' > expr > ']') | expr;
const auto when_keyword = x3::rule<struct when_keyword_class, ast::Identifier>{"'when'"} =
    lexeme[x3::string("when") >> !name_char];
const auto when_arguments =
    x3::rule<struct when_arguments_class, std::vector<ast::Expr>>{
        "'condition: value;'"} = when_condition > ':' > operand > ';' >
                                 *(keyword("when") > when_condition > ':' > operand > ';') >
                                 keyword("ever") > -lit(':') > operand > -lit(';');
const auto when_def = when_keyword > when_arguments;

// `E{…}`, `P{…}`, `X{…}`: the letter touches its brace, as GreatSPN's lexer reads them.
const auto measure_name = x3::rule<struct measure_name_class, ast::Identifier>{"a measure"} =
    lexeme[(x3::string("E") | x3::string("P") | x3::string("X")) >> &lit('{')];
const auto measure_def = (measure_name >> '{') > x3::repeat(1)[operand] > '}';
const auto times_measure = x3::rule<struct times_measure_class, ast::Operation>{"a measure"} =
    x3::attr(std::string("*")) >> measure;
const auto scale = x3::rule<struct scale_class, ast::Expr>{"a number"} = number | identifier;
const auto scaled_measure_def = scale >> x3::repeat(1)[times_measure];

const auto primary_def =
    scaled_measure | measure | when | number | token_count | call | identifier | ('(' > expr > ')');
// GreatSPN's lowest level, below mmt's ladder: implication and equivalence.
const auto expr_def = disjunction >> *step(x3::string("<->") | x3::string("->"), disjunction);
const auto end_def = x3::eoi;
const auto label_def = expr > end;

BOOST_SPIRIT_DEFINE(name, identifier, function_name, call, when, measure, scaled_measure, primary,
                    expr, end, label)

}  // namespace mmt::io::greatspn_parser
