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

const auto name_char = alnum | char_('_');
inline auto keyword(const char* word) { return lexeme[lit(word) >> !name_char]; }
/// Reads `text` and gives mmt's spelling `as`.
inline auto spelled(const char* text, const char* as) {
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

const x3::rule<name_class, std::string> name = "a name";
const x3::rule<identifier_class, ast::Identifier> identifier = "a name";
const x3::rule<function_name_class, ast::Identifier> function_name = "a function";
const x3::rule<number_class, ast::Number> number = "a number";
const x3::rule<token_count_class, ast::TokenCount> token_count = "a token count '#P'";
const x3::rule<token_place_name_class, std::string> token_place_name = "a place name";
const x3::rule<token_place_class, ast::Identifier> token_place = "a place name";
const x3::rule<call_class, ast::Call> call = "a call such as 'Min[a, b]'";
const x3::rule<when_class, ast::Call> when = "'when condition: value; ever value;'";
const x3::rule<measure_class, ast::Call> measure = "a measure 'E{…}', 'P{…}' or 'X{…}'";
const x3::rule<scaled_measure_class, ast::Chain> scaled_measure = "a scaled measure";
const x3::rule<unary_class, ast::Unary> unary = "a negation";
const x3::rule<primary_class, ast::Expr> primary =
    "an expression (number, name, '#P', call or '(')";
const x3::rule<factor_class, ast::Expr> factor = "an expression";
const x3::rule<power_class, ast::Chain> power = "an expression";
const x3::rule<multiplicative_class, ast::Chain> multiplicative = "an expression";
const x3::rule<additive_class, ast::Chain> additive = "an expression";
const x3::rule<relational_class, ast::Chain> relational = "an expression";
const x3::rule<equality_class, ast::Chain> equality = "an expression";
const x3::rule<conjunction_class, ast::Chain> conjunction = "an expression";
const x3::rule<disjunction_class, ast::Chain> disjunction = "an expression";
const x3::rule<expr_class, ast::Chain> expr = "an expression";
const x3::rule<end_class> end = "the end of the expression";
const label_type label = "an expression";

// A name in double quotes holds what GreatSPN's names cannot (mmt's `W[1].idle`), as mmt's
// writers quote it.
const auto quoted_name = lexeme['"' >> +(char_ - '"' - x3::eol) >> '"'];
const auto name_def =
    quoted_name | (lexeme[(alpha | char_('_')) >> *name_char] - keyword("when") - keyword("ever"));
const auto identifier_def = name;
const auto function_name_def = name;
const auto number_def = exact_unsigned_real;
const auto token_place_name_def = name | ('(' > name > ')');
const auto token_place_def = token_place_name;
const auto token_count_def = lit('#') > token_place;
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
const auto unary_def = (char_("-!") | (lit('~') >> x3::attr('!'))) > factor;
const auto factor_def = unary | power;
/// One `operator operand` step of a chain (as in grammar/expression_rules.hpp).
template <typename Operators, typename Operand>
auto step(const Operators& operators, const Operand& operand) {
  return x3::rule<struct step_class, ast::Operation>{"an operator"} = operators > operand;
}
const auto power_def = primary >> *step(x3::string("^"), factor);
const auto multiplicative_def = factor >> *step(x3::string("*") | (lit('/') >> !lit('=') >>
                                                                   x3::attr(std::string("/"))),
                                                factor);
const auto additive_def = multiplicative >> *step(x3::string("+") | (lit('-') >> !lit('>') >>
                                                                     x3::attr(std::string("-"))),
                                                  multiplicative);
const auto relational_def = additive >>
                            *step(x3::string("<=") | x3::string(">=") |
                                      (lit('<') >> !char_("->") >> x3::attr(std::string("<"))) |
                                      x3::string(">"),
                                  additive);
const auto equality_def = relational >>
                          *step(x3::string("==") | x3::string("!=") | spelled("/=", "!=") |
                                    spelled("<>", "!=") | spelled("=", "=="),
                                relational);
const auto conjunction_def = equality >> *step(x3::string("&&") | spelled("&", "&&"), equality);
const auto disjunction_def = conjunction >>
                             *step(x3::string("||") | spelled("|", "||"), conjunction);
const auto expr_def = disjunction >> *step(x3::string("<->") | x3::string("->"), disjunction);
const auto end_def = x3::eoi;
const auto label_def = expr > end;

BOOST_SPIRIT_DEFINE(name, identifier, function_name, number, token_place_name, token_place,
                    token_count, call, when, measure, scaled_measure, unary, primary, factor, power,
                    multiplicative, additive, relational, equality, conjunction, disjunction, expr,
                    end, label)

}  // namespace mmt::io::greatspn_parser
