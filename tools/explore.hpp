#pragma once
// `mmt explore`: candidate mappings of a description's skeleton tasks, solved and ranked
// (docs/skeletons.md, "Exploring mappings"). The ranking and its two outputs.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/compile.hpp"
#include "compiler/mappings.hpp"
#include "sweep.hpp"

namespace mmt::tools {

/// One candidate mapping and what solving it gave.
struct ExploreEntry {
  compiler::Placements mapping;  ///< task → processor, for the tasks the description leaves free
  std::size_t order = 0;         ///< position in the enumeration (breaks ties)
  bool ok = false;
  std::string reason;            ///< why it failed
  std::optional<SweepValue> value;  ///< the ranking metric
  nlohmann::ordered_json results;   ///< as `mmt solve --format json` prints them
  std::size_t states = 0, vanishing = 0, edges = 0;
  double seconds = 0;            ///< compile, explore and solve
};

struct ExploreResult {
  std::string model;
  std::string metric;
  bool maximize = true;
  std::size_t candidates = 0;   ///< enumerated (or listed) before removing symmetric ones
  std::size_t symmetries = 1;   ///< hardware permutations found, the identity included
  bool symmetriesChecked = true;
  std::vector<ExploreEntry> entries;  ///< distinct candidates; ranked by rankExplored
  std::size_t shown = 0;        ///< --top: at most this many printed (0: all)
};

/// Sorts the entries best first by the metric (failed ones last), ties by enumeration order.
void rankExplored(ExploreResult& r);
void printExploreTable(const ExploreResult& r, std::ostream& out);
/// {"ranking": [{"rank", "mapping", "metric", "application", "states", "seconds"}, …],
///  "mappings": {"candidates", "distinct", "symmetries"}, …}
nlohmann::ordered_json exploreJson(const ExploreResult& r);

}  // namespace mmt::tools
