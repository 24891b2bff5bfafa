#include "io/net_reader.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gspn/writers.hpp"

namespace mmt::io {
namespace {

namespace ast = grammar::ast;
using gspn::Expression;
using Op = Expression::Op;
using grammar::ExpressionContext;

std::string show(double v) { return gspn::formatNumber(v); }

template <typename Map>
std::vector<std::string> keys(const Map& map) {
  std::vector<std::string> out;
  for (const auto& [k, v] : map) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Site Located::site() const { return {diagnostics, positions->offsetOf(grammar::anchor(*expr))}; }

/// Reads one expression of one file against the names the reader has declared.
class NetReader::Resolver final : public grammar::ExpressionLowering {
 public:
  Resolver(NetReader& reader, const Located& e)
      : ExpressionLowering(*e.positions, *e.diagnostics), reader_(reader) {}

 private:
  bool name(const ast::Identifier& id, Context context, Expression& out) override {
    if (auto p = reader_.parameters_.find(id.name); p != reader_.parameters_.end()) {
      out.push({Op::Constant, 0, p->second});
      return true;
    }
    if (context == Context::Measure) {
      if (auto m = reader_.measures_.find(id.name); m != reader_.measures_.end()) {
        out.push({Op::Measure, m->second, 0});
        return true;
      }
      if (reader_.failedMeasures_.count(id.name)) return false;  // already reported
    }
    // A parameter whose value failed is reported where it is declared.
    if (reader_.declaredParameters_.count(id.name)) return false;
    std::string hint;
    if (reader_.places_.count(id.name)) hint = "; write '#" + id.name + "' for its token count";
    std::vector<std::string> known = keys(reader_.parameters_);
    if (context == Context::Measure)
      for (auto& k : keys(reader_.measures_)) known.push_back(k);
    error(id, "unknown parameter '" + id.name + "'" +
                  (hint.empty() ? grammar::suggestion(id.name, known) : hint));
    return false;
  }

  bool tokenCount(const ast::TokenCount& tc, Expression& out) override {
    auto p = reader_.places_.find(tc.place.name);
    if (p == reader_.places_.end()) {
      error(tc.place, "unknown place '" + tc.place.name + "'" +
                          grammar::suggestion(tc.place.name, keys(reader_.places_)));
      return false;
    }
    out.push({Op::Tokens, p->second, 0});
    return true;
  }

  bool throughput(const ast::Identifier& id, Expression& out) override {
    auto t = reader_.transitions_.find(id.name);
    if (t == reader_.transitions_.end()) {
      error(id, "unknown transition '" + id.name + "'" +
                    grammar::suggestion(id.name, keys(reader_.transitions_)));
      return false;
    }
    out.push({Op::Throughput, t->second, 0});
    return true;
  }

  NetReader& reader_;
};

NetReader::NetReader(std::string netName, const ParameterOverrides& overrides, Diagnostics& main)
    : builder_(std::move(netName)), overrides_(overrides), main_(main) {
  watch(&main);
}

void NetReader::watch(Diagnostics* d) {
  if (std::find(files_.begin(), files_.end(), d) == files_.end()) files_.push_back(d);
}

bool NetReader::anyErrors() const {
  return std::any_of(files_.begin(), files_.end(),
                     [](const Diagnostics* d) { return d->hasErrors(); });
}

bool NetReader::claim(const std::string& name, const char* kind, Site at) {
  watch(at.diagnostics);
  // mmt's text format, which every net can be written in, quotes names: a double quote
  // or a line break cannot be written there.
  if (name.empty() || name.find_first_of("\"\r\n") != std::string::npos) {
    at.diagnostics->error(at.offset, name.empty() ? "an element has an empty name"
                                                  : "the name '" + name +
                                                        "' contains a double quote or a line "
                                                        "break, which mmt's nets cannot hold");
    return false;
  }
  auto [it, fresh] = declared_.emplace(name, kind);
  if (!fresh)
    at.diagnostics->error(at.offset, "'" + name + "' is already declared as a " + it->second);
  return fresh;
}

void NetReader::parameter(const std::string& name, Site at, const Located& value) {
  if (!claim(name, "parameter", at)) return;
  declaredParameters_[name] = true;
  if (auto o = overrides_.find(name); o != overrides_.end()) {
    parameters_[name] = o->second;
    return;
  }
  if (auto v = constant(value, "a parameter")) parameters_[name] = *v;
}

void NetReader::parameter(const std::string& name, Site at, double value) {
  if (!claim(name, "parameter", at)) return;
  declaredParameters_[name] = true;
  auto o = overrides_.find(name);
  parameters_[name] = o != overrides_.end() ? o->second : value;
}

void NetReader::endParameters() {
  for (const auto& [name, value] : overrides_) {
    if (declaredParameters_.count(name)) continue;
    const auto known = keys(declaredParameters_);
    main_.error(0, "-D " + name + ": the net declares no parameter '" + name + "'" +
                       grammar::suggestion(name, known) +
                       (known.empty() ? "" : " (its parameters: " + grammar::join(known) + ")"));
  }
}

std::optional<double> NetReader::parameterValue(const std::string& name) const {
  auto p = parameters_.find(name);
  if (p == parameters_.end()) return std::nullopt;
  return p->second;
}

void NetReader::place(const std::string& name, Site at, gspn::Tokens initial, std::string group) {
  if (!claim(name, "place", at)) return;
  places_[name] = builder_.addPlace(name, initial, std::move(group));
}

void NetReader::place(const std::string& name, Site at, const Located& initial, std::string group) {
  if (!claim(name, "place", at)) return;
  // On an error the place is still declared (the net is not built), so that arcs naming
  // it do not report it as unknown.
  const auto v = count(initial, "an initial marking", 0);
  places_[name] = builder_.addPlace(name, v.value_or(0), std::move(group));
}

std::optional<Expression> NetReader::marking(const Located& e) {
  watch(e.diagnostics);
  return Resolver(*this, e).expression(*e.expr, ExpressionContext::Marking);
}

std::optional<double> NetReader::constant(const Located& e, const std::string& what) {
  watch(e.diagnostics);
  return Resolver(*this, e).constant(*e.expr, what);
}

std::optional<std::uint32_t> NetReader::count(const Located& e, const std::string& what,
                                              std::uint32_t least) {
  watch(e.diagnostics);
  return Resolver(*this, e).count(*e.expr, what, least);
}

std::optional<gspn::Distribution> NetReader::distribution(const Located& e) {
  watch(e.diagnostics);
  return Resolver(*this, e).distribution(*e.expr);
}

std::optional<gspn::TransitionId> NetReader::timed(const std::string& name, Site at,
                                                   const Expression& rate, Site rateAt,
                                                   const Servers& servers, std::string group) {
  if (!claim(name, "transition", at)) return std::nullopt;
  watch(rateAt.diagnostics);
  if (!rate.isConstant() && servers.at && servers.semantics != gspn::ServerSemantics::Infinite) {
    const Site s = *servers.at;
    s.diagnostics->error(s.offset,
                         "a marking-dependent rate takes no server count: write the "
                         "dependence in the rate expression (or 'servers infinite' "
                         "to share it among the enabled servers)");
    return std::nullopt;
  }
  double constantRate = 1.0;
  if (rate.isConstant()) {
    constantRate = rate.evaluateConstant();
    if (!(constantRate > 0) || !std::isfinite(constantRate)) {
      rateAt.diagnostics->error(
          rateAt.offset,
          "the rate of '" + name + "' must be a positive number, not " + show(constantRate));
      return std::nullopt;
    }
  }
  // A marking-dependent rate ignores k servers; with 'servers infinite' it is shared.
  const auto semantics = rate.isConstant() || servers.semantics == gspn::ServerSemantics::Infinite
                             ? servers.semantics
                             : gspn::ServerSemantics::Single;
  const auto id = builder_.addTimed(name, constantRate, std::move(group), semantics,
                                    rate.isConstant() ? servers.count : 1);
  if (!rate.isConstant()) builder_.setRateExpression(id, rate);
  transitions_[name] = id;
  return id;
}

std::optional<gspn::TransitionId> NetReader::timed(const std::string& name, Site at,
                                                   const gspn::Distribution& delay,
                                                   const Servers& servers, std::string group) {
  const auto id =
      timed(name, at, Expression::constant(1 / delay.mean()), at, servers, std::move(group));
  if (id) builder_.setDelay(*id, delay);
  return id;
}

std::optional<gspn::TransitionId> NetReader::immediate(const std::string& name, Site at,
                                                       double weight, Site weightAt,
                                                       std::uint32_t priority, std::string group) {
  if (!claim(name, "transition", at)) return std::nullopt;
  watch(weightAt.diagnostics);
  if (!(weight > 0) || !std::isfinite(weight)) {
    weightAt.diagnostics->error(weightAt.offset, "a weight must be positive, not " + show(weight));
    return std::nullopt;
  }
  const auto id = builder_.addImmediate(name, weight, priority, std::move(group));
  transitions_[name] = id;
  return id;
}

void NetReader::guard(gspn::TransitionId transition, const Expression& guard, Site at) {
  watch(at.diagnostics);
  if (guard.isConstant()) {
    const double v = guard.evaluateConstant();
    if (std::isnan(v)) {
      at.diagnostics->error(at.offset, "a guard must be a number (0 is false), not NaN");
      return;
    }
    if (v != 0) return;
    at.diagnostics->warning(at.offset, "this guard is always false: the transition never fires");
  }
  builder_.setGuard(transition, guard);
}

void NetReader::arc(ArcKind kind, gspn::TransitionId transition, const std::string& place, Site at,
                    const Expression& multiplicity, Site multiplicityAt) {
  watch(at.diagnostics);
  auto p = places_.find(place);
  if (p == places_.end()) {
    at.diagnostics->error(
        at.offset, "unknown place '" + place + "'" + grammar::suggestion(place, keys(places_)));
    return;
  }
  if (multiplicity.isConstant()) {
    if (auto problem = grammar::tokenCountProblem(multiplicity.evaluateConstant(), 1)) {
      multiplicityAt.diagnostics->error(multiplicityAt.offset,
                                        "an arc multiplicity must be " + *problem);
      return;
    }
    const auto m = static_cast<std::uint32_t>(multiplicity.evaluateConstant());
    if (kind == ArcKind::Input) builder_.addInput(transition, p->second, m);
    if (kind == ArcKind::Output) builder_.addOutput(transition, p->second, m);
    if (kind == ArcKind::Inhibitor) builder_.addInhibitor(transition, p->second, m);
    return;
  }
  if (kind == ArcKind::Input) builder_.addInput(transition, p->second, multiplicity);
  if (kind == ArcKind::Output) builder_.addOutput(transition, p->second, multiplicity);
  if (kind == ArcKind::Inhibitor) builder_.addInhibitor(transition, p->second, multiplicity);
}

void NetReader::measure(const std::string& name, Site at, const Located& value) {
  if (!claim(name, "measure", at)) return;
  watch(value.diagnostics);
  auto e = Resolver(*this, value).expression(*value.expr, ExpressionContext::Measure);
  if (e && e->isConstant() && !std::isfinite(e->evaluateConstant())) {
    const Site s = value.site();
    s.diagnostics->error(s.offset,
                         "the measure '" + name + "' divides by zero (its value is " +
                             (std::isnan(e->evaluateConstant()) ? "not a number)" : "infinite)"));
    e.reset();
  }
  if (!e) {
    failedMeasures_[name] = true;
    return;
  }
  builder_.addMeasure(name, std::move(*e));
  measures_[name] = static_cast<std::uint32_t>(measures_.size());
}

std::optional<gspn::Net> NetReader::finish() {
  if (anyErrors()) return std::nullopt;
  try {
    return builder_.freeze();
  } catch (const std::invalid_argument& e) {
    main_.error(0, e.what());
    return std::nullopt;
  }
}

}  // namespace mmt::io
