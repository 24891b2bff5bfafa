#pragma once
// Formatting of `mmt solve` results: a grouped table for people, one JSON object for scripts.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "compiler/metrics.hpp"
#include "gspn/reachability.hpp"
#include "solver/steady_state.hpp"

namespace mmt::tools {

struct SolveReport {
  std::string system;
  const gspn::TangibleReachabilityGraph* graph;
  std::size_t transientCount;
  const solver::SteadyStateResult* solution;
  double explorationSeconds;
  compiler::SystemMetrics metrics;
};

nlohmann::ordered_json toJson(const SolveReport& report);
void printTable(const SolveReport& report, std::ostream& out);

}  // namespace mmt::tools
