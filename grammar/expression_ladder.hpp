// The precedence ladder every expression dialect shares: mmt's (`.hdl` and `.gspn`,
// grammar/expression_rules.hpp) and GreatSPN's (io/greatspn_grammar_def.hpp). One text, so
// the dialects cannot drift apart in how they bind; each adds its own operands and
// spellings. No include guard: it is included inside each parser's namespace (which gets
// its own rule types, so the instantiations do not clash), and that namespace must already
// declare
//   - the aliases `x3` and `ast`, and `exact_unsigned_real`;
//   - the rules `name` (std::string, a place's name) and `primary` (ast::Expr, the
//     dialect's operands: numbers, `#P`, calls, names, `(expr)` and its own);
//   - each level's operators, a parser giving the operator in mmt's spelling (a char for
//     unary_operator, a std::string for the others): unary_operator,
//     multiplicative_operator, additive_operator, relational_operator, equality_operator,
//     conjunction_operator, disjunction_operator.
// It defines the rules number, token_place_name, token_place, token_count, unary, factor,
// power, multiplicative, additive, relational, equality, conjunction and disjunction, and
// `step`; the dialect defines its `expr` on top of disjunction. Precedence, lowest first:
// `||`, `&&`, `== !=`, `< <= > >=`, `+ -`, `* /`, unary `- !`, `^` (right-associative).
// Every level is a chain of operands (ast::Chain), position-tagged, and the rule names are
// what users read in "expected …" messages.

struct number_class : x3::annotate_on_success {};
struct token_count_class : x3::annotate_on_success {};
struct token_place_name_class;
struct token_place_class : x3::annotate_on_success {};
struct unary_class : x3::annotate_on_success {};
struct factor_class;
struct power_class : x3::annotate_on_success {};
struct multiplicative_class : x3::annotate_on_success {};
struct additive_class : x3::annotate_on_success {};
struct relational_class : x3::annotate_on_success {};
struct equality_class : x3::annotate_on_success {};
struct conjunction_class : x3::annotate_on_success {};
struct disjunction_class : x3::annotate_on_success {};

const x3::rule<number_class, ast::Number> number = "a number";
const x3::rule<token_count_class, ast::TokenCount> token_count = "a token count '#P'";
const x3::rule<token_place_name_class, std::string> token_place_name = "a place name";
const x3::rule<token_place_class, ast::Identifier> token_place = "a place name";
const x3::rule<unary_class, ast::Unary> unary = "a negation";
const x3::rule<factor_class, ast::Expr> factor = "an expression";
const x3::rule<power_class, ast::Chain> power = "an expression";
const x3::rule<multiplicative_class, ast::Chain> multiplicative = "an expression";
const x3::rule<additive_class, ast::Chain> additive = "an expression";
const x3::rule<relational_class, ast::Chain> relational = "an expression";
const x3::rule<equality_class, ast::Chain> equality = "an expression";
const x3::rule<conjunction_class, ast::Chain> conjunction = "an expression";
const x3::rule<disjunction_class, ast::Chain> disjunction = "an expression";

const auto number_def = exact_unsigned_real;
// `#P`, or PIPE's `#(P)`.
const auto token_place_name_def = name | ('(' > name > ')');
const auto token_place_def = token_place_name;
const auto token_count_def = x3::lit('#') > token_place;
const auto unary_def = unary_operator > factor;
const auto factor_def = unary | power;
/// One `operator operand` step of a chain. A rule of its own so that X3 builds an
/// Operation instead of pushing the operator's characters into the chain.
template <typename Operators, typename Operand>
auto step(const Operators& operators, const Operand& operand) {
  return x3::rule<struct step_class, ast::Operation>{"an operator"} = operators > operand;
}
const auto power_def = primary >> *step(x3::string("^"), factor);
const auto multiplicative_def = factor >> *step(multiplicative_operator, factor);
const auto additive_def = multiplicative >> *step(additive_operator, multiplicative);
const auto relational_def = additive >> *step(relational_operator, additive);
const auto equality_def = relational >> *step(equality_operator, relational);
const auto conjunction_def = equality >> *step(conjunction_operator, equality);
const auto disjunction_def = conjunction >> *step(disjunction_operator, conjunction);

BOOST_SPIRIT_DEFINE(number, token_place_name, token_place, token_count, unary, factor, power,
                    multiplicative, additive, relational, equality, conjunction, disjunction)
