// Coverage of the simulator's confidence intervals: an interval claims the truth lies inside
// it at the stated confidence, so over many independent simulations (seeds 1, 2, ...) of
// nets whose exact values are known, a 95 % interval must cover the exact value about 95 %
// of the time (A. M. Law, "Simulation Modeling and Analysis", 5th ed., §9.4.1: coverage of
// the replication/deletion interval). Accepted: 90 % to 98 % (at 400 runs the number of
// misses has a standard deviation of 4.4 around 20, so a sound interval falls outside this
// range about once in 500 such tests; at 1,000 runs almost never; the seeds are fixed, so
// the outcome is too). Exact values: the CTMC solution of the same model (tested against
// closed forms elsewhere).
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "api/results.hpp"
#include "api/simulate.hpp"
#include "api/solve.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

/// For each number at `paths`, the fraction of `runs` simulations (seeds 1 .. runs, with
/// `settings` otherwise) whose interval covers the exact value.
std::map<std::string, double> coverage(const api::Model& model, api::SimulationSettings settings,
                                       std::uint64_t runs, const std::vector<std::string>& paths) {
  const nlohmann::ordered_json exact = api::solve(model, {}).results();
  std::map<std::string, std::uint64_t> misses;
  for (std::uint64_t seed = 1; seed <= runs; ++seed) {
    settings.seed = seed;
    const api::Simulation s = api::simulate(model, settings);
    REQUIRE_FALSE(s.deterministic);
    const api::ComparisonTree tree = api::compareTrees(exact, {{"simulated", &s.summary.tree}});
    for (const std::string& path : tree.outside) ++misses[path];
  }
  std::map<std::string, double> out;
  for (const std::string& path : paths) {
    out[path] = 1 - static_cast<double>(misses[path]) / static_cast<double>(runs);
    MESSAGE(path << ": covered in " << runs - misses[path] << " of " << runs << " runs");
  }
  return out;
}

}  // namespace

TEST_CASE(
    "coverage: 95 % intervals of an M/M/1/K queue cover the exact values in 90-98 % of 1000 runs" *
    doctest::test_suite("slow")) {
  const api::Model model = testing::loadModelText(
      "place queue; timed arrive rate 0.7 out queue inhibit queue * 4;"
      "timed serve rate 1.3 in queue;");
  api::SimulationSettings settings;
  settings.replications = 10;
  settings.events = 4'000;
  const std::vector<std::string> paths{"places.queue.mean_tokens", "transitions.serve.throughput"};
  for (const auto& [metric, covered] : coverage(model, settings, 1'000, paths)) {
    const std::string& path = metric;
    CAPTURE(path);
    CHECK(covered >= 0.90);
    CHECK(covered <= 0.98);
  }
}

TEST_CASE(
    "coverage: 95 % intervals of the fork-join with exponential delays cover the exact values in "
    "90-98 % of 400 runs" *
    doctest::test_suite("slow")) {
  const api::Model model = api::loadModel(std::string(MMT_SOURCE_DIR) + "/examples/forkjoin.hdl");
  api::SimulationSettings settings;
  settings.delays = sim::Delays::Exponential;
  settings.replications = 10;
  settings.events = 4'000;
  const std::vector<std::string> paths{"application.response_time", "processors.P4.utilization",
                                       "links.L12.queue_length"};
  for (const auto& [metric, covered] : coverage(model, settings, 400, paths)) {
    const std::string& path = metric;
    CAPTURE(path);
    CHECK(covered >= 0.90);
    CHECK(covered <= 0.98);
  }
}
