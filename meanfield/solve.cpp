#include "meanfield/solve.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include "gspn/progress.hpp"

namespace mmt::meanfield {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

Equilibrium equilibrium(const Hybrid& hybrid, const Settings& settings) {
  const auto start = Clock::now();
  gspn::ProgressLine progress(settings.run.progress);
  Equilibrium out;
  fluid::Settled settled =
      fluid::settle(hybrid, fluid::odeSettings(settings, "mean-field"), start, progress);
  out.state = std::move(settled.amounts);
  // The probabilities sum to 1 but for the integrator's rounding (an invariant of the ODE).
  const auto values = Eigen::Index(hybrid.discreteStateCount());
  if (const double total = out.state.head(values).sum(); total > 0) out.state.head(values) /= total;
  out.take(settled);
  out.classFlows = hybrid.classFlows(out.state);
  const double largest = out.classFlows.empty()
                             ? 0.0
                             : *std::max_element(out.classFlows.begin(), out.classFlows.end());
  out.dead = !(largest > 0);
  out.residual = fluid::relativeDrift(hybrid, out.state);
  out.take(fluid::stability(hybrid, out.state));
  if (!out.dead) out.kinks = hybrid.kinks(out.state);
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

Trajectory trajectory(const Hybrid& hybrid, std::span<const double> times,
                      const Settings& settings) {
  const auto start = Clock::now();
  gspn::ProgressLine progress(settings.run.progress);
  Trajectory out;
  out.times.assign(times.begin(), times.end());
  out.states = fluid::integrate(hybrid, times, fluid::odeSettings(settings, "mean-field"), start,
                                progress, out.steps);
  for (const Eigen::VectorXd& y : out.states) out.classFlows.push_back(hybrid.classFlows(y));
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

Measures::Measures(const gspn::Net& net, const Hybrid& hybrid, Eigen::VectorXd state,
                   std::vector<double> classFlows)
    : net_(net), hybrid_(hybrid), state_(std::move(state)), flows_(std::move(classFlows)) {}

double Measures::meanTokens(gspn::PlaceId p) const {
  const PopulationModel& m = hybrid_.model();
  const PopulationModel::Role& role = m.roles[p];
  double mean = 0;
  if (role.replicas < 0) {
    for (std::size_t d = 0; d < hybrid_.discreteStateCount(); ++d)
      mean += std::max(0.0, state_[Eigen::Index(d)]) * hybrid_.discreteState(d)[role.index];
    return mean;
  }
  const auto f = std::uint32_t(role.replicas);
  const Replicas& r = m.replicas[f];
  for (std::uint32_t s = 0; s < r.localStates.size(); ++s)
    mean += hybrid_.replicasIn(state_, f, s) * r.localStates[s][role.index];
  return r.count > 0 ? mean / double(r.count) : 0.0;
}

double Measures::throughput(gspn::TransitionId t) const {
  const PopulationModel& m = hybrid_.model();
  const TransitionClass& c = m.classes[m.classOf[t]];
  double members = c.perAssignment;
  for (std::uint32_t f : c.slots) members *= double(m.replicas[f].count);
  return members > 0 ? flows_[m.classOf[t]] / members : 0.0;
}

double Measures::expectation(const std::function<double(gspn::MarkingView)>& f,
                             std::span<const gspn::PlaceId> reads) const {
  const PopulationModel& m = hybrid_.model();
  // The replicas the places read, (class, block): each, given the discrete part's value d,
  // in local state ℓ with probability proportional to its count there.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> read;
  for (gspn::PlaceId p : reads) {
    const PopulationModel::Role& role = m.roles[p];
    if (role.replicas < 0) continue;
    const auto cls = std::uint32_t(role.replicas);
    const std::vector<std::vector<gspn::PlaceId>>& places = m.replicas[cls].places;
    for (std::uint32_t b = 0; b < places.size(); ++b)
      if (std::find(places[b].begin(), places[b].end(), p) != places[b].end() &&
          std::find(read.begin(), read.end(), std::pair{cls, b}) == read.end())
        read.emplace_back(cls, b);
  }
  double terms = double(hybrid_.discreteStateCount());
  for (const auto& [cls, b] : read) terms *= double(m.replicas[cls].localStates.size());
  if (terms > 1e7) return std::numeric_limits<double>::quiet_NaN();
  std::vector<gspn::Tokens> marking(net_.placeCount(), 0);
  double total = 0;
  for (std::size_t d = 0; d < hybrid_.discreteStateCount(); ++d) {
    const double pd = std::max(0.0, state_[Eigen::Index(d)]);
    if (!(pd > 0)) continue;
    for (std::size_t i = 0; i < m.fixedPlaces.size(); ++i)
      marking[m.fixedPlaces[i]] = hybrid_.discreteState(d)[i];
    std::vector<double> totals;  // each read class's replicas given d
    for (const auto& [cls, b] : read) {
      double n = 0;
      for (std::uint32_t s = 0; s < m.replicas[cls].localStates.size(); ++s)
        n += hybrid_.replicasIn(state_, d, cls, s);
      totals.push_back(n);
    }
    std::vector<std::uint32_t> states(read.size(), 0);
    while (true) {
      double weight = pd;
      for (std::size_t i = 0; i < read.size() && weight > 0; ++i) {
        const auto [cls, b] = read[i];
        const Replicas& r = m.replicas[cls];
        weight *= totals[i] > 0 ? hybrid_.replicasIn(state_, d, cls, states[i]) / totals[i] : 0.0;
        for (std::size_t q = 0; q < r.places[b].size(); ++q)
          marking[r.places[b][q]] = r.localStates[states[i]][q];
      }
      if (weight > 0) total += weight * f(marking);
      std::size_t i = 0;
      for (; i < states.size(); ++i) {
        if (++states[i] < m.replicas[read[i].first].localStates.size()) break;
        states[i] = 0;
      }
      if (i == states.size()) break;
    }
  }
  return total;
}

}  // namespace mmt::meanfield
