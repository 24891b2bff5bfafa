#include "io/label.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "grammar/expressions.hpp"
#include "grammar/gspn.hpp"
#include "io/greatspn_grammar.hpp"

namespace mmt::io {
namespace {

namespace ast = grammar::ast;
namespace x3 = boost::spirit::x3;

/// A node of type T carrying the position of `from`, for nodes a rewrite creates.
template <typename T>
T at(const x3::position_tagged& from) {
  T node;
  static_cast<x3::position_tagged&>(node) = from;
  return node;
}

ast::Expr call(const ast::Identifier& where, const std::string& function,
               std::vector<ast::Expr> arguments) {
  auto c = at<ast::Call>(where);
  c.function = at<ast::Identifier>(where);
  c.function.name = function;
  c.arguments = std::move(arguments);
  return ast::Expr(c);
}

ast::Expr binary(const x3::position_tagged& where, ast::Expr a, const std::string& op,
                 ast::Expr b) {
  auto chain = at<ast::Chain>(where);
  chain.first = std::move(a);
  chain.rest.push_back({op, std::move(b)});
  return ast::Expr(chain);
}

ast::Expr negation(const x3::position_tagged& where, ast::Expr a) {
  auto u = at<ast::Unary>(where);
  u.op = '!';
  u.operand = std::move(a);
  return ast::Expr(u);
}

ast::Expr number(const x3::position_tagged& where, double value) {
  auto n = at<ast::Number>(where);
  n.value = value;
  return ast::Expr(n);
}

bool isCondition(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=" ||
         op == "&&" || op == "||";
}

/// GreatSPN's functions that mmt reads under another name, with their arity.
const std::map<std::string, std::pair<const char*, std::size_t>>& renamed() {
  static const std::map<std::string, std::pair<const char*, std::size_t>> table = {
      {"Min", {"min", 0}},           {"Max", {"max", 0}},        {"If", {"if", 3}},
      {"Mod", {"mod", 2}},           {"Pow", {"pow", 2}},        {"Abs", {"abs", 1}},
      {"Exp", {"exp", 1}},           {"Sqrt", {"sqrt", 1}},      {"Ceil", {"ceil", 1}},
      {"Floor", {"floor", 1}},       {"Round", {"round", 1}},    {"Factorial", {"factorial", 1}},
      {"Binomial", {"binomial", 2}}, {"Binom", {"binomial", 2}}, {"Sin", {"sin", 1}},
      {"Cos", {"cos", 1}},           {"Tan", {"tan", 1}},        {"Asin", {"asin", 1}},
      {"Acos", {"acos", 1}},         {"Atan", {"atan", 1}},      {"fact", {"factorial", 1}},
      {"comb", {"binomial", 2}}};
  return table;
}

/// GreatSPN's functions mmt cannot evaluate: external data, multisets and colours, and
/// the general distributions of its non-exponential transitions.
bool isUnsupportedGreatSpn(const std::string& f) {
  static const char* names[] = {"FromList",
                                "FromTable",
                                "FromTimeTable",
                                "Call",
                                "FBA",
                                "Card",
                                "CN",
                                "Subclass",
                                "DiracDelta",
                                "I",
                                "R",
                                "Rect",
                                "Uniform",
                                "Triangular",
                                "Erlang",
                                "TruncatedExp",
                                "Pareto"};
  return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return f == n; });
}

/// Rewrites GreatSPN's names and forms into mmt's (label.hpp lists them), reporting what
/// has no counterpart.
class GreatSpnNames {
 public:
  GreatSpnNames(const grammar::SourcePositions& positions, Diagnostics& diagnostics)
      : positions_(positions), diagnostics_(diagnostics) {}

  bool rewrite(ast::Expr& e) {
    if (auto* id = boost::get<ast::Identifier>(&e)) {
      if (id->name == "True" || id->name == "true")
        e = number(*id, 1);
      else if (id->name == "False" || id->name == "false")
        e = number(*id, 0);
      return true;
    }
    if (auto* u = boost::get<x3::forward_ast<ast::Unary>>(&e)) return rewrite(u->get().operand);
    if (auto* c = boost::get<x3::forward_ast<ast::Chain>>(&e)) return rewriteChain(e, c->get());
    if (auto* c = boost::get<x3::forward_ast<ast::Call>>(&e)) return rewriteCall(e, c->get());
    return true;
  }

 private:
  void error(const x3::position_tagged& node, std::string message) {
    diagnostics_.error(positions_.offsetOf(node), std::move(message));
  }

  bool rewriteChain(ast::Expr& e, ast::Chain& chain) {
    bool ok = rewrite(chain.first);
    for (ast::Operation& o : chain.rest) ok = rewrite(o.operand) && ok;
    if (!ok || chain.rest.empty() || (chain.rest[0].op != "->" && chain.rest[0].op != "<->"))
      return ok;
    // a -> b is !a || b; a <-> b is !a == !b (both sides read as truth values).
    const ast::Chain copy = chain;
    ast::Expr acc = copy.first;
    for (const ast::Operation& o : copy.rest)
      acc = o.op == "->" ? binary(copy, negation(copy, acc), "||", o.operand)
                         : binary(copy, negation(copy, acc), "==", negation(copy, o.operand));
    e = acc;
    return true;
  }

  bool rewriteCall(ast::Expr& e, ast::Call& c) {
    bool ok = true;
    for (ast::Expr& a : c.arguments) ok = rewrite(a) && ok;
    if (!ok) return false;
    const std::string f = c.function.name;
    const std::size_t n = c.arguments.size();
    if (auto r = renamed().find(f); r != renamed().end()) {
      c.function.name = r->second.first;
      // Min[Min[a, b], c], as GreatSPN writes a minimum of three, is min(a, b, c).
      if ((f == "Min" || f == "Max") && n == 2)
        if (const ast::Call* inner = grammar::asCall(c.arguments[0]);
            inner && inner->function.name == c.function.name) {
          std::vector<ast::Expr> flat = inner->arguments;
          flat.push_back(c.arguments[1]);
          c.arguments = std::move(flat);
        }
      return true;
    }
    if (f == "when") {
      // when(c1, v1, c2, v2, …, otherwise): the first condition that holds gives the value.
      ast::Expr acc = c.arguments.back();
      for (std::size_t i = n - 1; i >= 2; i -= 2)
        acc = call(c.function, "if", {c.arguments[i - 2], c.arguments[i - 1], acc});
      e = acc;
      return true;
    }
    if (f == "Fract" || f == "inv" || f == "Log") {
      if (f == "inv" && n == 1) {
        e = binary(c, number(c, 1), "/", c.arguments[0]);
        return true;
      }
      if (f == "Log" && n == 1) {
        c.function.name = "log";
        return true;
      }
      if (n != 2) {
        error(c.function, "'" + f + "' takes " + (f == "inv" ? "1 argument" : "2 arguments") +
                              ", not " + std::to_string(n));
        return false;
      }
      if (f == "Fract") {
        e = binary(c, c.arguments[0], "/", c.arguments[1]);
      } else {
        e = binary(c, call(c.function, "log", {c.arguments[0]}), "/",
                   call(c.function, "log", {c.arguments[1]}));
      }
      return true;
    }
    if (f == "E" || f == "P" || f == "X") return rewriteMeasure(e, c);
    if (isUnsupportedGreatSpn(f)) {
      error(c.function, "GreatSPN's function '" + f +
                            "' is not supported by mmt (it reads "
                            "data, colours or general distributions)");
      return false;
    }
    return true;
  }

  /// E{…}, P{…}, X{…}. GreatSPN writes a conditional reward as E{value / condition}: the
  /// parse takes the '/' for a division, so the condition is found again here, at the last
  /// '/' of the leftmost product of a body that is a comparison.
  bool rewriteMeasure(ast::Expr& e, ast::Call& c) {
    if (c.arguments.size() != 1) {
      error(c.function, "'" + c.function.name + "{…}' takes one expression, not " +
                            std::to_string(c.arguments.size()));
      return false;
    }
    ast::Expr body = c.arguments[0];
    std::optional<ast::Expr> value;
    if (looksLikeCondition(body)) value = splitAtDivision(body);
    if (c.function.name == "P") {
      e = call(c.function, "prob", {body});
      return true;
    }
    if (c.function.name == "X") {
      if (value) {
        error(c.function,
              "X{T / condition} (a throughput counted in some markings only) is "
              "not supported; write X{T}");
        return false;
      }
      e = call(c.function, "throughput", {body});
      return true;
    }
    if (!value && looksLikeCondition(body)) {
      error(c.function,
            "E{…} takes a value (a condition alone is P{…}); a conditional mean "
            "is E{value / condition}");
      return false;
    }
    if (value) body = call(c.function, "if", {body, *value, number(c.function, 0)});
    e = call(c.function, "mean", {body});
    return true;
  }

  static bool looksLikeCondition(const ast::Expr& e) {
    const ast::Expr& u = grammar::unwrap(e);
    if (const auto* x = boost::get<x3::forward_ast<ast::Unary>>(&u)) return x->get().op == '!';
    const auto* chain = boost::get<x3::forward_ast<ast::Chain>>(&u);
    return chain && !chain->get().rest.empty() && isCondition(chain->get().rest[0].op);
  }

  /// Finds the leftmost product with a '/' down the left spine of `e`; cuts it at its last
  /// '/', leaving the divisor's side in `e` (the condition) and returning the dividend's
  /// side (the value). Nothing when there is none.
  static std::optional<ast::Expr> splitAtDivision(ast::Expr& e) {
    auto* c = boost::get<x3::forward_ast<ast::Chain>>(&e);
    if (!c) return std::nullopt;
    ast::Chain& chain = c->get();
    std::size_t last = chain.rest.size();
    for (std::size_t i = 0; i < chain.rest.size(); ++i)
      if (chain.rest[i].op == "/") last = i;
    if (last == chain.rest.size()) return splitAtDivision(chain.first);
    auto value = at<ast::Chain>(chain);
    value.first = chain.first;
    value.rest.assign(chain.rest.begin(), chain.rest.begin() + static_cast<long>(last));
    ast::Chain condition = at<ast::Chain>(chain);
    condition.first = chain.rest[last].operand;
    condition.rest.assign(chain.rest.begin() + static_cast<long>(last) + 1, chain.rest.end());
    e = ast::Expr(condition);
    return ast::Expr(value);
  }

  const grammar::SourcePositions& positions_;
  Diagnostics& diagnostics_;
};

/// Where GreatSPN's conditionals (`when`, which nest without brackets) would nest deeper
/// than the parser's stack allows, if they may: the offset of the first one too many.
std::optional<std::size_t> tooManyConditionals(const std::string& text) {
  std::size_t count = 0;
  for (std::size_t at = text.find("when"); at != std::string::npos;
       at = text.find("when", at + 4)) {
    auto isName = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    const bool word =
        (at == 0 || !isName(text[at - 1])) && (at + 4 == text.size() || !isName(text[at + 4]));
    if (word && ++count > grammar::kMaxNesting) return at;
  }
  return std::nullopt;
}

}  // namespace

Label::Label(std::string text, std::size_t offset, Diagnostics& file, Dialect dialect)
    : source_{file.source().path, std::move(text)}, positions_(source_, offset), file_(&file) {
  if (dialect == Dialect::GreatSpn)
    if (auto at = tooManyConditionals(source_.text)) {
      file.error(offset + *at, "more than " + std::to_string(grammar::kMaxNesting) +
                                   " conditionals ('when') in one expression, the most mmt "
                                   "reads (it keeps the parser's stack safe)");
      return;
    }
  Diagnostics local(source_);
  ok_ = dialect == Dialect::Mmt ? grammar::parseGspnExpression(source_, local, positions_, expr_)
                                : parseGreatSpnExpression(source_, local, positions_, expr_);
  for (const grammar::Diagnostic& d : local.all()) file.error(offset + d.offset, d.message);
  if (ok_ && dialect == Dialect::GreatSpn) ok_ = GreatSpnNames(positions_, file).rewrite(expr_);
}

}  // namespace mmt::io
