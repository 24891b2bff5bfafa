#include "mpi/solve.hpp"

#include <mpi.h>

#include <chrono>
#include <cmath>

#include "api/errors.hpp"
#include "api/solve.hpp"
#include "gspn/measure_source.hpp"
#include "mpi/state_space.hpp"
#include "mpi/steady_state.hpp"

namespace mmt::mpi {

namespace {

/// Steady-state measures of a chain spread over the ranks ([GSPN95] §6.4, as
/// solver::SteadyStateMeasures): each rank sums over its own states and an allreduce adds
/// the ranks' sums. expectation() is collective: every rank computes the same metrics in
/// the same order.
class ReducedMeasures final : public gspn::MeasureSource {
 public:
  /// Under a symmetry, the chain is lumped and a timed transition counts the firings of
  /// the copies it stands for (as solver::SteadyStateMeasures does).
  ReducedMeasures(const gspn::Net& net, const LocalChain& chain, const std::vector<double>& pi,
                  const gspn::Symmetry* symmetry)
      : chain_(chain), pi_(pi) {
    std::vector<double> tokens(net.placeCount(), 0.0), firings(net.transitionCount(), 0.0);
    std::vector<gspn::Tokens> m(net.placeCount());
    for (std::uint32_t s = 0; s < chain.size(); ++s) {
      chain.markings.decode(s, m);
      for (gspn::PlaceId p = 0; p < m.size(); ++p) tokens[p] += pi[s] * m[p];
      gspn::forEachLumpedRate(
          net, symmetry, m, [&](gspn::TransitionId t, double rate) { firings[t] += pi[s] * rate; });
    }
    for (const auto& flow : chain.immediateFlows)
      firings[flow.transition] += pi[flow.state] * flow.rate;
    meanTokens_.resize(tokens.size());
    throughput_.resize(firings.size());
    MPI_Allreduce(tokens.data(), meanTokens_.data(), int(tokens.size()), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    MPI_Allreduce(firings.data(), throughput_.data(), int(firings.size()), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
  }
  double meanTokens(gspn::PlaceId p) const override { return meanTokens_[p]; }
  double throughput(gspn::TransitionId t) const override { return throughput_[t]; }
  double expectation(const std::function<double(gspn::MarkingView)>& f,
                     std::span<const gspn::PlaceId>) const override {
    std::vector<gspn::Tokens> m(chain_.markings.placeCount());
    double local = 0, total = 0;
    for (std::uint32_t s = 0; s < chain_.size(); ++s) {
      chain_.markings.decode(s, m);
      local += pi_[s] * f(gspn::MarkingView(m));
    }
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
  }

 private:
  const LocalChain& chain_;
  const std::vector<double>& pi_;
  std::vector<double> meanTokens_, throughput_;
};

}  // namespace

DistributedSolution solve(const Session& session, const api::Model& model,
                          const api::Settings& settings) {
  const auto start = std::chrono::steady_clock::now();
  settings.check();
  const gspn::Net& net = model.net();
  DistributedSolution out;
  out.name = model.name();
  out.system = model.isSystem();
  gspn::ExplorationSettings exploration = api::explorationSettings(net, settings);
  const std::optional<gspn::Symmetry> group =
      api::lumpingGroup(model, net, settings, {}, out.symmetry);
  if (group) exploration.symmetry = &*group;
  LocalChain chain;
  std::optional<DistributedSteadyState> solved;
  RankFigures mine;
  try {
    chain = exploreDistributed(session, net, exploration);
    mine.states = chain.size();
    mine.edges = chain.edgesIn();
    solved = solveDistributed(session, chain, settings.tolerance, settings.maxIterations);
  } catch (const gspn::ExplorationFailure& f) {
    // The typed failure one process throws (the markings found are not counted over ranks).
    gspn::ExplorationResult stopped;
    stopped.status = f.status;
    stopped.message = f.message;
    api::throwExplorationFailure(net, stopped, exploration);
  }
  const DistributedSteadyState& steady = *solved;
  out.states = chain.states;
  if (group) {
    // Each rank's count and its log10; the logs are added by log-sum-exp.
    api::SymmetryReport part;
    api::countUnlumped(chain.markings, *group, part);
    double total = 0, scale = 0, scaled = 0;
    MPI_Allreduce(&*part.unlumpedTangible, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&*part.log10UnlumpedTangible, &scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double mine = std::pow(10.0, *part.log10UnlumpedTangible - scale);
    MPI_Allreduce(&mine, &scaled, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    out.symmetry.unlumpedTangible = total;
    out.symmetry.log10UnlumpedTangible = scale + std::log10(scaled);
  }
  out.edges = chain.edges;
  out.rounds = chain.rounds();
  out.partition = chain.partition.describe(net);
  mine.explorationSeconds = chain.exploration.seconds;
  mine.explorationBytesSent = chain.exploration.bytesSent;
  mine.solveSeconds = steady.solve.seconds;
  mine.bytesPerProduct = steady.bytesPerProduct;
  mine.crossEdges = steady.crossEdges;
  if (!steady.converged)
    throw api::SolverError(
        solver::Status::NoConvergence, solver::Method::Auto, std::size_t(steady.iterations),
        steady.residual, settings.tolerance, steady.imbalance,
        "distributed solve: Gauss-Seidel, then BiCGStab and GMRES with Jacobi, did not "
        "reach the tolerance",
        steady.iterations >= settings.maxIterations);
  out.method = steady.method;
  out.iterations = steady.iterations;
  out.residual = steady.residual;
  out.imbalance = steady.imbalance;
  const ReducedMeasures reduced(net, chain, steady.pi, exploration.symmetry);
  const gspn::SymmetricMeasures measures(reduced, exploration.symmetry);
  if (model.compiled)
    out.metrics = compiler::computeMetrics(*model.compiled, measures);
  else
    out.values = api::netMeasures(net, measures);
  for (const auto& [name, value] : out.values.measures)
    if (!std::isfinite(value)) throw api::UndefinedMeasureError(name, value);

  mine.peakMemoryMegabytes = api::peakMemoryMegabytes();
  // Every rank's figures to rank 0, as doubles.
  constexpr int kFigures = 8;
  const double row[kFigures] = {double(mine.states),
                                double(mine.edges),
                                mine.peakMemoryMegabytes,
                                mine.explorationSeconds,
                                double(mine.explorationBytesSent),
                                mine.solveSeconds,
                                double(mine.bytesPerProduct),
                                double(mine.crossEdges)};
  std::vector<double> all(session.leads() ? kFigures * std::size_t(session.size()) : 0);
  MPI_Gather(row, kFigures, MPI_DOUBLE, all.data(), kFigures, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int r = 0; session.leads() && r < session.size(); ++r) {
    const double* f = all.data() + kFigures * r;
    out.ranks.push_back({std::uint64_t(f[0]), std::uint64_t(f[1]), f[2], f[3], std::uint64_t(f[4]),
                         f[5], std::uint64_t(f[6]), std::uint64_t(f[7])});
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

double DistributedSolution::crossEdgeFraction() const {
  std::uint64_t cross = 0;
  for (const RankFigures& f : ranks) cross += f.crossEdges;
  return edges ? double(cross) / double(edges) : 0.0;
}

nlohmann::ordered_json DistributedSolution::json() const {
  nlohmann::ordered_json ranksJson = nlohmann::ordered_json::array();
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const RankFigures& f = ranks[r];
    ranksJson.push_back(
        {{"rank", r},
         {"tangible", f.states},
         {"edges", f.edges},
         {"peak_memory_mb", f.peakMemoryMegabytes},
         {"exploration",
          {{"seconds", f.explorationSeconds}, {"bytes_sent", f.explorationBytesSent}}},
         {"cross_edges", f.crossEdges},
         {"solve", {{"seconds", f.solveSeconds}, {"bytes_per_product", f.bytesPerProduct}}}});
  }
  nlohmann::ordered_json out = {{"schema", "mmt/solve-distributed@1"},
                                {system ? "system" : "net", name},
                                {"states",
                                 {{"tangible", states},
                                  {"edges", edges},
                                  {"rounds", rounds},
                                  {"partition", partition},
                                  {"cross_edge_fraction", crossEdgeFraction()}}},
                                {"solver",
                                 {{"method", method},
                                  {"iterations", iterations},
                                  {"residual", residual},
                                  {"imbalance", imbalance},
                                  {"seconds", seconds}}},
                                {"ranks", ranksJson}};
  if (!symmetry.empty()) out["states"]["symmetry"] = symmetry.json();
  // The results as `mmt solve --format json` puts them, beside these.
  const nlohmann::ordered_json tree = results();
  for (const auto& [key, value] : tree.items()) out[key] = value;
  return out;
}

}  // namespace mmt::mpi
