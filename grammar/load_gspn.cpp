#include "grammar/load_gspn.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <boost/unordered/unordered_flat_map.hpp>

#include "grammar/expressions.hpp"
#include "gspn/writers.hpp"

namespace mmt::grammar {
namespace {

namespace ast = gspn_ast;

using gspn::Expression;
using Op = Expression::Op;

std::string show(double v) { return gspn::formatNumber(v); }

class Lowering final : public ExpressionLowering {
 public:
  Lowering(const ParsedGspn& parsed, Diagnostics& diagnostics,
           const ParameterOverrides& overrides)
      : ExpressionLowering(parsed.positions, diagnostics), parsed_(parsed),
        diagnostics_(diagnostics), overrides_(overrides) {}

  std::optional<gspn::Net> run();

 private:
  std::size_t at(const x3::position_tagged& node) const {
    return parsed_.positions.offsetOf(node);
  }

  bool name(const ast::Identifier& id, Context context, Expression& out) override;
  bool tokenCount(const ast::TokenCount& count, Expression& out) override;
  bool throughput(const ast::Identifier& transition, Expression& out) override;

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

bool Lowering::name(const ast::Identifier& id, Context context, Expression& out) {
  if (auto p = parameters_.find(id.name); p != parameters_.end()) {
    out.push({Op::Constant, 0, p->second});
    return true;
  }
  if (context == Context::Measure) {
    if (auto m = measures_.find(id.name); m != measures_.end()) {
      out.push({Op::Measure, m->second, 0});
      return true;
    }
    if (failedMeasures_.count(id.name)) return false;  // already reported
  }
  std::string hint;
  if (places_.count(id.name)) hint = "; write '#" + id.name + "' for its token count";
  std::vector<std::string> known = keys(parameters_);
  if (context == Context::Measure)
    for (auto& k : keys(measures_)) known.push_back(k);
  error(id, "unknown parameter '" + id.name + "'" + (hint.empty() ? suggestion(id.name, known) : hint));
  return false;
}

bool Lowering::tokenCount(const ast::TokenCount& tc, Expression& out) {
  auto p = places_.find(tc.place.name);
  if (p == places_.end()) {
    error(tc.place, "unknown place '" + tc.place.name + "'" +
                        suggestion(tc.place.name, keys(places_)));
    return false;
  }
  out.push({Op::Tokens, p->second, 0});
  return true;
}

bool Lowering::throughput(const ast::Identifier& id, Expression& out) {
  auto t = transitions_.find(id.name);
  if (t == transitions_.end()) {
    error(id, "unknown transition '" + id.name + "'" + suggestion(id.name, keys(transitions_)));
    return false;
  }
  out.push({Op::Throughput, t->second, 0});
  return true;
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
