#include "solver/pipeline.hpp"

#include <chrono>

namespace mmt::solver {

std::unique_ptr<ExactSolution> solveNet(
    const gspn::Net& net, const gspn::ExplorationSettings& exploration,
    const SteadyStateSettings& settings,
    const std::function<void(const gspn::TangibleReachabilityGraph&)>& explored) {
  auto solution = std::make_unique<ExactSolution>();
  ExactSolution& out = *solution;
  const auto start = std::chrono::steady_clock::now();
  out.explored = gspn::exploreTangible(net, exploration);
  out.explorationSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (out.explored.status != gspn::ExplorationResult::Status::Ok) {
    out.stage = ExactSolution::Stage::Exploration;
    out.message = out.explored.message;
    return solution;
  }
  if (explored) explored(out.explored.graph);
  out.structure = analyzeStructure(net, out.explored.graph);
  if (out.structure.kind != ChainStructure::Kind::Ergodic) {
    out.stage = ExactSolution::Stage::Structure;
    out.message = out.structure.message;
    return solution;
  }
  out.result = solveSteadyState(takeGenerator(out.explored.graph, out.structure.recurrent), settings);
  if (out.result.status != Status::Converged) {
    out.stage = ExactSolution::Stage::Solver;
    out.message = out.result.note;
    return solution;
  }
  out.measures = std::make_unique<SteadyStateMeasures>(net, out.explored.graph,
                                                       out.structure.recurrent, out.result.pi);
  return solution;
}

}  // namespace mmt::solver
