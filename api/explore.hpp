#pragma once
/// \file
/// Design-space exploration of a description with skeletons (AMoGeT, Benoit et al. 2005;
/// docs/skeletons.md, "Exploring mappings"): every assignment of the tasks the mapping
/// leaves unplaced to the processors that may run them (or mappings given as a list) is
/// built and solved exactly, on every core, and ranked by a metric. Mappings that are the
/// same model up to identical processors and links exchanged are solved once.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/parallel.hpp"
#include "api/settings.hpp"
#include "api/sweep.hpp"
#include "compiler/compile.hpp"
#include "compiler/mappings.hpp"

namespace mmt::api {

/// One candidate mapping and what solving it gave.
struct ExploreEntry {
  compiler::Placements mapping;  ///< task → processor, for the tasks the description leaves free
  std::size_t order = 0;         ///< position in the enumeration (breaks ties)
  bool ok = false;
  std::string reason;               ///< why it failed
  std::optional<SweepValue> value;  ///< the ranking metric
  nlohmann::ordered_json results;   ///< as `mmt solve --format json` prints them
  std::size_t states = 0, vanishing = 0, edges = 0;
  double seconds = 0;          ///< compile, explore and solve
  bool unknownMetric = false;  ///< solved, but the metric names no result
};

struct ExploreResult {
  std::string model;
  std::string metric;
  bool maximize = true;
  std::size_t candidates = 0;  ///< enumerated (or listed) before removing symmetric ones
  std::size_t symmetries = 1;  ///< hardware permutations found, the identity included
  bool symmetriesChecked = true;
  std::vector<ExploreEntry> entries;  ///< distinct candidates; ranked by rankExplored
  bool allPlaced = false;             ///< the description places every task: one candidate
  bool meanField = false;             ///< each candidate by the mean-field approximation
  std::size_t shown = 0;              ///< at most this many printed (0: all)
  std::size_t shownCount() const {
    return shown == 0 ? entries.size() : std::min(shown, entries.size());
  }
  /// Candidates that failed.
  std::size_t failed() const;
  /// The document `mmt explore --format json` prints (docs/schema/explore.json): the
  /// shown entries ranked, and the counts of the mapping space.
  nlohmann::ordered_json json() const;
};

/// Sorts the entries best first by the metric (failed ones last), ties by enumeration order.
void rankExplored(ExploreResult& r);

struct ExploreSettings {
  /// The metric to rank by, a path of the results tree.
  std::string metric = "application.throughput";
  /// Larger is better; unset: for a throughput, smaller otherwise.
  std::optional<bool> maximize;
  /// The candidates; unset: every assignment of the unplaced tasks.
  std::optional<std::vector<compiler::Placements>> mappings;
  /// Most assignments enumerated.
  std::uint64_t maxCandidates = 10'000;
  /// The description's parameters.
  Parameters parameters;
  Settings solver;
  /// Each candidate answered by the mean-field approximation (api/meanfield.hpp) instead.
  bool meanField = false;
  /// Candidates solved at once (0: one per core).
  unsigned threads = 0;
  /// When set, the candidates are spread over its processes instead (`mpirun -n P mmt
  /// explore`); the result is complete in the leading process only.
  std::shared_ptr<const PointDistribution> distribution;
};

/// Explores the mappings of the description `source` and ranks them. Throws ModelError
/// (the description, even with its tasks unplaced), SettingError("max_candidates") when
/// there are more assignments than allowed, UnknownMetricError when the metric names no
/// result. A candidate that fails (an impossible mapping, a state limit, a solver that
/// does not converge) is kept, failed, at the end of the ranking. `progress(done, total)`
/// is called after each candidate, from the thread that solved it.
ExploreResult explore(const std::shared_ptr<const ModelSource>& source,
                      const ExploreSettings& settings,
                      const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace mmt::api
