#include "api/explore.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>

#include "api/meanfield.hpp"
#include "api/parallel.hpp"
#include "api/solve.hpp"

namespace mmt::api {

void rankExplored(ExploreResult& r) {
  std::stable_sort(r.entries.begin(), r.entries.end(),
                   [&](const ExploreEntry& a, const ExploreEntry& b) {
                     if (a.ok != b.ok) return a.ok;
                     if (!a.ok) return a.order < b.order;
                     const double x = a.value->value, y = b.value->value;
                     if (x != y) return r.maximize ? x > y : x < y;
                     return a.order < b.order;
                   });
}

nlohmann::ordered_json ExploreResult::json() const {
  const ExploreResult& r = *this;
  using json = nlohmann::ordered_json;
  json ranking = json::array();
  for (std::size_t i = 0; i < shownCount(); ++i) {
    const ExploreEntry& e = r.entries[i];
    json mapping = json::object();
    for (const auto& [task, processor] : e.mapping) mapping[task] = processor;
    json item = {{"rank", i + 1}, {"mapping", mapping}};
    if (!e.ok) {
      item["failed"] = e.reason;
    } else {
      item["metric"] = e.value->value;
      item["application"] = e.results.at("application");
      item["states"] = {{"tangible", e.states}, {"vanishing", e.vanishing}, {"edges", e.edges}};
      item["seconds"] = e.seconds;
    }
    ranking.push_back(std::move(item));
  }
  nlohmann::ordered_json out = schemaTag("explore");
  out.update(nlohmann::ordered_json{{"system", r.model},
                                    {"metric", r.metric},
                                    {"order", r.maximize ? "max" : "min"},
                                    {"ranking", ranking},
                                    {"mappings",
                                     {{"candidates", r.candidates},
                                      {"distinct", r.entries.size()},
                                      {"symmetries", r.symmetries},
                                      {"symmetries_searched", r.symmetriesChecked}}}});
  return out;
}

std::size_t ExploreResult::failed() const {
  return std::size_t(
      std::count_if(entries.begin(), entries.end(), [](const ExploreEntry& e) { return !e.ok; }));
}

namespace {

/// Every assignment of the unplaced tasks, one per class of assignments that identical
/// processors make the same.
std::vector<compiler::Placements> distinctCandidates(const compiler::System& system,
                                                     const compiler::MappingSpace& space,
                                                     std::uint64_t limit, ExploreResult& result) {
  std::vector<compiler::Mapping> all;
  try {
    all = compiler::allMappings(space, limit);
  } catch (const std::length_error& e) {
    throw SettingError("max_candidates", e.what());
  }
  result.candidates = all.size();
  std::vector<compiler::Placements> out;
  for (std::size_t i : compiler::distinctMappings(space, all)) {
    compiler::Placements p;
    for (std::size_t t = 0; t < space.free.size(); ++t)
      p.emplace_back(system.tasks[space.free[t]].name, system.processors[all[i][t]].name);
    out.push_back(std::move(p));
  }
  return out;
}

/// Builds and solves one candidate into its entry (a failure is kept there).
void solveCandidate(const std::shared_ptr<const ModelSource>& source,
                    const ExploreSettings& settings, ExploreEntry& entry) {
  const auto start = std::chrono::steady_clock::now();
  try {
    if (settings.meanField) {
      MeanFieldRequest request;
      request.reference = MeanFieldRequest::Reference::None;
      entry.results =
          solveMeanField(source, settings.parameters, settings.solver, request, entry.mapping)
              .results();
    } else {
      const Solution exact =
          solve(buildModel(source, settings.parameters, entry.mapping), settings.solver);
      entry.results = exact.results();
      entry.states = exact.chain.explored.graph.stateCount();
      entry.vanishing = exact.chain.explored.graph.vanishingCount;
      entry.edges = exact.chain.explored.graph.edgeCount();
    }
    entry.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } catch (const InterruptedError&) {
    throw;
  } catch (const Error& e) {
    entry.reason = e.summary();
    return;
  }
  entry.value = lookupMetric(entry.results, settings.metric);
  entry.ok = entry.value.has_value();
  entry.unknownMetric = !entry.ok;
  if (!entry.ok) entry.reason = "no metric '" + settings.metric + "'";
}

/// A candidate's outcome as bytes (CBOR), for one solved in another process.
PointBytes encodeOutcome(const ExploreEntry& entry) {
  nlohmann::ordered_json j = {{"ok", entry.ok},
                              {"reason", entry.reason},
                              {"results", entry.results},
                              {"states", entry.states},
                              {"vanishing", entry.vanishing},
                              {"edges", entry.edges},
                              {"seconds", entry.seconds},
                              {"unknown_metric", entry.unknownMetric}};
  if (entry.value) j["value"] = nlohmann::ordered_json(valueInTransit(*entry.value));
  return nlohmann::ordered_json::to_cbor(j);
}

void decodeOutcome(const PointBytes& bytes, ExploreEntry& entry) {
  nlohmann::ordered_json j = nlohmann::ordered_json::from_cbor(bytes);
  entry.ok = j.at("ok").get<bool>();
  entry.reason = j.at("reason").get<std::string>();
  entry.results = std::move(j.at("results"));
  entry.states = j.at("states").get<std::size_t>();
  entry.vanishing = j.at("vanishing").get<std::size_t>();
  entry.edges = j.at("edges").get<std::size_t>();
  entry.seconds = j.at("seconds").get<double>();
  entry.unknownMetric = j.at("unknown_metric").get<bool>();
  if (j.contains("value")) entry.value = valueFromTransit(nlohmann::json(j["value"]));
}

}  // namespace

ExploreResult explore(const std::shared_ptr<const ModelSource>& source,
                      const ExploreSettings& settings,
                      const std::function<void(std::size_t, std::size_t)>& progress) {
  settings.solver.check();
  const compiler::System system = probeSystem(*source, settings.parameters);
  ExploreResult result;
  result.model = system.name;
  result.metric = settings.metric;
  result.meanField = settings.meanField;
  result.maximize = settings.maximize ? *settings.maximize
                                      : settings.metric.find("throughput") != std::string::npos;
  const compiler::MappingSpace space = compiler::mappingSpace(system);
  result.symmetriesChecked = space.symmetriesChecked;
  result.symmetries = space.symmetries.size();
  std::vector<compiler::Placements> candidates;
  if (settings.mappings) {
    candidates = *settings.mappings;
    result.candidates = candidates.size();
  } else {
    result.allPlaced = space.free.empty();
    candidates = distinctCandidates(system, space, settings.maxCandidates, result);
  }
  result.entries.resize(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    result.entries[i].mapping = candidates[i];
    result.entries[i].order = i;
  }
  std::atomic<std::size_t> finished{0};
  auto count = [&] {
    const std::size_t done = ++finished;
    if (progress) progress(done, candidates.size());
  };
  if (settings.distribution) {
    settings.distribution->distribute(
        0, candidates.size(),
        [&](std::size_t i) {
          ExploreEntry entry = result.entries[i];
          solveCandidate(source, settings, entry);
          return encodeOutcome(entry);
        },
        [&](std::size_t i, const PointBytes& bytes) {
          decodeOutcome(bytes, result.entries[i]);
          count();
          return false;
        });
    if (!settings.distribution->leads()) return result;
  } else {
    const unsigned threads = settings.threads ? settings.threads : threadsFor(candidates.size());
    runParallel(0, candidates.size(), threads, [&](std::size_t i) {
      solveCandidate(source, settings, result.entries[i]);
      count();
    });
  }
  // A misspelt metric fails every candidate the same way: say so once.
  if (!result.entries.empty() && result.entries.front().unknownMetric)
    throw UnknownMetricError(settings.metric, metricPaths(result.entries.front().results));
  rankExplored(result);
  return result;
}

}  // namespace mmt::api
