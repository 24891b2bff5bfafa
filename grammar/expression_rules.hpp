// mmt's expression dialect, shared by the `.hdl` and `.gspn` parsers (no include guard: it
// is included once inside each parser's namespace, which must already declare the rules
// `name` (std::string) and `identifier` (ast::Identifier) the names of expressions are read
// with, the aliases `x3` and `ast`, and `exact_unsigned_real`). The precedence ladder is
// grammar/expression_ladder.hpp, which GreatSPN's dialect shares; mmt adds its spellings of
// the operators, calls `f(a, b)` and the function `if`.

struct call_class : x3::annotate_on_success {};
struct function_name_class : x3::annotate_on_success {};
struct primary_class;
struct expr_class : x3::annotate_on_success {};

const x3::rule<call_class, ast::Call> call = "a call such as 'min(a, b)'";
const x3::rule<function_name_class, ast::Identifier> function_name = "a function";
const x3::rule<primary_class, ast::Expr> primary =
    "an expression (number, name, '#P', call or '(')";
const x3::rule<expr_class, ast::Chain> expr = "an expression";

const auto unary_operator = x3::char_("-!");
const auto multiplicative_operator = x3::string("*") | x3::string("/");
// `->` is an arrow of .hdl statements, not a subtraction.
const auto additive_operator = x3::string("+") | (x3::string("-") >> !x3::lit('>'));
const auto relational_operator =
    x3::string("<=") | x3::string(">=") | x3::string("<") | x3::string(">");
const auto equality_operator = x3::string("==") | x3::string("!=");
const auto conjunction_operator = x3::string("&&");
const auto disjunction_operator = x3::string("||");

#include "grammar/expression_ladder.hpp"

// `if` is a keyword of .hdl statements, but `if(c, a, b)` is still the function.
const auto function_name_def = name | x3::lexeme[x3::string("if") >> !(x3::alnum | '_')];
const auto call_def = (function_name >> '(') > (expr % ',') > ')';
const auto primary_def = number | token_count | call | identifier | ('(' > expr > ')');
const auto expr_def = disjunction;

BOOST_SPIRIT_DEFINE(function_name, call, primary, expr)
