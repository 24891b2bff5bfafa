// The expression grammar shared by the `.hdl` and `.gspn` parsers (no include guard: it is
// included once inside each parser's namespace, which must already declare the rules
// `name` (std::string) and `identifier` (ast::Identifier) the names of expressions are read
// with, and the aliases `x3` and `ast`). One text, so the two languages cannot drift apart; each namespace gets
// its own rule types, so the two instantiations do not clash. Precedence, lowest first:
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

x3::rule<number_class, ast::Number> const number = "a number";
x3::rule<token_count_class, ast::TokenCount> const token_count = "a token count '#P'";
x3::rule<token_place_name_class, std::string> const token_place_name = "a place name";
x3::rule<token_place_class, ast::Identifier> const token_place = "a place name";
x3::rule<call_class, ast::Call> const call = "a call such as 'min(a, b)'";
x3::rule<function_name_class, ast::Identifier> const function_name = "a function";
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

auto const number_def = exact_unsigned_real;
// `#P`, or PIPE's `#(P)`.
auto const token_place_name_def = name | ('(' > name > ')');
auto const token_place_def = token_place_name;
auto const token_count_def = x3::lit('#') > token_place;
// `if` is a keyword of .hdl statements, but `if(c, a, b)` is still the function.
auto const function_name_def = name | x3::lexeme[x3::string("if") >> !(x3::alnum | '_')];
auto const call_def = (function_name >> '(') > (expr % ',') > ')';
auto const primary_def = number | token_count | call | identifier | ('(' > expr > ')');
auto const unary_def = x3::char_("-!") > factor;
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
    multiplicative >> *step(x3::string("+") | (x3::string("-") >> !x3::lit('>')), multiplicative);
auto const relational_def =
    additive >> *step(x3::string("<=") | x3::string(">=") | x3::string("<") | x3::string(">"),
                      additive);
auto const equality_def = relational >> *step(x3::string("==") | x3::string("!="), relational);
auto const conjunction_def = equality >> *step(x3::string("&&"), equality);
auto const expr_def = conjunction >> *step(x3::string("||"), conjunction);

BOOST_SPIRIT_DEFINE(number, token_place_name, token_place, token_count, function_name, call, unary, primary, factor, power, multiplicative,
                    additive, relational, equality, conjunction, expr)
