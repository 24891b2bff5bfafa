#include "gspn/phases.hpp"

#include <cmath>
#include <optional>

namespace mmt::gspn {
namespace {

using Op = Expression::Op;

/// Why t cannot be expanded exactly, or "" when it can.
std::string obstacle(const Net& net, TransitionId t, const std::vector<int>& takers) {
  const Transition& tr = net.transition(t);
  if (!tr.rateExpression.empty()) return "its rate depends on the marking";
  if (!tr.guard.empty()) return "it has a guard";
  if (tr.servers == ServerSemantics::KServer) return "it has k servers";
  const auto in = net.inputs(t);
  if (in.size() != 1 || in[0].multiplicity != 1 || in[0].expression != Arc::kConstant)
    return "it has more than one input token";
  if (!net.inhibitors(t).empty()) return "it has an inhibitor arc";
  if (takers[in[0].place] > 1) return "another transition takes from its input place";
  return "";
}

/// How many transitions take tokens from each place (an arc that puts the same tokens back
/// does not take): an execution must not be interrupted.
std::vector<int> takersOf(const Net& net) {
  std::vector<int> takers(net.placeCount(), 0);
  for (TransitionId t = 0; t < net.transitionCount(); ++t)
    for (const Arc& a : net.inputs(t)) {
      bool putsBack = false;
      for (const Arc& o : net.outputs(t))
        putsBack |=
            o.place == a.place && o.multiplicity == a.multiplicity && o.expression == a.expression;
      if (!putsBack) ++takers[a.place];
    }
  return takers;
}

/// The phases that replace a declared delay: an Erlang chain (rates per phase) or a
/// two-branch hyperexponential (branch probabilities and rates).
struct Plan {
  TransitionId t;
  std::vector<double> weights;  ///< branch probabilities (one for Erlang)
  std::vector<double> rates;    ///< per branch (H2) or per phase (Erlang)
  bool erlang;
};

/// The plan for t's declared delay, if it is expanded, and in `e` what the report says of
/// it (docs/modelling.md, "Delays as phases"). Erlang(k) with k = ⌈1/c²⌉ (at most
/// maxPhases) keeps the mean of a delay with c² < 1 and reaches c² = 1/k; the
/// hyperexponential with balanced means keeps the mean and c² of one with c² > 1 (Whitt,
/// "Approximating a point process by a renewal process", Oper. Res. 30(1), 1982).
std::optional<Plan> planPhases(const Net& net, TransitionId t, const std::vector<int>& takers,
                               std::uint32_t maxPhases, PhaseExpansion& e) {
  const Transition& tr = net.transition(t);
  const Distribution& d = *tr.declaredDelay;
  e.transition = tr.name;
  e.declared = d.toString();
  const double mean = d.mean();
  e.declaredCv2 = d.variance() / (mean * mean);
  const std::string why = obstacle(net, t, takers);
  if (!why.empty()) {
    e.phases = "exponential (not expanded: " + why + ")";
    return std::nullopt;
  }
  if (std::fabs(e.declaredCv2 - 1) < 1e-12) {
    e.phases = "exponential";
    return std::nullopt;
  }
  Plan plan{t, {}, {}, true};
  if (e.declaredCv2 < 1) {
    const double wanted = e.declaredCv2 > 0 ? std::ceil(1 / e.declaredCv2 - 1e-9) : HUGE_VAL;
    const auto k = static_cast<std::uint32_t>(std::max(1.0, std::min<double>(maxPhases, wanted)));
    if (k == 1) {
      e.phases = "exponential (--max-phases 1)";
      return std::nullopt;
    }
    plan.weights = {1.0};
    plan.rates.assign(k, k / mean);
    e.phases = "erlang(" + std::to_string(k) + ")";
    e.reachedCv2 = 1.0 / k;
  } else {
    const double c2 = e.declaredCv2;
    const double p1 = (1 + std::sqrt((c2 - 1) / (c2 + 1))) / 2, p2 = 1 - p1;
    plan.erlang = false;
    plan.weights = {p1, p2};
    plan.rates = {2 * p1 / mean, 2 * p2 / mean};
    e.phases = "hyperexp(2)";
    e.reachedCv2 = c2;
  }
  e.expanded = true;
  return plan;
}

/// Adds the plan's phases to `b` (a copy of `net` in which plan.t is immediate): a place per
/// phase or branch and one for "done", immediate starts that assign an execution its phases,
/// timed steps through them, and plan.t taking from "done".
void addPhases(NetBuilder& b, const Net& net, const Plan& plan) {
  const Transition& tr = net.transition(plan.t);
  const PlaceId input = net.inputs(plan.t)[0].place;
  const bool single = tr.servers == ServerSemantics::Single;
  const ServerSemantics servers = single ? ServerSemantics::Single : ServerSemantics::Infinite;
  const std::string& g = tr.group;
  const PlaceId done = b.addPlace(tr.name + ".done", 0, g);
  // One place per phase (Erlang) or per branch (H2); every token in them or in `done`
  // is an execution that has been assigned its phases.
  std::vector<PlaceId> stages;
  const std::size_t count = plan.erlang ? plan.rates.size() : plan.weights.size();
  for (std::size_t i = 0; i < count; ++i)
    stages.push_back(b.addPlace(tr.name + ".phase[" + std::to_string(i + 1) + "]", 0, g));
  Expression assigned;
  assigned.push({Op::Tokens, done});
  for (PlaceId s : stages) {
    assigned.push({Op::Tokens, s});
    assigned.push({Op::Add});
  }
  assigned.push({Op::Constant, 0, 1});
  assigned.push({Op::Add});
  const std::size_t starts = plan.erlang ? 1 : 2;
  for (std::size_t j = 0; j < starts; ++j) {
    const TransitionId start =
        b.addImmediate(tr.name + ".start" + (starts > 1 ? "[" + std::to_string(j + 1) + "]" : ""),
                       plan.weights[j], 1, g);
    // Enabled while some token of the input has no phase yet (single server: none has).
    b.addInput(start, input, assigned);
    b.addOutput(start, input, assigned);
    if (single) {
      b.addInhibitor(start, done);
      for (PlaceId s : stages) b.addInhibitor(start, s);
    }
    b.addOutput(start, stages[plan.erlang ? 0 : j]);
  }
  for (std::size_t i = 0; i < count; ++i) {
    const TransitionId step =
        b.addTimed(tr.name + ".step[" + std::to_string(i + 1) + "]", plan.rates[i], g, servers);
    b.addInput(step, stages[i]);
    b.addOutput(step, plan.erlang && i + 1 < count ? stages[i + 1] : done);
  }
  b.addInput(plan.t, done);
}

}  // namespace

PhasedNet expandPhases(const Net& net, std::uint32_t maxPhases) {
  const std::vector<int> takers = takersOf(net);
  std::vector<Plan> plans;
  std::vector<PhaseExpansion> report;
  std::vector<char> immediate(net.transitionCount(), 0);
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    if (!net.transition(t).declaredDelay) continue;
    PhaseExpansion e;
    if (std::optional<Plan> plan = planPhases(net, t, takers, maxPhases, e)) {
      immediate[t] = 1;
      plans.push_back(std::move(*plan));
    }
    report.push_back(std::move(e));
  }
  NetBuilder b = copyNet(net, immediate);
  for (const Plan& plan : plans) addPhases(b, net, plan);
  return {b.freeze(), std::move(report)};
}

}  // namespace mmt::gspn
