#include "solver/passage.hpp"

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "solver/ctmc.hpp"
#include "solver/transient.hpp"

namespace mmt::solver {

namespace {

/// The edges of g by source: out[offset[i] .. offset[i + 1]) are i's edges, each by its
/// index in g (incoming order) and its target.
struct Successors {
  std::vector<std::size_t> offset;
  std::vector<std::uint32_t> target;
  std::vector<std::size_t> edge;
  explicit Successors(const gspn::TangibleReachabilityGraph& g) {
    const std::size_t n = g.stateCount();
    offset.assign(n + 1, 0);
    for (std::size_t k = 0; k < g.source.size(); ++k) ++offset[g.sourceOf(std::size_t(k)) + 1];
    for (std::size_t i = 0; i < n; ++i) offset[i + 1] += offset[i];
    target.resize(g.source.size());
    edge.resize(g.source.size());
    std::vector<std::size_t> next(offset.begin(), offset.end() - 1);
    for (std::uint32_t j = 0; j < n; ++j)
      for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k) {
        const std::size_t at = next[g.sourceOf(std::size_t(k))]++;
        target[at] = j;
        edge[at] = std::size_t(k);
      }
  }
};

/// Where the passage ends, as one test per state and per edge.
struct Ending {
  const PassageEnd& end;
  /// A state of the target: the passage is over on entering it.
  bool in(std::uint32_t state) const { return !end.states.empty() && end.states[state]; }
  /// Edge k (into state j) ends the passage.
  bool along(std::size_t k, std::uint32_t j) const {
    return in(j) || (!end.edges.empty() && end.edges[k]);
  }
  /// By edge of g: the edges that end the passage (the chain is killed along them).
  std::vector<char> edges(const gspn::TangibleReachabilityGraph& g) const {
    std::vector<char> out(g.source.size(), 0);
    for (std::uint32_t j = 0; j < g.stateCount(); ++j)
      for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k)
        out[std::size_t(k)] = along(std::size_t(k), j);
    return out;
  }
};

/// The states the passage can be in: reachable from the entrance (outside the target)
/// along edges that do not end it, ascending.
std::vector<std::uint32_t> beforeEnd(const gspn::TangibleReachabilityGraph& g,
                                     const std::vector<std::pair<std::uint32_t, double>>& entrance,
                                     const Ending& ending) {
  const Successors out(g);
  std::vector<char> seen(g.stateCount(), 0);
  std::vector<std::uint32_t> states, stack;
  for (const auto& [i, p] : entrance)
    if (p > 0 && !ending.in(i) && !seen[i]) {
      seen[i] = 1;
      stack.push_back(i);
    }
  while (!stack.empty()) {
    const std::uint32_t i = stack.back();
    stack.pop_back();
    states.push_back(i);
    for (std::size_t e = out.offset[i]; e < out.offset[i + 1]; ++e) {
      const std::uint32_t j = out.target[e];
      if (!ending.along(out.edge[e], j) && !seen[j]) {
        seen[j] = 1;
        stack.push_back(j);
      }
    }
  }
  std::sort(states.begin(), states.end());
  return states;
}

/// Calls f(r, c, rate) for each edge between states r and c of `states` (by position, as
/// `local` gives them) that does not end the passage, column by column.
template <typename F>
void forEachKept(const gspn::TangibleReachabilityGraph& g, const std::vector<std::uint32_t>& states,
                 const std::vector<std::int64_t>& local, const Ending& ending, F f) {
  for (std::size_t c = 0; c < states.size(); ++c) {
    const std::uint32_t j = states[c];
    for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k)
      if (const std::int64_t r = local[g.sourceOf(std::size_t(k))];
          r >= 0 && !ending.along(std::size_t(k), j))
        f(std::size_t(r), c, g.rateOf(std::size_t(k)));
  }
}

/// x solving (−Q_SS) x = b over `states` (Q's off-diagonal entries among them, but for the
/// edges that end the passage, and the whole exit rate on the diagonal), by sparse LU;
/// nothing when the matrix is singular.
std::optional<Eigen::VectorXd> solveAmong(const gspn::TangibleReachabilityGraph& g,
                                          const std::vector<std::uint32_t>& states,
                                          const Ending& ending, const Eigen::VectorXd& b) {
  const std::vector<std::int64_t> local = positionsIn(g, states);
  std::vector<Eigen::Triplet<double>> entries;
  for (std::size_t c = 0; c < states.size(); ++c)
    entries.emplace_back(int(c), int(c), g.exitRate[states[c]]);
  forEachKept(g, states, local, ending, [&](std::size_t r, std::size_t c, double rate) {
    entries.emplace_back(int(r), int(c), -rate);
  });
  const auto n = Eigen::Index(states.size());
  Eigen::SparseMatrix<double> m(n, n);
  m.setFromTriplets(entries.begin(), entries.end());
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
  lu.compute(m);
  if (lu.info() != Eigen::Success) return std::nullopt;
  Eigen::VectorXd x = lu.solve(b);
  if (lu.info() != Eigen::Success) return std::nullopt;
  return x;
}

/// E[τ] when every state `before` the end can reach it, by the renewal argument: a chain
/// in which each ending jump goes to an extra state R, left at rate c (the largest exit
/// rate) into the entrance distribution, repeats the passage forever, one cycle of mean
/// E[τ] + 1/c per visit of R, so E[τ] = 1 / (π_R c) − 1/c, π its steady state
/// (solver/steady_state.hpp, with its accuracy check). Sparse LU's fill-in makes the
/// direct solve cost minutes and gigabytes on large chains (Kanban N = 3's 58,400
/// markings: 40 s, 0.7 GB); this costs a steady-state solve. Nothing when it fails.
std::optional<double> meanByRenewal(const gspn::TangibleReachabilityGraph& g,
                                    const std::vector<std::pair<std::uint32_t, double>>& entrance,
                                    const Ending& ending, const std::vector<std::uint32_t>& before,
                                    const SteadyStateSettings& settings) {
  const std::size_t n = before.size();
  const std::vector<std::int64_t> local = positionsIn(g, before);
  std::vector<std::tuple<int, int, double>> entries;
  std::vector<double> exitRate(n + 1);
  std::vector<double> kept(n, 0);
  double c = 0;
  for (std::size_t col = 0; col < n; ++col) {
    exitRate[col] = g.exitRate[before[col]];
    c = std::max(c, g.exitRate[before[col]]);
  }
  forEachKept(g, before, local, ending, [&](std::size_t r, std::size_t col, double rate) {
    entries.emplace_back(int(r), int(col), rate);
    kept[r] += rate;
  });
  const int restart = int(n);
  for (std::size_t r = 0; r < n; ++r)
    if (const double leak = exitRate[r] - kept[r]; leak > 0)
      entries.emplace_back(int(r), restart, leak);
  double inside = 0;  // the entrance mass outside the target
  for (const auto& [i, p] : entrance)
    if (local[i] >= 0) inside += p;
  for (const auto& [i, p] : entrance)
    if (local[i] >= 0) entries.emplace_back(restart, int(local[i]), c * p / inside);
  exitRate[n] = c;
  const Generator q = generatorFromEntries(n + 1, std::move(entries), std::move(exitRate));
  const SteadyStateResult r = solveSteadyState(q, settings);
  if (r.status != Status::Converged) return std::nullopt;
  return inside * (1 / (r.pi[Eigen::Index(n)] * c) - 1 / c);
}

/// Σ_i α_i x_i over the entrance states among `states` (x indexed by position there).
double weighted(const gspn::TangibleReachabilityGraph& g,
                const std::vector<std::pair<std::uint32_t, double>>& entrance,
                const std::vector<std::uint32_t>& states, const Eigen::VectorXd& x) {
  const std::vector<std::int64_t> at = positionsIn(g, states);
  double sum = 0;
  for (const auto& [i, p] : entrance)
    if (at[i] >= 0) sum += p * x[Eigen::Index(at[i])];
  return sum;
}

/// Sets out.mean and out.reached: E[τ] over the states `before` the end when every one of
/// them can reach it; otherwise an infinite mean and the probability of ending,
/// h = (−Q_RR)^{-1} b over the states R that can still end (b_i the rate of i's ending
/// edges), the others never ending.
void meanAndReach(const gspn::TangibleReachabilityGraph& g,
                  const std::vector<std::pair<std::uint32_t, double>>& entrance,
                  const Ending& ending, const std::vector<std::uint32_t>& before,
                  std::size_t directStates, const std::atomic<bool>* interrupt,
                  PassageResult& out) {
  // A state that can reach a target state or the source of an ending edge can end.
  std::vector<std::uint32_t> seeds;
  for (std::uint32_t j = 0; j < g.stateCount(); ++j)
    for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k)
      if (ending.along(std::size_t(k), j)) seeds.push_back(g.sourceOf(std::size_t(k)));
  std::vector<char> reaches(g.stateCount(), 0);
  for (std::uint32_t i : reachingAny(g, std::move(seeds))) reaches[i] = 1;
  std::vector<std::uint32_t> hopeful;
  for (std::uint32_t i : before)
    if (reaches[i]) hopeful.push_back(i);
  if (hopeful.size() == before.size()) {
    if (before.size() > directStates) {  // else, or should it fail, sparse LU
      SteadyStateSettings steady;
      steady.run.interrupt = interrupt;
      if (const auto mean = meanByRenewal(g, entrance, ending, before, steady)) {
        out.mean = *mean;
        return;
      }
    }
    const auto m =
        solveAmong(g, before, ending, Eigen::VectorXd::Ones(Eigen::Index(before.size())));
    out.mean = m ? weighted(g, entrance, before, *m) : std::numeric_limits<double>::infinity();
    return;
  }
  Eigen::VectorXd b = Eigen::VectorXd::Zero(Eigen::Index(hopeful.size()));
  const std::vector<std::int64_t> at = positionsIn(g, hopeful);
  for (std::uint32_t j = 0; j < g.stateCount(); ++j)
    for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k)
      if (const std::int64_t r = at[g.sourceOf(std::size_t(k))];
          r >= 0 && ending.along(std::size_t(k), j))
        b[Eigen::Index(r)] += g.rateOf(std::size_t(k));
  double direct = 0;  // entrance mass already in the target
  for (const auto& [i, p] : entrance)
    if (ending.in(i)) direct += p;
  const auto h = hopeful.empty() ? std::optional<Eigen::VectorXd>(Eigen::VectorXd())
                                 : solveAmong(g, hopeful, ending, b);
  out.reached = direct + (h ? weighted(g, entrance, hopeful, *h) : 0.0);
  out.mean = std::numeric_limits<double>::infinity();
}

/// The t ≥ 0 at which the distribution function `f` (its values at many times, from one
/// uniformization) first reaches p, to a width `tolerance` relative to t: a bracket
/// [lo, hi] with F(lo) < p <= F(hi), from `start` doubling, then narrowed eight-fold per
/// call, its seven inner times evaluated at once. NaN when no bracket is found or `stop`
/// becomes true.
double quantile(const std::function<std::vector<double>(std::vector<double>)>& f, double p,
                double start, double tolerance, const std::function<bool()>& stop) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  if (f({0.0})[0] >= p) return 0;
  double lo = 0, hi = start;
  for (int doublings = 0; f({hi})[0] < p; ++doublings) {
    if (doublings == 200 || stop()) return kNone;
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > tolerance * hi) {
    if (stop()) return kNone;
    std::vector<double> inner;
    for (int k = 1; k < 8; ++k) inner.push_back(lo + (hi - lo) * k / 8);
    const std::vector<double> values = f(inner);
    double newLo = lo, newHi = hi;
    for (std::size_t k = 0; k < inner.size(); ++k) {
      if (values[k] >= p) {
        newHi = inner[k];
        break;
      }
      newLo = inner[k];
    }
    lo = newLo;
    hi = newHi;
  }
  return (lo + hi) / 2;
}

}  // namespace

namespace {

/// α_j ∝ Σ π_k q_kj over the edges k → j that `starts(edge, j)` accepts; `never` is the
/// message when no probability flows along them.
template <typename Starts>
std::vector<std::pair<std::uint32_t, double>> entranceBy(const gspn::TangibleReachabilityGraph& g,
                                                         const Eigen::VectorXd& pi, Starts starts,
                                                         const char* never) {
  std::vector<std::pair<std::uint32_t, double>> alpha;
  double total = 0;
  for (std::uint32_t j = 0; j < g.stateCount(); ++j) {
    double flux = 0;
    for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k)
      if (starts(std::size_t(k), j))
        flux += pi[Eigen::Index(g.sourceOf(std::size_t(k)))] * g.rateOf(std::size_t(k));
    if (flux > 0) {
      alpha.emplace_back(j, flux);
      total += flux;
    }
  }
  if (!(total > 0)) throw std::invalid_argument(never);
  for (auto& [j, p] : alpha) p /= total;
  return alpha;
}

}  // namespace

std::vector<std::pair<std::uint32_t, double>> entranceDistribution(
    const gspn::TangibleReachabilityGraph& g, const Eigen::VectorXd& pi,
    const std::vector<char>& source) {
  return entranceBy(
      g, pi,
      [&](std::size_t k, std::uint32_t j) {
        return source[j] && !source[g.sourceOf(std::size_t(k))];
      },
      "no probability flows into the source states in steady state: the passage never starts");
}

std::vector<std::pair<std::uint32_t, double>> entranceAlong(
    const gspn::TangibleReachabilityGraph& g, const Eigen::VectorXd& pi,
    const std::vector<char>& marked) {
  return entranceBy(
      g, pi, [&](std::size_t k, std::uint32_t) { return marked[k] != 0; },
      "no probability flows along the marked edges in steady state: the passage never starts");
}

PassageResult solvePassage(const gspn::TangibleReachabilityGraph& g,
                           const std::vector<std::pair<std::uint32_t, double>>& entrance,
                           const PassageEnd& end, const PassageSettings& settings) {
  for (double t : settings.times)
    if (!(t >= 0) || !std::isfinite(t))
      throw std::invalid_argument("a passage time must be finite and at least 0");
  for (double p : settings.quantiles)
    if (!(p > 0 && p < 1)) throw std::invalid_argument("a quantile must lie in (0, 1)");
  const Ending ending{end};
  const std::vector<std::uint32_t> before = beforeEnd(g, entrance, ending);
  PassageResult out;
  meanAndReach(g, entrance, ending, before, settings.directStates, settings.run.interrupt, out);

  // F(t) at many times at once: the mass that has left the killed chain of the states
  // before the end. When all of it leaves, its limit is 0, which tells uniformization when
  // the iterates have settled.
  const std::vector<char> killing = ending.edges(g);
  const Generator killed = buildGenerator(g, before, &killing);
  const std::vector<std::int64_t> at = positionsIn(g, before);
  std::vector<std::pair<std::uint32_t, double>> start;
  for (const auto& [i, p] : entrance)
    if (at[i] >= 0) start.emplace_back(std::uint32_t(at[i]), p);
  const Eigen::VectorXd none = Eigen::VectorXd::Zero(Eigen::Index(before.size()));
  const auto distribution = [&](std::vector<double> times) {
    TransientSettings transient;
    transient.times = std::move(times);
    transient.epsilon = settings.epsilon;
    transient.run.interrupt = settings.run.interrupt;
    if (out.reached == 1) transient.limit = &none;
    const TransientResult r = solveTransient(killed, start, transient);
    out.iterations += r.iterations;
    if (r.status == Status::Interrupted) out.status = Status::Interrupted;
    std::vector<double> f;
    for (const Eigen::VectorXd& p : r.distributions)
      f.push_back(std::clamp(1.0 - p.sum(), 0.0, 1.0));
    return f;
  };
  if (!settings.times.empty()) out.distribution = distribution(settings.times);
  const auto interrupted = [&] { return out.status == Status::Interrupted; };
  const double guess = std::isfinite(out.mean) && out.mean > 0 ? out.mean : 1.0;
  for (double p : settings.quantiles)
    out.quantiles.push_back(
        p < out.reached - settings.epsilon && !interrupted()
            ? quantile(distribution, p, guess, settings.quantileTolerance, interrupted)
            : std::numeric_limits<double>::quiet_NaN());
  return out;
}

}  // namespace mmt::solver
