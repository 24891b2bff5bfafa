#pragma once
/// \file
/// The rules of GreatSPN's expression language (greatspn_grammar.hpp says what they read).
/// Same conventions as grammar/expression_rules.hpp: each precedence level is a chain of
/// operands, every node is position-tagged, and rule names are what users read in
/// "expected …" messages. Operators GreatSPN spells in several ways are read as mmt's one
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

auto const name_char = alnum | char_('_');
inline auto keyword(char const* word) { return lexeme[lit(word) >> !name_char]; }
/// Reads `text` and gives mmt's spelling `as`.
inline auto spelled(char const* text, char const* as) {
  return lit(text) >> x3::attr(std::string(as));
}

struct name_class;
struct identifier_class : x3::annotate_on_success {};
struct function_name_class : x3::annotate_on_success {};
struct number_class : x3::annotate_on_success {};
struct token_count_class : x3::annotate_on_success {};
struct token_place_name_class;
struct token_place_class : x3::annotate_on_success {};
struct call_class : x3::annotate_on_success {};
struct when_class : x3::annotate_on_success {};
struct measure_class : x3::annotate_on_success {};
struct scaled_measure_class : x3::annotate_on_success {};
struct unary_class : x3::annotate_on_success {};
struct primary_class;
struct factor_class;
struct power_class : x3::annotate_on_success {};
struct multiplicative_class : x3::annotate_on_success {};
struct additive_class : x3::annotate_on_success {};
struct relational_class : x3::annotate_on_success {};
struct equality_class : x3::annotate_on_success {};
struct conjunction_class : x3::annotate_on_success {};
struct disjunction_class : x3::annotate_on_success {};
struct expr_class : x3::annotate_on_success {};
struct end_class;
struct label_class : report_and_fail {};

x3::rule<name_class, std::string> const name = "a name";
x3::rule<identifier_class, ast::Identifier> const identifier = "a name";
x3::rule<function_name_class, ast::Identifier> const function_name = "a function";
x3::rule<number_class, ast::Number> const number = "a number";
x3::rule<token_count_class, ast::TokenCount> const token_count = "a token count '#P'";
x3::rule<token_place_name_class, std::string> const token_place_name = "a place name";
x3::rule<token_place_class, ast::Identifier> const token_place = "a place name";
x3::rule<call_class, ast::Call> const call = "a call such as 'Min[a, b]'";
x3::rule<when_class, ast::Call> const when = "'when condition: value; ever value;'";
x3::rule<measure_class, ast::Call> const measure = "a measure 'E{…}', 'P{…}' or 'X{…}'";
x3::rule<scaled_measure_class, ast::Chain> const scaled_measure = "a scaled measure";
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
x3::rule<disjunction_class, ast::Chain> const disjunction = "an expression";
x3::rule<expr_class, ast::Chain> const expr = "an expression";
x3::rule<end_class> const end = "the end of the expression";
label_type const label = "an expression";

// A name in double quotes holds what GreatSPN's names cannot (mmt's `W[1].idle`), as mmt's
// writers quote it.
auto const quoted_name = lexeme['"' >> +(char_ - '"' - x3::eol) >> '"'];
auto const name_def = quoted_name | (lexeme[(alpha | char_('_')) >> *name_char] -
                                     keyword("when") - keyword("ever"));
auto const identifier_def = name;
auto const function_name_def = name;
auto const number_def = exact_unsigned_real;
auto const token_place_name_def = name | ('(' > name > ')');
auto const token_place_def = token_place_name;
auto const token_count_def = lit('#') > token_place;
auto const call_def = (function_name >> '[' > (expr % ',') > ']') |
                      (function_name >> '(' > (expr % ',') > ')');

/// An expression where a rule needs an ast::Expr (a container's element).
auto const operand = x3::rule<struct operand_class, ast::Expr>{"an expression"} = expr;
// `when c1: v1; when c2: v2; ever v;` is read as the call when(c1, v1, c2, v2, v).
auto const when_condition =
    x3::rule<struct when_condition_class, ast::Expr>{"a condition"} = ('[' > expr > ']') | expr;
auto const when_keyword = x3::rule<struct when_keyword_class, ast::Identifier>{"'when'"} =
    lexeme[x3::string("when") >> !name_char];
auto const when_arguments =
    x3::rule<struct when_arguments_class, std::vector<ast::Expr>>{"'condition: value;'"} =
        when_condition > ':' > operand > ';' >
        *(keyword("when") > when_condition > ':' > operand > ';') > keyword("ever") >
        -lit(':') > operand > -lit(';');
auto const when_def = when_keyword > when_arguments;

// `E{…}`, `P{…}`, `X{…}`: the letter touches its brace, as GreatSPN's lexer reads them.
auto const measure_name = x3::rule<struct measure_name_class, ast::Identifier>{"a measure"} =
    lexeme[(x3::string("E") | x3::string("P") | x3::string("X")) >> &lit('{')];
auto const measure_def = measure_name >> '{' > x3::repeat(1)[operand] > '}';
auto const times_measure = x3::rule<struct times_measure_class, ast::Operation>{"a measure"} =
    x3::attr(std::string("*")) >> measure;
auto const scale = x3::rule<struct scale_class, ast::Expr>{"a number"} = number | identifier;
auto const scaled_measure_def = scale >> x3::repeat(1)[times_measure];

auto const primary_def = scaled_measure | measure | when | number | token_count | call |
                         identifier | ('(' > expr > ')');
auto const unary_def = (char_("-!") | (lit('~') >> x3::attr('!'))) > factor;
auto const factor_def = unary | power;
/// One `operator operand` step of a chain (as in grammar/expression_rules.hpp).
template <typename Operators, typename Operand>
auto step(Operators const& operators, Operand const& operand) {
  return x3::rule<struct step_class, ast::Operation>{"an operator"} = operators > operand;
}
auto const power_def = primary >> *step(x3::string("^"), factor);
auto const multiplicative_def =
    factor >> *step(x3::string("*") | (lit('/') >> !lit('=') >> x3::attr(std::string("/"))),
                    factor);
auto const additive_def =
    multiplicative >>
    *step(x3::string("+") | (lit('-') >> !lit('>') >> x3::attr(std::string("-"))),
          multiplicative);
auto const relational_def =
    additive >> *step(x3::string("<=") | x3::string(">=") |
                          (lit('<') >> !char_("->") >> x3::attr(std::string("<"))) |
                          x3::string(">"),
                      additive);
auto const equality_def =
    relational >> *step(x3::string("==") | x3::string("!=") | spelled("/=", "!=") |
                            spelled("<>", "!=") | spelled("=", "=="),
                        relational);
auto const conjunction_def =
    equality >> *step(x3::string("&&") | spelled("&", "&&"), equality);
auto const disjunction_def =
    conjunction >> *step(x3::string("||") | spelled("|", "||"), conjunction);
auto const expr_def = disjunction >> *step(x3::string("<->") | x3::string("->"), disjunction);
auto const end_def = x3::eoi;
auto const label_def = expr > end;

BOOST_SPIRIT_DEFINE(name, identifier, function_name, number, token_place_name, token_place,
                    token_count, call, when, measure,
                    scaled_measure, unary, primary, factor, power, multiplicative, additive,
                    relational, equality, conjunction, disjunction, expr, end, label)

}  // namespace mmt::io::greatspn_parser
