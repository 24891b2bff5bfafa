#include "grammar/load_gspn.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <boost/unordered/unordered_flat_map.hpp>

#include "gspn/writers.hpp"

namespace mmt::grammar {
namespace {

namespace ast = gspn_ast;

std::string show(double v) { return gspn::formatNumber(v); }

/// Why v cannot be a count (an initial marking, an arc multiplicity, servers) of at least
/// `least`, as Tokens holds them: "an integer of at least 1, not 0.5", "at most
/// 4294967295, not 4294967297"; nothing when it can.
std::optional<std::string> tokenCountProblem(double v, std::uint32_t least) {
  constexpr auto largest = std::numeric_limits<gspn::Tokens>::max();
  if (!(v >= least) || v != std::floor(v))
    return "an integer of at least " + std::to_string(least) + ", not " + show(v);
  if (v > largest)
    return "at most " + std::to_string(largest) + ", not " + show(v);
  return std::nullopt;
}
using gspn::Expression;
using Op = Expression::Op;

/// What an expression may contain where it appears.
enum class Context {
  Constant,  ///< parameters only (initial markings, weights, parameters)
  Marking,   ///< plus token counts (rates, multiplicities, inside mean/prob)
  Measure,   ///< plus measure atoms, but token counts only inside mean/prob
};

const ast::Identifier* asName(const ast::Expr& e);
const x3::position_tagged& anchor(const ast::Expr& e);

class Lowering {
 public:
  Lowering(const ParsedGspn& parsed, Diagnostics& diagnostics,
           const ParameterOverrides& overrides)
      : parsed_(parsed), diagnostics_(diagnostics), overrides_(overrides) {}

  std::optional<gspn::Net> run();

 private:
  std::size_t at(const x3::position_tagged& node) const {
    return parsed_.positions.offsetOf(node);
  }
  void error(const x3::position_tagged& node, std::string message) {
    diagnostics_.error(at(node), std::move(message));
  }

  /// Lowers `e` into `out` (postfix). Returns false after reporting an error.
  bool lower(const ast::Expr& e, Context context, Expression& out);
  bool lowerChain(const ast::Chain& chain, Context context, Expression& out);
  bool lowerCall(const ast::Call& call, Context context, Expression& out);
  std::optional<Expression> expression(const ast::Expr& e, Context context) {
    Expression out;
    if (!lower(e, context, out)) return std::nullopt;
    return out;
  }
  /// A constant expression's value, or nothing after an error.
  std::optional<double> constant(const ast::Expr& e, const char* what);
  std::optional<std::uint32_t> count(const ast::Expr& e, const char* what, std::uint32_t least);
  /// `delay erlang(3, 2)` or `delay 0.5 + const(4)`: a distribution call plus constants.
  std::optional<gspn::Distribution> distribution(const ast::Expr& e);

  void declareParameters();
  void declarePlaces(gspn::NetBuilder& builder);
  void declareTransitions(gspn::NetBuilder& builder);
  void addArcs(gspn::NetBuilder& builder, gspn::TransitionId t,
               const std::vector<ast::ArcSpec>& arcs, int kind);
  void declareMeasures(gspn::NetBuilder& builder);
  bool claim(const ast::Identifier& name, const char* kind);

  const ParsedGspn& parsed_;
  Diagnostics& diagnostics_;
  const ParameterOverrides& overrides_;
  boost::unordered_flat_map<std::string, double> parameters_;
  boost::unordered_flat_map<std::string, gspn::PlaceId> places_;
  boost::unordered_flat_map<std::string, gspn::TransitionId> transitions_;
  boost::unordered_flat_map<std::string, std::uint32_t> measures_;
  boost::unordered_flat_map<std::string, bool> failedMeasures_;
  boost::unordered_flat_map<std::string, std::string> declared_;  // name -> kind
};

template <typename Map>
std::vector<std::string> keys(const Map& map) {
  std::vector<std::string> out;
  for (const auto& [k, v] : map) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

bool Lowering::claim(const ast::Identifier& name, const char* kind) {
  auto [it, fresh] = declared_.emplace(name.name, kind);
  if (!fresh) error(name, "'" + name.name + "' is already declared as a " + it->second);
  return fresh;
}

bool Lowering::lower(const ast::Expr& e, Context context, Expression& out) {
  struct Visitor {
    Lowering& self;
    Context context;
    Expression& out;
    bool operator()(const ast::Number& n) const {
      out.push({Op::Constant, 0, n.value});
      return true;
    }
    bool operator()(const ast::Identifier& id) const {
      if (auto p = self.parameters_.find(id.name); p != self.parameters_.end()) {
        out.push({Op::Constant, 0, p->second});
        return true;
      }
      if (context == Context::Measure) {
        if (auto m = self.measures_.find(id.name); m != self.measures_.end()) {
          out.push({Op::Measure, m->second, 0});
          return true;
        }
        if (self.failedMeasures_.count(id.name)) return false;  // already reported
      }
      std::string hint;
      if (self.places_.count(id.name)) hint = "; write '#" + id.name + "' for its token count";
      std::vector<std::string> known = keys(self.parameters_);
      if (context == Context::Measure)
        for (auto& k : keys(self.measures_)) known.push_back(k);
      self.error(id, "unknown parameter '" + id.name + "'" +
                         (hint.empty() ? suggestion(id.name, known) : hint));
      return false;
    }
    bool operator()(const ast::TokenCount& tc) const {
      if (context != Context::Marking) {
        self.error(tc, context == Context::Constant
                           ? "a token count cannot appear here: the value must be a constant"
                           : "a token count in a measure must be inside mean(...) or "
                             "prob(...)");
        return false;
      }
      auto p = self.places_.find(tc.place.name);
      if (p == self.places_.end()) {
        self.error(tc.place, "unknown place '" + tc.place.name + "'" +
                                 suggestion(tc.place.name, keys(self.places_)));
        return false;
      }
      out.push({Op::Tokens, p->second, 0});
      return true;
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

Op binaryOp(const std::string& op) {
  static const std::pair<const char*, Op> table[] = {
      {"+", Op::Add},   {"-", Op::Subtract}, {"*", Op::Multiply},      {"/", Op::Divide},
      {"^", Op::Power}, {"<", Op::Less},     {"<=", Op::LessEqual},    {">", Op::Greater},
      {">=", Op::GreaterEqual},              {"==", Op::Equal},        {"!=", Op::NotEqual},
      {"&&", Op::And},  {"||", Op::Or}};
  for (const auto& [text, code] : table)
    if (op == text) return code;
  throw std::logic_error("unknown operator " + op);
}

bool Lowering::lowerChain(const ast::Chain& chain, Context context, Expression& out) {
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

/// The functions of expressions other than the measure atoms.
struct ArithmeticFunction {
  const char* name;
  Op op;
  std::size_t arity;  // 0: two or more
};
const ArithmeticFunction kArithmetic[] = {{"floor", Op::Floor, 1}, {"ceil", Op::Ceil, 1},
                                          {"abs", Op::Abs, 1},     {"if", Op::If, 3},
                                          {"min", Op::Min, 0},     {"max", Op::Max, 0}};

bool isArithmetic(const std::string& name) {
  return std::any_of(std::begin(kArithmetic), std::end(kArithmetic),
                     [&](const ArithmeticFunction& f) { return name == f.name; });
}

bool Lowering::lowerCall(const ast::Call& call, Context context, Expression& out) {
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
    out.push({s.op, static_cast<std::uint32_t>(n), 0});
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
    auto t = transitions_.find(id->name);
    if (t == transitions_.end()) {
      error(*id, "unknown transition '" + id->name + "'" +
                     suggestion(id->name, keys(transitions_)));
      return false;
    }
    out.push({Op::Throughput, t->second, 0});
    return true;
  }
  error(call.function, unknownName("function", f,
                                   {"min", "max", "floor", "ceil", "abs", "if", "mean", "prob",
                                    "throughput"}));
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
const ast::Identifier* asName(const ast::Expr& e) { return boost::get<ast::Identifier>(&unwrap(e)); }

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

std::optional<double> Lowering::constant(const ast::Expr& e, const char* what) {
  auto x = expression(e, Context::Constant);
  if (!x) return std::nullopt;
  const double v = x->evaluateConstant();
  if (!std::isfinite(v)) {
    error(anchor(e), std::string(what) + " is not a finite number");
    return std::nullopt;
  }
  return v;
}

std::optional<std::uint32_t> Lowering::count(const ast::Expr& e, const char* what,
                                             std::uint32_t least) {
  auto v = constant(e, what);
  if (!v) return std::nullopt;
  if (auto problem = tokenCountProblem(*v, least)) {
    error(anchor(e), std::string(what) + " must be " + *problem);
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(*v);
}

std::optional<gspn::Distribution> Lowering::distribution(const ast::Expr& e) {
  std::vector<const ast::Expr*> terms{&unwrap(e)};
  if (const auto* chain = boost::get<x3::forward_ast<ast::Chain>>(terms[0])) {
    const auto& rest = chain->get().rest;
    if (std::all_of(rest.begin(), rest.end(), [](const auto& o) { return o.op == "+"; })) {
      terms = {&unwrap(chain->get().first)};
      for (const ast::Operation& o : rest) terms.push_back(&unwrap(o.operand));
    }
  }
  const ast::Call* call = nullptr;
  double offset = 0;
  bool ok = true;
  for (const ast::Expr* term : terms) {
    const auto* c = boost::get<x3::forward_ast<ast::Call>>(term);
    if (c && !isArithmetic(c->get().function.name)) {
      if (call) {
        error(c->get().function, "a delay has one distribution; '" + call->function.name +
                                     "' is already given");
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
    error(anchor(e), "a delay is a distribution such as const(2), erlang(3, 2) or "
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

void Lowering::declareParameters() {
  boost::unordered_flat_map<std::string, bool> declared;
  for (const ast::Statement& s : parsed_.file.statements) {
    const auto* p = boost::get<ast::Param>(&s);
    if (!p || !claim(p->name, "parameter")) continue;
    declared[p->name.name] = true;
    auto value = constant(p->value, "a parameter");
    if (auto o = overrides_.find(p->name.name); o != overrides_.end()) value = o->second;
    if (value) parameters_[p->name.name] = *value;
  }
  for (const auto& [name, value] : overrides_)
    if (!declared.count(name))
      diagnostics_.error(0, "-D " + name + ": the net declares no parameter '" + name + "'" +
                                suggestion(name, keys(declared)) +
                                (declared.empty() ? "" : " (its parameters: " +
                                                             join(keys(declared)) + ")"));
}

void Lowering::declarePlaces(gspn::NetBuilder& builder) {
  for (const ast::Statement& s : parsed_.file.statements) {
    const auto* p = boost::get<ast::PlaceDecl>(&s);
    if (!p || !claim(p->name, "place")) continue;
    std::uint32_t initial = 0;
    if (p->initial) {
      // On an error the place is still declared (the net is not built), so that arcs
      // naming it do not report it as unknown.
      auto v = count(*p->initial, "an initial marking", 0);
      initial = v.value_or(0);
    }
    places_[p->name.name] =
        builder.addPlace(p->name.name, initial, p->group.value_or(""));
  }
}

void Lowering::addArcs(gspn::NetBuilder& builder, gspn::TransitionId t,
                       const std::vector<ast::ArcSpec>& arcs, int kind) {
  for (const ast::ArcSpec& a : arcs) {
    auto p = places_.find(a.place.name);
    if (p == places_.end()) {
      error(a.place, "unknown place '" + a.place.name + "'" +
                         suggestion(a.place.name, keys(places_)));
      continue;
    }
    Expression multiplicity = Expression::constant(1);
    if (a.multiplicity) {
      auto m = expression(*a.multiplicity, Context::Marking);
      if (!m) continue;
      multiplicity = std::move(*m);
      if (multiplicity.isConstant()) {
        if (auto problem = tokenCountProblem(multiplicity.evaluateConstant(), 1)) {
          error(anchor(*a.multiplicity), "an arc multiplicity must be " + *problem);
          continue;
        }
      }
    }
    if (kind == 0) builder.addInput(t, p->second, std::move(multiplicity));
    if (kind == 1) builder.addOutput(t, p->second, std::move(multiplicity));
    if (kind == 2) builder.addInhibitor(t, p->second, std::move(multiplicity));
  }
}

void Lowering::declareTransitions(gspn::NetBuilder& builder) {
  for (const ast::Statement& s : parsed_.file.statements) {
    if (const auto* t = boost::get<ast::Timed>(&s)) {
      if (!claim(t->name, "transition")) continue;
      std::optional<gspn::Distribution> delay;
      if (t->timing == "delay" && !(delay = distribution(t->rate))) continue;
      auto rate = delay ? std::optional(Expression::constant(1 / delay->mean()))
                        : expression(t->rate, Context::Marking);
      if (!rate) continue;
      gspn::ServerSemantics servers = gspn::ServerSemantics::Single;
      std::uint32_t serverCount = 1;
      if (t->servers) {
        const ast::Identifier* id = asName(*t->servers);
        if (id && id->name == "infinite" && !parameters_.count("infinite")) {
          servers = gspn::ServerSemantics::Infinite;
        } else if (auto k = count(*t->servers, "a server count", 1)) {
          serverCount = *k;
          servers = *k == 1 ? gspn::ServerSemantics::Single : gspn::ServerSemantics::KServer;
        } else {
          continue;
        }
        if (!rate->isConstant() && servers != gspn::ServerSemantics::Infinite) {
          error(anchor(*t->servers), "a marking-dependent rate takes no server count: write "
                                     "the dependence in the rate expression (or 'servers "
                                     "infinite' to share it among the enabled servers)");
          continue;
        }
      }
      double constantRate = 1.0;
      if (rate->isConstant()) {
        constantRate = rate->evaluateConstant();
        if (!(constantRate > 0) || !std::isfinite(constantRate)) {
          error(anchor(t->rate), "the rate of '" + t->name.name +
                                     "' must be a positive number, not " + show(constantRate));
          continue;
        }
      }
      const auto id = builder.addTimed(t->name.name, constantRate,
                                       t->group.value_or(""), servers,
                                       serverCount);
      if (!rate->isConstant()) builder.setRateExpression(id, std::move(*rate));
      if (delay) builder.setDelay(id, *delay);
      transitions_[t->name.name] = id;
      addArcs(builder, id, t->inputs, 0);
      addArcs(builder, id, t->outputs, 1);
      addArcs(builder, id, t->inhibitors, 2);
    } else if (const auto* u = boost::get<ast::Immediate>(&s)) {
      if (!claim(u->name, "transition")) continue;
      double weight = 1.0;
      std::uint32_t priority = 1;
      if (u->weight) {
        auto w = constant(*u->weight, "a weight");
        if (!w) continue;
        if (!(*w > 0)) {
          error(anchor(*u->weight), "a weight must be positive, not " + show(*w));
          continue;
        }
        weight = *w;
      }
      if (u->priority) {
        auto p = count(*u->priority, "a priority", 1);
        if (!p) continue;
        priority = *p;
      }
      const auto id = builder.addImmediate(u->name.name, weight, priority,
                                           u->group.value_or(""));
      transitions_[u->name.name] = id;
      addArcs(builder, id, u->inputs, 0);
      addArcs(builder, id, u->outputs, 1);
      addArcs(builder, id, u->inhibitors, 2);
    }
  }
}

void Lowering::declareMeasures(gspn::NetBuilder& builder) {
  for (const ast::Statement& s : parsed_.file.statements) {
    const auto* m = boost::get<ast::MeasureDecl>(&s);
    if (!m || !claim(m->name, "measure")) continue;
    auto e = expression(m->value, Context::Measure);
    if (e && e->isConstant() && !std::isfinite(e->evaluateConstant())) {
      error(anchor(m->value), "the measure '" + m->name.name + "' divides by zero (its value is " +
                                  (std::isnan(e->evaluateConstant()) ? "not a number)" : "infinite)"));
      e.reset();
    }
    if (!e) {
      failedMeasures_[m->name.name] = true;
      continue;
    }
    builder.addMeasure(m->name.name, std::move(*e));
    measures_[m->name.name] = static_cast<std::uint32_t>(measures_.size());
  }
}

std::optional<gspn::Net> Lowering::run() {
  std::string name = "net";
  for (const ast::Statement& s : parsed_.file.statements)
    if (const auto* n = boost::get<ast::NetName>(&s)) name = n->name.name;
  gspn::NetBuilder builder(name);
  declareParameters();
  declarePlaces(builder);
  declareTransitions(builder);
  declareMeasures(builder);
  if (diagnostics_.hasErrors()) return std::nullopt;
  try {
    return builder.freeze();
  } catch (const std::invalid_argument& e) {
    diagnostics_.error(0, e.what());
    return std::nullopt;
  }
}

}  // namespace

std::optional<gspn::Net> lowerGspn(const ParsedGspn& parsed, Diagnostics& diagnostics,
                                   const ParameterOverrides& overrides) {
  return Lowering(parsed, diagnostics, overrides).run();
}

std::optional<gspn::Net> loadGspn(const SourceFile& source, Diagnostics& diagnostics,
                                  const ParameterOverrides& overrides) {
  auto parsed = parseGspn(source, diagnostics);
  if (!parsed) return std::nullopt;
  return lowerGspn(*parsed, diagnostics, overrides);
}

}  // namespace mmt::grammar
