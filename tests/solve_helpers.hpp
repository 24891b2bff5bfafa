#pragma once
// Shared test helper: explore, check structure, solve with a given method.
#include <doctest/doctest.h>

#include <memory>

#include "gspn/reachability.hpp"
#include "solver/ctmc.hpp"
#include "solver/measures.hpp"
#include "solver/steady_state.hpp"

namespace mmt::testing {

struct Solved {
  gspn::TangibleReachabilityGraph graph;
  solver::ChainStructure structure;
  solver::SteadyStateResult result;
  std::unique_ptr<solver::SteadyStateMeasures> measures;
  /// Probability of the tangible marking m (0 if unreachable or transient).
  double probability(const std::vector<gspn::Tokens>& m) const {
    for (std::size_t i = 0; i < structure.recurrent.size(); ++i) {
      auto view = graph.marking(structure.recurrent[i]);
      if (std::equal(view.begin(), view.end(), m.begin(), m.end())) return result.pi[Eigen::Index(i)];
    }
    return 0.0;
  }
};

inline Solved solve(const gspn::Net& net, solver::Method method, double tolerance = 1e-12) {
  Solved s;
  auto explored = gspn::exploreTangible(net);
  REQUIRE_MESSAGE(explored.status == gspn::ExplorationResult::Status::Ok, explored.message);
  s.graph = std::move(explored.graph);
  s.structure = solver::analyzeStructure(net, s.graph);
  REQUIRE_MESSAGE(s.structure.kind == solver::ChainStructure::Kind::Ergodic, s.structure.message);
  solver::SteadyStateSettings settings;
  settings.method = method;
  settings.tolerance = tolerance;
  s.result = solver::solveSteadyState(solver::buildGenerator(s.graph, s.structure.recurrent), settings);
  REQUIRE_MESSAGE(s.result.status == solver::Status::Converged, s.result.note);
  s.measures = std::make_unique<solver::SteadyStateMeasures>(net, s.graph, s.structure.recurrent,
                                                             s.result.pi);
  return s;
}

/// Solves with LU and Gauss–Seidel and checks that the two distributions agree to 1e-9.
inline Solved solveBoth(const gspn::Net& net) {
  Solved lu = solve(net, solver::Method::LU);
  Solved gs = solve(net, solver::Method::GaussSeidel);
  REQUIRE(lu.result.pi.size() == gs.result.pi.size());
  CHECK((lu.result.pi - gs.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
  return lu;
}

}  // namespace mmt::testing
