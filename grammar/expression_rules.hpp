// The expression grammar shared by the `.hdl` and `.gspn` parsers (no include guard: it is
// included once inside each parser's namespace, which must already declare the rules
// `name` (std::string) and `identifier` (ast::Identifier) the names of expressions are read
// with, and the aliases `x3` and `ast`). One text, so the two languages cannot drift apart; each
// namespace gets its own rule types, so the two instantiations do not clash. Precedence, lowest
// first:
// `||`, `&&`, `== !=`, `< <= > >=`, `+ -`, `* /`, unary `- !`, `^` (right-associative).

struct number_class : x3::annotate_on_success {};
struct token_count_class : x3::annotate_on_success {};
struct token_place_name_class;
struct token_place_class : x3::annotate_on_success {};
struct call_class : x3::annotate_on_success {};
struct function_name_class : x3::annotate_on_success {};
struct unary_class : x3::annotate_on_success {};
struct primary_class;
struct factor_class;
struct power_class : x3::annotate_on_success {};
struct multiplicative_class : x3::annotate_on_success {};
struct additive_class : x3::annotate_on_success {};
struct relational_class : x3::annotate_on_success {};
struct equality_class : x3::annotate_on_success {};
struct conjunction_class : x3::annotate_on_success {};
struct expr_class : x3::annotate_on_success {};

const x3::rule<number_class, ast::Number> number = "a number";
const x3::rule<token_count_class, ast::TokenCount> token_count = "a token count '#P'";
const x3::rule<token_place_name_class, std::string> token_place_name = "a place name";
const x3::rule<token_place_class, ast::Identifier> token_place = "a place name";
const x3::rule<call_class, ast::Call> call = "a call such as 'min(a, b)'";
const x3::rule<function_name_class, ast::Identifier> function_name = "a function";
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
const x3::rule<expr_class, ast::Chain> expr = "an expression";

const auto number_def = exact_unsigned_real;
// `#P`, or PIPE's `#(P)`.
const auto token_place_name_def = name | ('(' > name > ')');
const auto token_place_def = token_place_name;
const auto token_count_def = x3::lit('#') > token_place;
// `if` is a keyword of .hdl statements, but `if(c, a, b)` is still the function.
const auto function_name_def = name | x3::lexeme[x3::string("if") >> !(x3::alnum | '_')];
const auto call_def = (function_name >> '(') > (expr % ',') > ')';
const auto primary_def = number | token_count | call | identifier | ('(' > expr > ')');
const auto unary_def = x3::char_("-!") > factor;
const auto factor_def = unary | power;
/// One `operator operand` step of a chain. A rule of its own so that X3 builds an
/// Operation instead of pushing the operator's characters into the chain.
template <typename Operators, typename Operand>
auto step(const Operators& operators, const Operand& operand) {
  return x3::rule<struct step_class, ast::Operation>{"an operator"} = operators > operand;
}
const auto power_def = primary >> *step(x3::string("^"), factor);
const auto multiplicative_def = factor >> *step(x3::string("*") | x3::string("/"), factor);
const auto additive_def = multiplicative >>
                          *step(x3::string("+") | (x3::string("-") >> !x3::lit('>')),
                                multiplicative);
const auto relational_def = additive >> *step(x3::string("<=") | x3::string(">=") |
                                                  x3::string("<") | x3::string(">"),
                                              additive);
const auto equality_def = relational >> *step(x3::string("==") | x3::string("!="), relational);
const auto conjunction_def = equality >> *step(x3::string("&&"), equality);
const auto expr_def = conjunction >> *step(x3::string("||"), conjunction);

BOOST_SPIRIT_DEFINE(number, token_place_name, token_place, token_count, function_name, call, unary,
                    primary, factor, power, multiplicative, additive, relational, equality,
                    conjunction, expr)
