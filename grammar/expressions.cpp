#include "grammar/expressions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "gspn/writers.hpp"

namespace mmt::grammar {
namespace {

using gspn::Expression;
using Op = Expression::Op;

std::string show(double v) { return gspn::formatNumber(v); }

Op binaryOp(const std::string& op) {
  static const std::pair<const char*, Op> table[] = {
      {"+", Op::Add},        {"-", Op::Subtract},  {"*", Op::Multiply},
      {"/", Op::Divide},     {"^", Op::Power},     {"<", Op::Less},
      {"<=", Op::LessEqual}, {">", Op::Greater},   {">=", Op::GreaterEqual},
      {"==", Op::Equal},     {"!=", Op::NotEqual}, {"&&", Op::And},
      {"||", Op::Or}};
  for (const auto& [text, code] : table)
    if (op == text) return code;
  throw std::logic_error("unknown operator " + op);
}

/// The functions of expressions other than the measure atoms.
struct ArithmeticFunction {
  const char* name;
  Op op;
  std::size_t arity;  // 0: two or more
};
const ArithmeticFunction kArithmetic[] = {{"min", Op::Min, 0},
                                          {"max", Op::Max, 0},
                                          {"if", Op::If, 3},
                                          {"floor", Op::Floor, 1},
                                          {"ceil", Op::Ceil, 1},
                                          {"round", Op::Round, 1},
                                          {"abs", Op::Abs, 1},
                                          {"sqrt", Op::Sqrt, 1},
                                          {"log", Op::Log, 1},
                                          {"exp", Op::Exp, 1},
                                          {"pow", Op::Power, 2},
                                          {"mod", Op::Mod, 2},
                                          {"factorial", Op::Factorial, 1},
                                          {"binomial", Op::Binomial, 2},
                                          {"sin", Op::Sin, 1},
                                          {"cos", Op::Cos, 1},
                                          {"tan", Op::Tan, 1},
                                          {"asin", Op::Asin, 1},
                                          {"acos", Op::Acos, 1},
                                          {"atan", Op::Atan, 1}};

/// The terms of a sum `a + b + c` (one term when `e` is not a sum).
std::vector<const ast::Expr*> sumTerms(const ast::Expr& e) {
  std::vector<const ast::Expr*> terms{&unwrap(e)};
  if (const auto* chain = boost::get<x3::forward_ast<ast::Chain>>(terms[0])) {
    const auto& rest = chain->get().rest;
    if (std::all_of(rest.begin(), rest.end(), [](const auto& o) { return o.op == "+"; })) {
      terms = {&unwrap(chain->get().first)};
      for (const ast::Operation& o : rest) terms.push_back(&unwrap(o.operand));
    }
  }
  return terms;
}

/// A call that is a distribution where a delay is read: a distribution's name (`exp` is
/// the exponential there), or any name that is no arithmetic function (reported later as
/// an unknown distribution).
bool namesDistribution(const std::string& f) {
  return gspn::Distribution::isName(f) || !isArithmeticFunction(f);
}

}  // namespace

bool isArithmeticFunction(const std::string& name) {
  return std::any_of(std::begin(kArithmetic), std::end(kArithmetic),
                     [&](const ArithmeticFunction& f) { return name == f.name; });
}

std::optional<std::string> tokenCountProblem(double v, std::uint32_t least) {
  constexpr auto largest = std::numeric_limits<gspn::Tokens>::max();
  if (!(v >= least) || v != std::floor(v))
    return "an integer of at least " + std::to_string(least) + ", not " + show(v);
  if (v > largest) return "at most " + std::to_string(largest) + ", not " + show(v);
  return std::nullopt;
}

void ExpressionLowering::error(const x3::position_tagged& node, std::string message) {
  diagnostics_.error(positions_.offsetOf(node), std::move(message));
}

std::optional<gspn::Expression> ExpressionLowering::expression(const ast::Expr& e,
                                                               Context context) {
  gspn::Expression out;
  if (!lower(e, context, out)) return std::nullopt;
  return out;
}

bool ExpressionLowering::tokenCount(const ast::TokenCount& count, gspn::Expression&) {
  error(count, "a token count cannot appear here");
  return false;
}

bool ExpressionLowering::throughput(const ast::Identifier& transition, gspn::Expression&) {
  error(transition, "'throughput' cannot appear here");
  return false;
}

bool callsDistribution(const ast::Expr& e) {
  for (const ast::Expr* term : sumTerms(e)) {
    const auto* c = boost::get<x3::forward_ast<ast::Call>>(term);
    if (c && gspn::Distribution::isName(c->get().function.name)) return true;
  }
  return false;
}

bool ExpressionLowering::lower(const ast::Expr& e, Context context, gspn::Expression& out) {
  struct Visitor {
    ExpressionLowering& self;
    Context context;
    gspn::Expression& out;
    bool operator()(const ast::Number& n) const {
      out.push({Op::Constant, 0, n.value});
      return true;
    }
    bool operator()(const ast::Identifier& id) const { return self.name(id, context, out); }
    bool operator()(const ast::TokenCount& tc) const {
      if (context != Context::Marking) {
        self.error(tc, context == Context::Constant
                           ? "a token count cannot appear here: the value must be a constant"
                           : "a token count in a measure must be inside mean(...) or "
                             "prob(...)");
        return false;
      }
      return self.tokenCount(tc, out);
    }
    bool operator()(const x3::forward_ast<ast::Call>& call) const {
      return self.lowerCall(call.get(), context, out);
    }
    bool operator()(const x3::forward_ast<ast::Unary>& u) const {
      if (!self.lower(u.get().operand, context, out)) return false;
      out.push({u.get().op == '-' ? Op::Negate : Op::Not, 0, 0});
      return true;
    }
    bool operator()(const x3::forward_ast<ast::Chain>& chain) const {
      return self.lowerChain(chain.get(), context, out);
    }
  };
  return boost::apply_visitor(Visitor{*this, context, out}, e);
}

bool ExpressionLowering::lowerChain(const ast::Chain& chain, Context context,
                                    gspn::Expression& out) {
  if (chain.rest.empty()) return lower(chain.first, context, out);
  if (chain.rest.front().op == "^") {
    // Right-associative: a ^ b ^ c = a ^ (b ^ c). Push every operand, then the operators.
    if (!lower(chain.first, context, out)) return false;
    for (const ast::Operation& o : chain.rest)
      if (!lower(o.operand, context, out)) return false;
    for (std::size_t i = 0; i < chain.rest.size(); ++i) out.push({Op::Power, 0, 0});
    return true;
  }
  if (!lower(chain.first, context, out)) return false;
  for (const ast::Operation& o : chain.rest) {
    if (!lower(o.operand, context, out)) return false;
    out.push({binaryOp(o.op), 0, 0});
  }
  return true;
}

bool ExpressionLowering::lowerCall(const ast::Call& call, Context context, gspn::Expression& out) {
  const std::string& f = call.function.name;
  const std::size_t n = call.arguments.size();
  auto arity = [&](std::size_t expected) {
    if (n == expected) return true;
    error(call.function, "'" + f + "' takes " + std::to_string(expected) + " argument" +
                             (expected == 1 ? "" : "s") + ", not " + std::to_string(n));
    return false;
  };
  for (const ArithmeticFunction& s : kArithmetic) {
    if (f != s.name) continue;
    if (s.arity == 0 && n < 2) {
      error(call.function, "'" + f + "' takes at least two arguments");
      return false;
    }
    if (s.arity != 0 && !arity(s.arity)) return false;
    for (const ast::Expr& a : call.arguments)
      if (!lower(a, context, out)) return false;
    // The operand count is the instruction's index for min and max, which take any.
    out.push({s.op, s.arity == 0 ? static_cast<std::uint32_t>(n) : 0u, 0});
    return true;
  }
  const bool atom = f == "mean" || f == "prob" || f == "throughput";
  if (atom && context != Context::Measure) {
    error(call.function, "'" + f + "(...)' is a measure: it can only appear in 'measure'");
    return false;
  }
  if (f == "mean" || f == "prob") {
    if (!arity(1)) return false;
    auto operand = expression(call.arguments[0], Context::Marking);
    if (!operand) return false;
    out.push({f == "mean" ? Op::Mean : Op::Probability, out.addOperand(std::move(*operand)), 0});
    return true;
  }
  if (f == "throughput") {
    if (!arity(1)) return false;
    const ast::Identifier* id = asName(call.arguments[0]);
    if (!id) {
      error(call.function, "'throughput' takes the name of a transition");
      return false;
    }
    return throughput(*id, out);
  }
  std::vector<std::string> known;
  for (const ArithmeticFunction& s : kArithmetic) known.emplace_back(s.name);
  for (const char* atom : {"mean", "prob", "throughput"}) known.emplace_back(atom);
  error(call.function, unknownName("function", f, known));
  return false;
}

/// The expression seen through the chains of one operand that each precedence level of
/// the grammar wraps it in.
const ast::Expr& unwrap(const ast::Expr& e) {
  if (const auto* chain = boost::get<x3::forward_ast<ast::Chain>>(&e))
    if (chain->get().rest.empty()) return unwrap(chain->get().first);
  return e;
}

/// The name an expression consists of, if it is just a name (seen through unwrap).
const ast::Identifier* asName(const ast::Expr& e) {
  return boost::get<ast::Identifier>(&unwrap(e));
}

const ast::Call* asCall(const ast::Expr& e) {
  const auto* call = boost::get<x3::forward_ast<ast::Call>>(&unwrap(e));
  return call ? &call->get() : nullptr;
}

/// The position-tagged node an expression starts with, for messages about the whole value.
const x3::position_tagged& anchor(const ast::Expr& e) {
  struct Visitor {
    const x3::position_tagged& operator()(const ast::Number& n) const { return n; }
    const x3::position_tagged& operator()(const ast::Identifier& n) const { return n; }
    const x3::position_tagged& operator()(const ast::TokenCount& n) const { return n; }
    const x3::position_tagged& operator()(const x3::forward_ast<ast::Call>& n) const {
      return n.get();
    }
    const x3::position_tagged& operator()(const x3::forward_ast<ast::Unary>& n) const {
      return n.get();
    }
    const x3::position_tagged& operator()(const x3::forward_ast<ast::Chain>& n) const {
      return n.get();
    }
  };
  return boost::apply_visitor(Visitor{}, e);
}

std::optional<double> ExpressionLowering::constant(const ast::Expr& e, const std::string& what) {
  auto x = expression(e, Context::Constant);
  if (!x) return std::nullopt;
  const double v = x->evaluateConstant();
  if (!std::isfinite(v)) {
    error(anchor(e), what + " is not a finite number");
    return std::nullopt;
  }
  return v;
}

std::optional<std::uint32_t> ExpressionLowering::count(const ast::Expr& e, const std::string& what,
                                                       std::uint32_t least) {
  auto v = constant(e, what);
  if (!v) return std::nullopt;
  if (auto problem = tokenCountProblem(*v, least)) {
    error(anchor(e), what + " must be " + *problem);
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(*v);
}

std::optional<gspn::Distribution> ExpressionLowering::distribution(const ast::Expr& e) {
  const ast::Call* call = nullptr;
  double offset = 0;
  bool ok = true;
  for (const ast::Expr* term : sumTerms(e)) {
    const auto* c = boost::get<x3::forward_ast<ast::Call>>(term);
    if (c && namesDistribution(c->get().function.name)) {
      if (call) {
        error(c->get().function,
              "a delay has one distribution; '" + call->function.name + "' is already given");
        ok = false;
      }
      call = &c->get();
    } else if (auto v = constant(*term, "a delay offset")) {
      offset += *v;
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  if (!call) {
    error(anchor(e),
          "a delay is a distribution such as const(2), erlang(3, 2) or "
          "uniform(1, 3), optionally plus a constant (known: " +
              join(gspn::Distribution::names()) + ")");
    return std::nullopt;
  }
  if (!gspn::Distribution::isName(call->function.name)) {
    error(call->function,
          unknownName("distribution", call->function.name, gspn::Distribution::names()));
    return std::nullopt;
  }
  std::vector<double> arguments;
  for (const ast::Expr& a : call->arguments) {
    auto v = constant(a, "a distribution argument");
    if (!v) return std::nullopt;
    arguments.push_back(*v);
  }
  try {
    return gspn::Distribution::make(call->function.name, std::move(arguments)).shifted(offset);
  } catch (const std::invalid_argument& x) {
    error(offset < 0 ? anchor(e) : static_cast<const x3::position_tagged&>(call->function),
          offset < 0 ? "a delay offset must be zero or positive, not " + show(offset)
                     : std::string(x.what()));
    return std::nullopt;
  }
}

}  // namespace mmt::grammar
