#include "solver/pipeline.hpp"

#include <algorithm>
#include <chrono>

namespace mmt::solver {

MarkingLevels::MarkingLevels(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
                             const std::vector<std::uint32_t>& states)
    : net_(net), graph_(graph), states_(states) {}

std::string MarkingLevels::placeName(std::size_t place) const {
  return net_.place(gspn::PlaceId(place)).name;
}

std::vector<std::uint64_t> MarkingLevels::spans() const {
  const std::size_t places = net_.placeCount();
  std::vector<gspn::Tokens> low(places, UINT32_MAX), high(places, 0), marking(places);
  for (std::uint32_t s : states_) {
    graph_.markings.decode(s, marking);
    for (std::size_t p = 0; p < places; ++p) {
      low[p] = std::min(low[p], marking[p]);
      high[p] = std::max(high[p], marking[p]);
    }
  }
  std::vector<std::uint64_t> out(places, 0);
  for (std::size_t p = 0; p < places && !states_.empty(); ++p)
    out[p] = std::uint64_t(high[p]) - low[p] + 1;
  return out;
}

BlockPartition MarkingLevels::levels(std::size_t place) const {
  BlockPartition out;
  out.blockOf.resize(states_.size());
  std::vector<gspn::Tokens> marking(net_.placeCount());
  for (std::size_t i = 0; i < states_.size(); ++i) {
    graph_.markings.decode(states_[i], marking);
    out.blockOf[i] = marking[place];
  }
  std::vector<std::uint32_t> counts = out.blockOf;
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  for (std::uint32_t& b : out.blockOf)
    b = std::uint32_t(std::lower_bound(counts.begin(), counts.end(), b) - counts.begin());
  out.blockCount = std::uint32_t(counts.size());
  return out;
}

const std::string& SolvedNet::message() const {
  static const std::string none;
  switch (stage) {
    case Stage::Exploration:
      return solution.explored.message;
    case Stage::Structure:
      return solution.structure.message;
    case Stage::Solver:
      return solution.steadyState.note;
    case Stage::Transient:
      return solution.transientResult->note;
    default:
      return none;
  }
}

std::unique_ptr<SolvedNet> solveNet(
    const gspn::Net& net, const gspn::ExplorationSettings& exploration,
    const SteadyStateSettings& settings,
    const std::function<void(const gspn::TangibleReachabilityGraph&)>& explored,
    const TransientSettings* transient, bool keepEdges) {
  auto solved = std::make_unique<SolvedNet>();
  ExactSolution& out = solved->solution;
  const auto start = std::chrono::steady_clock::now();
  out.explored = gspn::exploreTangible(net, exploration);
  out.explorationSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (out.explored.status != gspn::ExplorationResult::Status::Ok) {
    solved->stage = SolvedNet::Stage::Exploration;
    return solved;
  }
  if (explored) explored(out.explored.graph);
  out.structure = analyzeStructure(net, out.explored.graph);
  if (out.structure.kind != ChainStructure::Kind::Ergodic) {
    if (!transient) {
      solved->stage = SolvedNet::Stage::Structure;
      return solved;
    }
    // No steady state, but the transient distributions exist (absorption, say).
    gspn::TangibleReachabilityGraph& graph = out.explored.graph;
    out.transientResult = solveTransient(keepEdges ? buildGenerator(graph, everyState(graph))
                                                   : takeGenerator(graph, everyState(graph)),
                                         graph.initial, *transient);
    if (out.transientResult->status != Status::Converged)
      solved->stage = SolvedNet::Stage::Transient;
    return solved;
  }
  // The markings stay with the graph when the generator takes its edges. Transient
  // analysis needs every state: when some are outside the bottom component it gets a
  // generator of its own, built before the steady state's takes the edges.
  gspn::TangibleReachabilityGraph& graph = out.explored.graph;
  const std::vector<std::uint32_t>& recurrent = out.structure.recurrent;
  const bool recurrentOnly = recurrent.size() == graph.stateCount();
  std::optional<Generator> whole;
  if (transient && !recurrentOnly) whole = buildGenerator(graph, everyState(graph));
  {  // The generator is freed before the measures are allocated (peak memory).
    const MarkingLevels levels(net, graph, recurrent);
    SteadyStateSettings withLevels = settings;
    if (!withLevels.levels) withLevels.levels = &levels;
    const Generator q =
        keepEdges ? buildGenerator(graph, recurrent) : takeGenerator(graph, recurrent);
    out.steadyState = solveSteadyState(q, withLevels);
    if (out.steadyState.status != Status::Converged) {
      solved->stage = SolvedNet::Stage::Solver;
      return solved;
    }
    if (transient) {
      // The limit over every state: π on the bottom component, 0 elsewhere.
      const Eigen::VectorXd limit = onEveryState(graph.stateCount(), recurrent, out.steadyState.pi);
      TransientSettings withLimit = *transient;
      withLimit.limit = &limit;
      out.transientResult = solveTransient(whole ? *whole : q, graph.initial, withLimit);
      whole.reset();
      if (out.transientResult->status != Status::Converged) {
        solved->stage = SolvedNet::Stage::Transient;
        return solved;
      }
    }
  }
  solved->measures = std::make_unique<SteadyStateMeasures>(
      net, out.explored.graph, out.structure.recurrent, out.steadyState.pi);
  return solved;
}

}  // namespace mmt::solver
