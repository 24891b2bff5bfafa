#include "gspn/net.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mmt::gspn {

PlaceId NetBuilder::addPlace(std::string name, Tokens initial, std::string group) {
  places_.push_back(Place{std::move(name), initial, std::move(group)});
  return static_cast<PlaceId>(places_.size() - 1);
}

TransitionId NetBuilder::addTimed(std::string name, double rate, std::string group,
                                  ServerSemantics servers, std::uint32_t serverCount) {
  Transition t;
  t.name = std::move(name);
  t.kind = TransitionKind::Timed;
  t.rate = rate;
  t.servers = servers;
  t.serverCount = serverCount;
  t.group = std::move(group);
  transitions_.push_back(std::move(t));
  return static_cast<TransitionId>(transitions_.size() - 1);
}

TransitionId NetBuilder::addImmediate(std::string name, double weight, std::uint32_t priority,
                                      std::string group) {
  Transition t;
  t.name = std::move(name);
  t.kind = TransitionKind::Immediate;
  t.weight = weight;
  t.priority = priority;
  t.group = std::move(group);
  transitions_.push_back(std::move(t));
  return static_cast<TransitionId>(transitions_.size() - 1);
}

void NetBuilder::addInput(TransitionId t, PlaceId p, std::uint32_t multiplicity) {
  inputs_.push_back({t, p, multiplicity, Arc::kConstant});
}
void NetBuilder::addOutput(TransitionId t, PlaceId p, std::uint32_t multiplicity) {
  outputs_.push_back({t, p, multiplicity, Arc::kConstant});
}
void NetBuilder::addInhibitor(TransitionId t, PlaceId p, std::uint32_t multiplicity) {
  inhibitors_.push_back({t, p, multiplicity, Arc::kConstant});
}

namespace {
/// A constant multiplicity expression becomes a plain multiplicity.
template <typename Pending>
Pending makeArc(TransitionId t, PlaceId p, Expression e, std::vector<Expression>& table) {
  if (e.isConstant()) {
    const double v = e.evaluateConstant();
    if (!(v >= 1) || v != std::floor(v) || v > 4e9)
      throw std::invalid_argument("arc multiplicity " + std::to_string(v) +
                                  " is not a positive integer");
    return {t, p, static_cast<std::uint32_t>(v), Arc::kConstant};
  }
  table.push_back(std::move(e));
  return {t, p, 1, static_cast<std::uint32_t>(table.size() - 1)};
}
}  // namespace

void NetBuilder::addInput(TransitionId t, PlaceId p, Expression multiplicity) {
  inputs_.push_back(makeArc<PendingArc>(t, p, std::move(multiplicity), arcExpressions_));
}
void NetBuilder::addOutput(TransitionId t, PlaceId p, Expression multiplicity) {
  outputs_.push_back(makeArc<PendingArc>(t, p, std::move(multiplicity), arcExpressions_));
}
void NetBuilder::addInhibitor(TransitionId t, PlaceId p, Expression multiplicity) {
  inhibitors_.push_back(makeArc<PendingArc>(t, p, std::move(multiplicity), arcExpressions_));
}

void NetBuilder::setGuard(TransitionId t, Expression guard) {
  if (t >= transitions_.size()) throw std::out_of_range("setGuard: no such transition");
  if (guard.hasMeasureAtoms())
    throw std::invalid_argument("the guard of '" + transitions_[t].name +
                                "' reads a measure; a guard reads the marking");
  transitions_[t].guard = std::move(guard);
}

void NetBuilder::setRateExpression(TransitionId t, Expression rate) {
  if (rate.isConstant()) {
    transitions_.at(t).rate = rate.evaluateConstant();
    transitions_.at(t).rateExpression = {};
  } else {
    transitions_.at(t).rateExpression = std::move(rate);
  }
}

void NetBuilder::setDelay(TransitionId t, const Distribution& delay) {
  Transition& tr = transitions_.at(t);
  tr.rate = 1.0 / delay.mean();
  tr.declaredDelay.reset();
  if (!delay.isExponential()) tr.declaredDelay = delay;
}

void NetBuilder::addMeasure(std::string name, Expression expression) {
  measures_.push_back({std::move(name), std::move(expression)});
}

Net NetBuilder::freeze() const {
  Net net;
  net.name_ = name_;
  net.unfolded_ = unfolded_;
  net.bindingsTried_ = bindingsTried_;
  net.bindingsKept_ = bindingsKept_;
  net.declared_ = declared_;
  net.places_ = places_;
  net.transitions_ = transitions_;
  net.arcExpressions_ = arcExpressions_;
  net.measures_ = measures_;
  net.markingDependentArcs_.assign(transitions_.size(), 0);

  for (PlaceId p = 0; p < places_.size(); ++p)
    if (!net.placeIndex_.emplace(places_[p].name, p).second)
      throw std::invalid_argument("duplicate place name '" + places_[p].name + "'");
  for (TransitionId t = 0; t < transitions_.size(); ++t) {
    const Transition& tr = transitions_[t];
    if (!net.transitionIndex_.emplace(tr.name, t).second)
      throw std::invalid_argument("duplicate transition name '" + tr.name + "'");
    if (tr.kind == TransitionKind::Timed) {
      if (tr.rateExpression.empty() && (!(tr.rate > 0) || !std::isfinite(tr.rate)))
        throw std::invalid_argument("timed transition '" + tr.name +
                                    "' needs a positive finite rate");
      if (tr.declaredDelay && !tr.rateExpression.empty())
        throw std::invalid_argument("timed transition '" + tr.name +
                                    "' cannot have both a declared delay and a rate expression");
      if (tr.servers == ServerSemantics::KServer && tr.serverCount == 0)
        throw std::invalid_argument("transition '" + tr.name + "' needs at least one server");
      net.timed_.push_back(t);
    } else {
      if (!(tr.weight > 0) || !std::isfinite(tr.weight))
        throw std::invalid_argument("immediate transition '" + tr.name +
                                    "' needs a positive finite weight");
      if (tr.priority < 1)
        throw std::invalid_argument("immediate transition '" + tr.name +
                                    "' needs a priority of at least 1");
      net.immediate_.push_back(t);
    }
  }

  auto build = [&](const std::vector<PendingArc>& pending, Net::ArcTable& table, const char* kind) {
    std::vector<PendingArc> sorted = pending;
    std::sort(sorted.begin(), sorted.end(), [](const PendingArc& a, const PendingArc& b) {
      return a.transition != b.transition ? a.transition < b.transition : a.place < b.place;
    });
    table.offset.assign(transitions_.size() + 1, 0);
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      const PendingArc& a = sorted[i];
      if (a.transition >= transitions_.size() || a.place >= places_.size())
        throw std::invalid_argument(std::string(kind) + " arc refers to an unknown handle");
      if (a.multiplicity == 0)
        throw std::invalid_argument(std::string(kind) + " arc of '" +
                                    transitions_[a.transition].name + "' has multiplicity 0");
      if (a.expression != Arc::kConstant) net.markingDependentArcs_[a.transition] = 1;
      // Two arcs between the same pair merge: their multiplicities add up.
      if (i > 0 && sorted[i - 1].transition == a.transition && sorted[i - 1].place == a.place) {
        if (a.expression != Arc::kConstant || sorted[i - 1].expression != Arc::kConstant)
          throw std::invalid_argument(
              std::string("two ") + kind + " arcs join '" + places_[a.place].name + "' and '" +
              transitions_[a.transition].name + "' and one is marking-dependent: write one arc");
        table.arcs.back().multiplicity += a.multiplicity;
      } else {
        table.arcs.push_back({a.place, a.multiplicity, a.expression});
      }
      table.offset[a.transition + 1] = static_cast<std::uint32_t>(table.arcs.size());
    }
    // Transitions without arcs of this kind inherit the previous end offset.
    for (std::size_t t = 1; t <= transitions_.size(); ++t)
      table.offset[t] = std::max(table.offset[t], table.offset[t - 1]);
  };
  build(inputs_, net.inputs_, "input");
  build(outputs_, net.outputs_, "output");
  build(inhibitors_, net.inhibitors_, "inhibitor");
  net.markingDependentEnabling_ = net.markingDependentArcs_;
  for (TransitionId t = 0; t < transitions_.size(); ++t)
    if (!transitions_[t].guard.empty()) net.markingDependentEnabling_[t] = 1;
  return net;
}

std::vector<Tokens> Net::initialMarking() const {
  std::vector<Tokens> m(places_.size());
  for (PlaceId p = 0; p < places_.size(); ++p) m[p] = places_[p].initial;
  return m;
}

std::uint32_t Net::evaluateMultiplicity(const Arc& a, MarkingView m) const {
  const double v = arcExpressions_[a.expression].evaluate(m);
  if (!(v >= 0) || v != std::floor(v) || v > 4e9)
    throw std::domain_error("the multiplicity of an arc on place '" + places_[a.place].name +
                            "' is " + std::to_string(v) + ", not a non-negative integer, in " +
                            describe(m));
  return static_cast<std::uint32_t>(v);
}

bool Net::isEnabledMarkingDependent(TransitionId t, MarkingView m) const {
  for (const Arc& a : inputs(t)) {
    const std::uint32_t k = multiplicity(a, m);
    if (k == 0 || m[a.place] < k) return false;
  }
  for (const Arc& a : inhibitors(t)) {
    const std::uint32_t k = multiplicity(a, m);
    if (k != 0 && m[a.place] >= k) return false;
  }
  const Expression& guard = transitions_[t].guard;
  if (guard.empty()) return true;
  const double v = guard.evaluate(m);
  if (std::isnan(v))
    throw std::domain_error("the guard of '" + transitions_[t].name + "' is not a number in " +
                            describe(m));
  return v != 0;
}

std::uint32_t Net::enablingDegree(TransitionId t, MarkingView m) const {
  if (!isEnabled(t, m)) return 0;
  std::uint32_t degree = std::numeric_limits<std::uint32_t>::max();
  for (const Arc& a : inputs(t)) degree = std::min(degree, m[a.place] / multiplicity(a, m));
  return inputs(t).empty() ? 1 : degree;
}

double Net::rate(TransitionId t, MarkingView m) const {
  const Transition& tr = transitions_[t];
  if (!tr.rateExpression.empty()) {
    if (!isEnabled(t, m)) return 0.0;
    const double v = tr.rateExpression.evaluate(m);
    if (!(v >= 0) || !std::isfinite(v))
      throw std::domain_error("the rate of '" + tr.name + "' is " + std::to_string(v) +
                              ", not a non-negative number, in " + describe(m));
    return v;
  }
  switch (tr.servers) {
    case ServerSemantics::Single:
      return isEnabled(t, m) ? tr.rate : 0.0;
    case ServerSemantics::Infinite:
      return tr.rate * enablingDegree(t, m);
    case ServerSemantics::KServer:
      return tr.rate * std::min(tr.serverCount, enablingDegree(t, m));
  }
  return 0.0;
}

void Net::fire(TransitionId t, MarkingView from, std::span<Tokens> to) const {
  if (markingDependentArcs_[t]) {
    // Multiplicities are read in the marking before the firing: keep a copy only when
    // `to` overwrites `from`.
    std::vector<Tokens> copy;
    if (to.data() == from.data()) {
      copy.assign(from.begin(), from.end());
      from = copy;
    } else {
      std::copy(from.begin(), from.end(), to.begin());
    }
    for (const Arc& a : inputs(t)) to[a.place] -= multiplicity(a, from);
    for (const Arc& a : outputs(t)) addTokens(t, a.place, multiplicity(a, from), from, to);
    return;
  }
  if (to.data() != from.data()) std::copy(from.begin(), from.end(), to.begin());
  for (const Arc& a : inputs(t)) to[a.place] -= a.multiplicity;
  for (const Arc& a : outputs(t)) addTokens(t, a.place, a.multiplicity, from, to);
}

void Net::addTokens(TransitionId t, PlaceId p, Tokens count, MarkingView from,
                    std::span<Tokens> to) const {
  if (to[p] > std::numeric_limits<Tokens>::max() - count)
    throw std::domain_error("place '" + places_[p].name + "' would hold more than " +
                            std::to_string(std::numeric_limits<Tokens>::max()) + " tokens after '" +
                            transitions_[t].name + "' fires in {" + describe(from) +
                            "}: the net may be unbounded");
  to[p] += count;
}

std::optional<PlaceId> Net::findPlace(std::string_view name) const {
  auto it = placeIndex_.find(std::string(name));
  if (it == placeIndex_.end()) return std::nullopt;
  return it->second;
}

std::optional<TransitionId> Net::findTransition(std::string_view name) const {
  auto it = transitionIndex_.find(std::string(name));
  if (it == transitionIndex_.end()) return std::nullopt;
  return it->second;
}

std::string Net::describe(MarkingView m) const {
  // A message names a marking, it does not list a large net: the marked places up to a
  // few hundred characters, then how many more there are.
  constexpr std::size_t kLongest = 400;
  std::string out;
  std::size_t more = 0;
  for (PlaceId p = 0; p < m.size(); ++p) {
    if (m[p] == 0) continue;
    if (out.size() > kLongest) {
      ++more;
      continue;
    }
    if (!out.empty()) out += ", ";
    out += places_[p].name + "=" + std::to_string(m[p]);
  }
  if (more > 0) out += ", … (" + std::to_string(more) + " more marked places)";
  return out.empty() ? "(empty marking)" : out;
}

void copyArcs(const Net& net, TransitionId from, NetBuilder& b, TransitionId to) {
  const auto add = [&](std::span<const Arc> arcs, int kind) {
    for (const Arc& a : arcs) {
      if (a.expression != Arc::kConstant) {
        const Expression& e = net.arcExpressions()[a.expression];
        if (kind == 0)
          b.addInput(to, a.place, e);
        else if (kind == 1)
          b.addOutput(to, a.place, e);
        else
          b.addInhibitor(to, a.place, e);
      } else if (kind == 0) {
        b.addInput(to, a.place, a.multiplicity);
      } else if (kind == 1) {
        b.addOutput(to, a.place, a.multiplicity);
      } else {
        b.addInhibitor(to, a.place, a.multiplicity);
      }
    }
  };
  add(net.inputs(from), 0);
  add(net.outputs(from), 1);
  add(net.inhibitors(from), 2);
}

NetBuilder copyNet(const Net& net, const std::vector<char>& asImmediate) {
  NetBuilder b(net.name());
  if (net.unfolded()) b.setUnfolded(net.bindingsTried(), net.bindingsKept());
  b.declareSymmetry(net.declaredSymmetry());
  for (const Place& p : net.places()) b.addPlace(p.name, p.initial, p.group);
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    const Transition& tr = net.transition(t);
    const bool immediate = tr.kind == TransitionKind::Immediate;
    if (immediate || (!asImmediate.empty() && asImmediate[t])) {
      b.addImmediate(tr.name, immediate ? tr.weight : 1.0, immediate ? tr.priority : 1, tr.group);
      continue;
    }
    b.addTimed(tr.name, tr.rate, tr.group, tr.servers, tr.serverCount);
    if (tr.declaredDelay) b.setDelay(t, *tr.declaredDelay);
    if (!tr.rateExpression.empty()) b.setRateExpression(t, tr.rateExpression);
  }
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    if (!net.transition(t).guard.empty()) b.setGuard(t, net.transition(t).guard);
    copyArcs(net, t, b, t);
  }
  for (const Measure& m : net.measures()) b.addMeasure(m.name, m.expression);
  return b;
}

Net withConstantDelays(const Net& net) {
  NetBuilder b = copyNet(net);
  for (TransitionId t : net.timedTransitions()) {
    const Transition& tr = net.transition(t);
    if (!tr.rateExpression.empty())
      throw std::invalid_argument("'" + tr.name +
                                  "' has a marking-dependent rate: its constant delay has no "
                                  "one value");
    b.setDelay(t,
               Distribution::constant(tr.declaredDelay ? tr.declaredDelay->mean() : 1 / tr.rate));
  }
  return b.freeze();
}

}  // namespace mmt::gspn
