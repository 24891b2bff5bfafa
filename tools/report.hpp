#pragma once
// Formatting of `mmt solve` results: a grouped table for people, one JSON object for scripts.
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/metrics.hpp"
#include "gspn/reachability.hpp"
#include "solver/steady_state.hpp"

namespace mmt::tools {

/// Steady-state quantities of a raw net, by name, in net order.
struct NetMeasures {
  std::vector<std::pair<std::string, double>> meanTokens;  ///< per place, tokens
  std::vector<std::pair<std::string, double>> throughput;  ///< per transition, per time unit
  std::vector<std::pair<std::string, double>> measures;    ///< user measures
};

struct SolveReport {
  std::string name;  ///< system or net name
  const gspn::TangibleReachabilityGraph* graph;
  std::size_t transientCount;
  const solver::SteadyStateResult* solution;
  double explorationSeconds;
  double peakMemoryMegabytes;
  /// A compiled system has its MMT metrics; a raw net (.gspn, .pnml, GreatSPN) has `net`.
  std::optional<compiler::SystemMetrics> metrics;
  NetMeasures net;
};

nlohmann::ordered_json toJson(const SolveReport& report);
void printTable(const SolveReport& report, std::ostream& out);

}  // namespace mmt::tools
