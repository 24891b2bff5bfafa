// Programs that end: the batch(n, k) workload (docs/language.md, "Workload"), its makespan
// and its metrics over the run, against closed forms and against closed(1).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "api/solve.hpp"
#include "compile_helpers.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

/// A farm of `workers` replicas of rate mu on their own processors, fed a batch of n items.
std::string batchFarm(int n, int workers, double mu) {
  return "system batch_farm {\n"
         "  hardware { processor Host; for k in 1.." +
         std::to_string(workers) +
         " { processor P[k]; } }\n"
         "  application { farm(" +
         std::to_string(workers) + ") F { task W { rate: " + std::to_string(mu) +
         "; } } }\n"
         "  mapping { for k in 1.." +
         std::to_string(workers) +
         " { W[k] on P[k]; } }\n"
         "  workload: batch(" +
         std::to_string(n) + ");\n}\n";
}

}  // namespace

TEST_CASE("batch: a farm's makespan is Σ_j 1 / (μ min(W, n − j)), lumped or not") {
  const double mu = 1.5;
  for (const auto& row : {std::pair{1, 1}, {7, 2}, {30, 4}, {12, 12}, {64, 5}}) {
    const int n = row.first, workers = row.second;
    CAPTURE(n);
    CAPTURE(workers);
    double mean = 0, variance = 0;
    for (int j = 0; j < n; ++j) {
      const double phase = 1 / (mu * std::min(workers, n - j));
      mean += phase;
      variance += phase * phase;
    }
    const api::Model model = testing::loadModelText(batchFarm(n, workers, mu), ".hdl");
    for (bool symmetry : {true, false}) {
      CAPTURE(symmetry);
      api::Settings settings;
      settings.symmetry = symmetry;
      const api::Solution s = api::solve(model, settings);
      REQUIRE(s.isBatch());
      CHECK(s.absorption->meanTime == doctest::Approx(mean).epsilon(1e-9));
      CHECK(s.absorption->variance == doctest::Approx(variance).epsilon(1e-9));
      const compiler::SystemMetrics& m = *s.metrics;
      CHECK(*m.application.makespan == doctest::Approx(mean).epsilon(1e-9));
      // Over the run: n items in the makespan; each worker busy n / W · 1/μ of it on average.
      CHECK(m.application.throughput == doctest::Approx(n / mean).epsilon(1e-9));
      double busy = 0;
      for (const auto& t : m.tasks) busy += t.utilization;
      CHECK(busy * mean == doctest::Approx(n / mu).epsilon(1e-9));
      // Each item spends 1/μ in the farm: no waiting, as every item is there from the start.
      CHECK(*m.application.responseTime == doctest::Approx(1 / mu).epsilon(1e-9));
    }
  }
}

TEST_CASE("batch(n, 1) of a dataflow application is n iterations of closed(1) in a row") {
  const std::string text = testing::readExample("forkjoin.hdl");
  const std::string closed = "workload: closed(1);";
  REQUIRE(text.find(closed) != std::string::npos);
  auto with = [&](const std::string& workload) {
    std::string t = text;
    t.replace(t.find(closed), closed.size(), workload);
    return api::solve(testing::loadModelText(t, ".hdl"));
  };
  const api::Solution steady = api::solve(testing::loadModelText(text, ".hdl"));
  const double iteration = *steady.metrics->application.responseTime;
  const api::Solution batch = with("workload: batch(4, 1);");
  REQUIRE(batch.isBatch());
  CHECK(*batch.metrics->application.makespan == doctest::Approx(4 * iteration).epsilon(1e-9));
  CHECK(batch.metrics->application.throughput ==
        doctest::Approx(steady.metrics->application.throughput).epsilon(1e-9));
  CHECK(*batch.metrics->application.responseTime == doctest::Approx(iteration).epsilon(1e-9));
  // Two in flight overlap them: a shorter makespan, a longer time per iteration.
  const api::Solution two = with("workload: batch(4, 2);");
  CHECK(*two.metrics->application.makespan < 4 * iteration);
  CHECK(*two.metrics->application.responseTime > iteration);
  // JSON: the makespan among the application's metrics, the run's end in `absorption`.
  const nlohmann::ordered_json json = two.json();
  CHECK(json["application"]["makespan"].get<double>() ==
        doctest::Approx(*two.metrics->application.makespan).epsilon(1e-15));
  CHECK(json["absorption"]["components"].size() == 1);
  CHECK_FALSE(json["absorption"].contains("accumulated"));
}

TEST_CASE("a batch that can stop short of its last iteration is an error saying how likely") {
  const std::string text =
      "system stuck {\n"
      "  hardware { processor P1; }\n"
      "  application {\n"
      "    actor A { demand: 1; } actor S { demand: 1; }\n"
      "    data D1 { capacity: 1; } data D2;\n"
      "    A -> D1 { size: 1; } A -> D2 { size: 1; } D2 -> S { size: 1; }\n"
      "  }\n"
      "  mapping { A, S, D1, D2 on P1; }\n"
      "  workload: batch(3);\n"
      "}\n";
  try {
    api::solve(testing::loadModelText(text, ".hdl"));
    FAIL("no StructureError");
  } catch (const api::StructureError& e) {
    CHECK((e.kind() == solver::ChainStructure::Kind::Deadlock));
    const std::string what = e.what();
    CHECK(what.find("the batch can stop before its last iteration ends") != std::string::npos);
    CHECK(what.find("completes with probability 0)") != std::string::npos);
  }
}

TEST_CASE("batch: the makespan's distribution and percentiles, lumped") {
  // Two items on two workers of rate mu: the makespan is the larger of two Exp(mu),
  // F(t) = (1 − e^{−μt})², its p-quantile −ln(1 − √p) / μ.
  const double mu = 1.5;
  const api::Model model = testing::loadModelText(batchFarm(2, 2, mu), ".hdl");
  api::PassageRequest request;
  request.times = {0.5, 2};
  request.percentiles = {50, 95};
  const api::Solution s = api::solve(model, {}, {}, {}, request);
  REQUIRE(s.passages);
  CHECK(s.symmetry.used());  // the time to the end lumps
  REQUIRE(s.passages->distributions.size() == 1);
  const api::PassageDistribution& d = s.passages->distributions[0];
  CHECK(d.section == "application");
  CHECK(d.quantity == "makespan");
  CHECK(d.mean == doctest::Approx(1.5 / mu).epsilon(1e-9));  // 1/μ + 1/(2μ)
  for (std::size_t i = 0; i < request.times.size(); ++i) {
    const double f = 1 - std::exp(-mu * request.times[i]);
    CHECK(d.cdf[i] == doctest::Approx(f * f).epsilon(1e-9));
  }
  for (std::size_t i = 0; i < request.percentiles.size(); ++i)
    CHECK(
        d.percentiles[i] ==
        doctest::Approx(-std::log(1 - std::sqrt(request.percentiles[i] / 100)) / mu).epsilon(1e-8));
  // The percentiles are results a study can require, application.makespan_p95.
  CHECK(api::percentileOf("application.makespan_p95") == 95);
  nlohmann::ordered_json tree = s.results();
  api::addPercentiles(tree, *s.passages);
  CHECK(tree["application"]["makespan_p95"].get<double>() ==
        doctest::Approx(d.percentiles[1]).epsilon(1e-15));
}
