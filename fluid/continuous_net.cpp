#include "fluid/continuous_net.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace mmt::fluid {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Why transition t has no flow of the form λ·min(k, e(x)), or "" when it has one.
std::string unsupported(const gspn::Net& net, gspn::TransitionId t) {
  const gspn::Transition& tr = net.transition(t);
  if (!net.inhibitors(t).empty())
    return "has an inhibitor arc (on " + net.place(net.inhibitors(t)[0].place).name +
           "), which no continuous flow reads";
  if (!tr.guard.empty()) return "has a guard, which no continuous flow reads";
  if (net.hasMarkingDependentArcs(t)) return "has an arc whose multiplicity depends on the marking";
  if (!tr.rateExpression.empty()) return "has a marking-dependent rate";
  return "";
}

/// Input places with their multiplicities, as a map for comparing two transitions' inputs.
std::map<gspn::PlaceId, std::uint32_t> inputSet(const gspn::Net& net, gspn::TransitionId t) {
  std::map<gspn::PlaceId, std::uint32_t> out;
  for (const gspn::Arc& a : net.inputs(t)) out[a.place] += a.multiplicity;
  return out;
}

/// Throws UnsupportedNet when two transitions share an input place of an immediate
/// transition and are not both immediate with the same inputs and priority.
void checkFreeChoice(const gspn::Net& net) {
  std::vector<std::vector<gspn::TransitionId>> consumers(net.placeCount());
  for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t)
    for (const gspn::Arc& a : net.inputs(t)) consumers[a.place].push_back(t);
  for (gspn::TransitionId t : net.immediateTransitions()) {
    const auto inputs = inputSet(net, t);
    if (inputs.empty())
      throw UnsupportedNet(net.transition(t).name,
                           "immediate transition " + net.transition(t).name +
                               " has no input place: it would fire without end in zero time");
    for (const auto& [place, multiplicity] : inputs)
      for (gspn::TransitionId u : consumers[place]) {
        if (u == t) continue;
        const bool same = net.isImmediate(u) && inputSet(net, u) == inputs &&
                          net.transition(u).priority == net.transition(t).priority;
        if (same) continue;
        throw UnsupportedNet(
            net.transition(t).name,
            "immediate transition " + net.transition(t).name + " shares input place " +
                net.place(place).name + " with " + net.transition(u).name +
                (net.isImmediate(u) ? ", which has other input arcs or another priority"
                                    : ", a timed transition") +
                ": the fluid approximation splits a conflict only among immediate "
                "transitions with the same input arcs and priority (a free choice); solve "
                "the net exactly or simulate it");
      }
  }
}

}  // namespace

std::pair<double, double> timedRateRange(const gspn::Net& net) {
  if (net.timedTransitions().empty()) return {0, 0};
  double slowest = kInfinity, fastest = 0;
  for (gspn::TransitionId t : net.timedTransitions()) {
    fastest = std::max(fastest, net.transition(t).rate);
    slowest = std::min(slowest, net.transition(t).rate);
  }
  return {slowest, fastest};
}

ContinuousNet::ContinuousNet(const gspn::Net& net, double immediateSpeed) {
  if (net.timedTransitions().empty())
    throw UnsupportedNet(net.name(), "the net has no timed transition: nothing flows in time");
  for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t)
    if (std::string why = unsupported(net, t); !why.empty())
      throw UnsupportedNet(net.transition(t).name,
                           "transition " + net.transition(t).name + " " + why +
                               ": the fluid approximation reads flows that depend on the "
                               "marking through constant input arcs only; solve the net "
                               "exactly or simulate it");
  checkFreeChoice(net);

  std::tie(slowestRate_, fastestRate_) = timedRateRange(net);
  hasImmediate_ = !net.immediateTransitions().empty();

  const std::size_t places = net.placeCount();
  initial_.resize(static_cast<Eigen::Index>(places));
  for (gspn::PlaceId p = 0; p < places; ++p) initial_[p] = net.place(p).initial;

  std::vector<Eigen::Triplet<double>> entries;
  flows_.reserve(net.transitionCount());
  for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t) {
    const gspn::Transition& tr = net.transition(t);
    Flow flow;
    flow.name = tr.name;
    if (net.isImmediate(t)) {
      flow.speed = immediateSpeed * fastestRate_ * tr.weight;
      flow.servers = kInfinity;
      flow.immediate = true;
    } else {
      flow.speed = tr.rate;
      flow.servers = tr.servers == gspn::ServerSemantics::Infinite ? kInfinity
                     : tr.servers == gspn::ServerSemantics::KServer
                         ? static_cast<double>(tr.serverCount)
                         : 1.0;
    }
    for (const auto& [place, multiplicity] : inputSet(net, t)) {
      flow.inputs.push_back({place, static_cast<double>(multiplicity)});
      entries.emplace_back(place, t, -static_cast<double>(multiplicity));
    }
    for (const gspn::Arc& a : net.outputs(t)) entries.emplace_back(a.place, t, a.multiplicity);
    flows_.push_back(std::move(flow));
  }
  incidence_.resize(static_cast<Eigen::Index>(places),
                    static_cast<Eigen::Index>(net.transitionCount()));
  incidence_.setFromTriplets(entries.begin(), entries.end());
  incidence_.prune(0.0);
}

std::pair<double, int> ContinuousNet::enabling(const Flow& flow, const Eigen::VectorXd& x) {
  if (flow.inputs.empty()) return {1.0, -1};
  double least = kInfinity;
  int at = -1;
  for (std::size_t i = 0; i < flow.inputs.size(); ++i) {
    const double ratio = std::max(0.0, x[flow.inputs[i].place]) / flow.inputs[i].multiplicity;
    if (ratio < least) {
      least = ratio;
      at = static_cast<int>(i);
    }
  }
  return {least, at};
}

Eigen::VectorXd ContinuousNet::flows(const Eigen::VectorXd& x) const {
  Eigen::VectorXd f(static_cast<Eigen::Index>(flows_.size()));
  for (std::size_t t = 0; t < flows_.size(); ++t) {
    const Flow& flow = flows_[t];
    f[static_cast<Eigen::Index>(t)] = flow.speed * std::min(flow.servers, enabling(flow, x).first);
  }
  return f;
}

Eigen::MatrixXd ContinuousNet::jacobian(const Eigen::VectorXd& x) const {
  const auto places = static_cast<Eigen::Index>(placeCount());
  // ∂f/∂x, transitions × places: one entry per transition below its server bound.
  Eigen::SparseMatrix<double> flowDerivative(static_cast<Eigen::Index>(flows_.size()), places);
  std::vector<Eigen::Triplet<double>> entries;
  for (std::size_t t = 0; t < flows_.size(); ++t) {
    const Flow& flow = flows_[t];
    const auto [least, at] = enabling(flow, x);
    if (at < 0 || least >= flow.servers || x[flow.inputs[at].place] < 0) continue;
    entries.emplace_back(static_cast<Eigen::Index>(t), flow.inputs[at].place,
                         flow.speed / flow.inputs[at].multiplicity);
  }
  flowDerivative.setFromTriplets(entries.begin(), entries.end());
  return Eigen::MatrixXd(incidence_ * flowDerivative);
}

std::vector<std::string> ContinuousNet::kinks(const Eigen::VectorXd& x, double relative) const {
  std::vector<std::string> out;
  for (const Flow& flow : flows_) {
    if (flow.immediate) continue;
    const auto [least, at] = enabling(flow, x);
    if (at < 0 || least <= 0) continue;  // a dead flow is no kink of a load
    const double scale = std::max(least, 1e-300);
    bool kink = std::isfinite(flow.servers) && std::abs(least - flow.servers) <= relative * scale;
    for (std::size_t i = 0; i < flow.inputs.size() && !kink; ++i) {
      if (static_cast<int>(i) == at) continue;
      const double ratio = std::max(0.0, x[flow.inputs[i].place]) / flow.inputs[i].multiplicity;
      kink = ratio - least <= relative * scale;
    }
    if (kink) out.push_back(flow.name);
  }
  return out;
}

}  // namespace mmt::fluid
