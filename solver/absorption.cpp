#include "solver/absorption.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <tuple>
#include <utility>

#include "gspn/writers.hpp"
#include "solver/pipeline.hpp"

namespace mmt::solver {

namespace {

using Entries = std::vector<std::tuple<int, int, double>>;

/// The renewal chain's states: the transient states of the graph at positions 0 … t − 1
/// (ascending), bottom component j at position t + j.
struct RenewalLayout {
  std::vector<std::uint32_t> transient;  ///< graph states, ascending
  std::vector<std::int64_t> position;    ///< by graph state: its position in the chain
  std::size_t components = 0;
  std::size_t size() const { return transient.size() + components; }

  RenewalLayout(const BottomComponents& b, std::size_t states) : position(states) {
    components = b.components.size();
    for (std::uint32_t s = 0; s < states; ++s)
      if (b.componentOf[s] == BottomComponents::kTransient) {
        position[s] = std::int64_t(transient.size());
        transient.push_back(s);
      }
    for (std::uint32_t s = 0; s < states; ++s)
      if (b.componentOf[s] != BottomComponents::kTransient)
        position[s] = std::int64_t(transient.size() + b.componentOf[s]);
  }
};

/// The renewal chain's entries out of the transient states: every edge of g leaving one,
/// its target renumbered (a state of a bottom component becomes the component).
Entries transientEntries(const gspn::TangibleReachabilityGraph& g, const BottomComponents& b,
                         const RenewalLayout& layout) {
  Entries out;
  for (std::uint32_t j = 0; j < g.stateCount(); ++j)
    for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k) {
      const std::uint32_t s = g.sourceOf(std::size_t(k));
      if (b.componentOf[s] == BottomComponents::kTransient)
        out.emplace_back(int(layout.position[s]), int(layout.position[j]),
                         g.rateOf(std::size_t(k)));
    }
  return out;
}

/// The renewal chain: `entries` (transientEntries) and each component left at rate c into
/// `restart` (chain positions with probabilities summing to 1; a restart into the
/// component itself is no jump).
Generator renewalChain(const gspn::TangibleReachabilityGraph& g, const RenewalLayout& layout,
                       Entries entries, const std::vector<std::pair<std::size_t, double>>& restart,
                       double c) {
  const std::size_t t = layout.transient.size();
  std::vector<double> exitRate(layout.size());
  for (std::size_t i = 0; i < t; ++i) exitRate[i] = g.exitRate[layout.transient[i]];
  for (std::size_t j = 0; j < layout.components; ++j) {
    const std::size_t from = t + j;
    double stays = 0;
    for (const auto& [to, p] : restart) {
      if (to == from)
        stays += p;
      else
        entries.emplace_back(int(from), int(to), c * p);
    }
    exitRate[from] = c * std::max(0.0, 1 - stays);
  }
  return generatorFromEntries(layout.size(), std::move(entries), std::move(exitRate));
}

/// The renewal chains' tolerance against the steady state's (solveRenewal).
constexpr double kRenewalDepth = 1e-2;

/// The steady state of a renewal chain, read as the absorption from its restart
/// distribution: `occupancy` the expected time in each transient state (by position),
/// `probability` that of ending in each component. The result's π is dropped.
SteadyStateResult solveRenewal(const Generator& q, const RenewalLayout& layout, double c,
                               const SteadyStateSettings& settings, Eigen::VectorXd& occupancy,
                               std::vector<double>& probability) {
  // E[A] = Σ_s τ_s sums the error of every transient state: at the steady state's residual
  // of 1e-10 the batch job of tools/bench/models (n = 1,000, 501,501 states) is 2.3e-9 from
  // its exact 8035/24, at 1e-12 it is 8e-12. So the renewal chains are solved 100 times
  // deeper, and at the tolerance asked where that is not reached.
  SteadyStateSettings deeper = settings;
  deeper.tolerance = std::max(settings.tolerance * kRenewalDepth, 1e-15);
  SteadyStateResult r = solveSteadyState(q, deeper);
  if (r.status == Status::NoConvergence || r.status == Status::NumericalIssue ||
      r.status == Status::Inaccurate) {
    const std::string missed = r.note;
    r = solveSteadyState(q, settings);
    r.note = "the renewal chain solved to the tolerance asked, not " +
             gspn::formatNumber(deeper.tolerance) + " (" + missed + ")" +
             (r.note.empty() ? "" : "; " + r.note);
  }
  if (r.status == Status::Converged) {
    const auto t = Eigen::Index(layout.transient.size());
    const double ended = r.pi.tail(Eigen::Index(layout.components)).sum();
    occupancy = r.pi.head(t) / (c * ended);
    probability.assign(layout.components, 0);
    for (std::size_t j = 0; j < layout.components; ++j)
      probability[j] = r.pi[t + Eigen::Index(j)] / ended;
  }
  r.pi = Eigen::VectorXd();
  return r;
}

/// The steady state of each bottom component alone, weighted by the probability of ending
/// in it, into `out.longRun`; false when a solve failed (its status in `out`).
bool solveComponents(const gspn::Net& net, const gspn::TangibleReachabilityGraph& g,
                     const SteadyStateSettings& settings, AbsorptionResult& out) {
  const BottomComponents& b = out.bottoms;
  std::vector<std::vector<std::uint32_t>>& members = out.componentStates;
  members.assign(b.components.size(), {});
  for (std::uint32_t s = 0; s < g.stateCount(); ++s)
    if (b.componentOf[s] != BottomComponents::kTransient) members[b.componentOf[s]].push_back(s);
  out.componentSolves.assign(b.components.size(), std::nullopt);
  for (std::size_t j = 0; j < members.size(); ++j) {
    if (members[j].size() == 1) {
      out.longRun[members[j][0]] = out.probability[j];
      continue;
    }
    if (settings.run.interrupted()) {
      out.status = Status::Interrupted;
      out.failed = "the bottom components";
      return false;
    }
    // The component's place levels, for IAD where Gauss–Seidel stalls (a closed network).
    const MarkingLevels levels(net, g, members[j]);
    SteadyStateSettings own = settings;
    own.levels = &levels;
    SteadyStateResult r = solveSteadyState(buildGenerator(g, members[j]), own);
    if (r.status != Status::Converged) {
      out.status = r.status;
      out.failed = "the bottom component of {" + net.describe(g.marking(members[j][0])) + "}";
      out.componentSolves[j] = std::move(r);
      return false;
    }
    for (std::size_t i = 0; i < members[j].size(); ++i)
      out.longRun[members[j][i]] = out.probability[j] * r.pi[Eigen::Index(i)];
    out.componentSolves[j] = std::move(r);
  }
  return true;
}

}  // namespace

double AbsorptionResult::variance() const {
  return std::max(0.0, secondMoment - meanTime * meanTime);
}

const SteadyStateResult* AbsorptionResult::failedSolve() const {
  for (const auto* r : {&renewal, &spread})
    if (r->has_value() && (*r)->status != Status::Converged) return &**r;
  for (const auto& r : componentSolves)
    if (r && r->status != Status::Converged) return &*r;
  return nullptr;
}

AbsorptionResult solveAbsorption(const gspn::Net& net, const gspn::TangibleReachabilityGraph& g,
                                 SteadyStateSettings settings) {
  const auto start = std::chrono::steady_clock::now();
  settings.levels = nullptr;
  settings.stateNumber = nullptr;
  AbsorptionResult out;
  out.bottoms = bottomComponents(net, g);
  const std::size_t n = g.stateCount();
  const RenewalLayout layout(out.bottoms, n);
  const std::size_t t = layout.transient.size();
  out.occupancy = Eigen::VectorXd::Zero(Eigen::Index(n));
  out.longRun = Eigen::VectorXd::Zero(Eigen::Index(n));
  out.probability.assign(layout.components, 0);

  std::vector<std::pair<std::size_t, double>> initial;
  double initiallyTransient = 0;
  for (const auto& [s, p] : g.initial) {
    initial.emplace_back(std::size_t(layout.position[s]), p);
    if (layout.position[s] < std::int64_t(t))
      initiallyTransient += p;
    else
      out.probability[out.bottoms.componentOf[s]] += p;
  }
  if (initiallyTransient > 0) {
    // c: the fastest exit of a transient state, so that a restart takes about as long as
    // a step of the chain (the renewal chain's π of the components is then not far below
    // the transient states').
    double c = 0;
    for (std::uint32_t s : layout.transient) c = std::max(c, g.exitRate[s]);
    const Entries entries = transientEntries(g, out.bottoms, layout);
    Eigen::VectorXd tau;
    out.renewal = solveRenewal(renewalChain(g, layout, entries, initial, c), layout, c, settings,
                               tau, out.probability);
    if (out.renewal->status != Status::Converged) {
      out.status = out.renewal->status;
      out.failed = "the absorption";
      return out;
    }
    out.meanTime = tau.sum();
    for (std::size_t i = 0; i < t; ++i) out.occupancy[layout.transient[i]] = tau[Eigen::Index(i)];
    // E[A²] = 2 E[A] E_β[A], β = τ / E[A]: a second renewal chain restarting from β.
    std::vector<std::pair<std::size_t, double>> spread;
    for (std::size_t i = 0; i < t; ++i)
      if (tau[Eigen::Index(i)] > 0) spread.emplace_back(i, tau[Eigen::Index(i)] / out.meanTime);
    Eigen::VectorXd tauFromSpread;
    std::vector<double> unused;
    out.spread = solveRenewal(renewalChain(g, layout, entries, spread, c), layout, c, settings,
                              tauFromSpread, unused);
    if (out.spread->status != Status::Converged) {
      out.status = out.spread->status;
      out.failed = "the spread of the time to absorption";
      return out;
    }
    out.secondMoment = 2 * out.meanTime * tauFromSpread.sum();
  }
  solveComponents(net, g, settings, out);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace mmt::solver
