// The mean-field approximation of a net's replicas (meanfield/) against closed forms, the
// exact chain as the population grows ([Kurtz71]; [Ying16]) and the net it was read from.
#include "api/meanfield.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "api/contract.hpp"
#include "api/reference.hpp"
#include "api/solve.hpp"
#include "api/sweep.hpp"
#include "gspn/automorphisms.hpp"
#include "meanfield/solve.hpp"
#include "solve_helpers.hpp"

namespace mmt {
namespace {

/// N machines, each its own places, failing at rate λ and, with `crew` repairers, waiting
/// for one (an immediate start) and repaired at rate μ; without a crew each machine is
/// repaired alone at rate μ.
std::string machines(int n, int crew, double lambda, double mu) {
  std::string text = crew > 0 ? "place crew = " + std::to_string(crew) + ";\n" : "";
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    text += "place up" + k + " = 1; place down" + k + "; place fixing" + k + ";\n";
    text += "timed fail" + k + " rate " + std::to_string(lambda) + " in up" + k + " out down" + k +
            ";\n";
    if (crew > 0) {
      text += "immediate start" + k + " in down" + k + ", crew out fixing" + k + ";\n";
      text += "timed repair" + k + " rate " + std::to_string(mu) + " in fixing" + k + " out up" +
              k + ", crew;\n";
    } else {
      text += "timed repair" + k + " rate " + std::to_string(mu) + " in down" + k + " out up" + k +
              ";\n";
    }
  }
  return text;
}

struct Answer {
  double repairs;  ///< repairs per model time unit, every machine
  double down;     ///< mean machines down (waiting or being repaired)
};

Answer meanField(const gspn::Net& net) {
  const gspn::FoundSymmetry found = gspn::findSymmetry(net);
  REQUIRE(found.factors.size() == 1);
  const meanfield::PopulationModel model = meanfield::populationModel(net, found.factors);
  const meanfield::Hybrid hybrid(model);
  const meanfield::Equilibrium e = meanfield::equilibrium(hybrid, {});
  CHECK(e.residual <= 1e-10);
  const meanfield::Measures m(net, hybrid, e.state, e.classFlows);
  Answer a{0, 0};
  for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t)
    if (net.transition(t).name.rfind("repair", 0) == 0) a.repairs += m.throughput(t);
  for (gspn::PlaceId p = 0; p < net.placeCount(); ++p)
    if (net.place(p).name.rfind("up", 0) == 0) a.down += 1 - m.meanTokens(p);
  return a;
}

Answer exact(const std::string& text) {
  const api::Solution s = api::solve(testing::loadModelText(text));
  Answer a{0, 0};
  for (const auto& [name, value] : s.values.throughput)
    if (name.rfind("repair", 0) == 0) a.repairs += value;
  for (const auto& [name, value] : s.values.meanTokens)
    if (name.rfind("up", 0) == 0) a.down += 1 - value;
  return a;
}

TEST_CASE("mean-field of independent machines is their product form at any N") {
  const double lambda = 1, mu = 3;
  for (int n : {2, 5, 9}) {
    CAPTURE(n);
    const gspn::Net net = testing::loadGspnText(machines(n, 0, lambda, mu));
    const Answer a = meanField(net);
    CHECK(std::abs(a.repairs - n * lambda * mu / (lambda + mu)) <= 1e-9 * n);
    CHECK(std::abs(a.down - n * lambda / (lambda + mu)) <= 1e-9 * n);
  }
}

TEST_CASE("mean-field of machines sharing a crew approaches the exact chain as N grows") {
  // c = 2 repairers of rate 2 for N machines failing at rate 1, critical near N = 6 and
  // overloaded past it: repairs tend to c mu = 4 per time unit. The machines being
  // repaired, at most c, are counted exactly beside the crew; the others by their means.
  const double lambda = 1, mu = 2;
  double last = 1;
  for (int n : {12, 16, 24}) {
    CAPTURE(n);
    const std::string text = machines(n, 2, lambda, mu);
    const Answer mf = meanField(testing::loadGspnText(text));
    const Answer ex = exact(text);
    const double distance = std::abs(mf.repairs - ex.repairs) / ex.repairs;
    CAPTURE(mf.repairs);
    CAPTURE(ex.repairs);
    CHECK(mf.repairs <= 4 + 1e-9);
    CHECK(std::abs(mf.down - ex.down) <= 1e-3 * ex.down);
    CHECK(distance < last);
    last = distance;
  }
  CHECK(last < 1e-6);
}

}  // namespace
}  // namespace mmt

namespace mmt {
namespace {

std::string readText(const std::string& path) { return grammar::readSourceFile(path).text; }

double number(const api::MeanFieldSolution& s, const std::string& path) {
  const auto v = api::lookupMetric(s.results(), path);
  REQUIRE(v.has_value());
  return v->value;
}

/// No reference unless the request asks for one.
api::MeanFieldRequest alone() {
  api::MeanFieldRequest out;
  out.reference = api::MeanFieldRequest::Reference::None;
  return out;
}

api::MeanFieldSolution meanFieldOf(const std::string& path, const api::Parameters& parameters,
                                   const api::MeanFieldRequest& request = alone(),
                                   std::optional<std::string> text = std::nullopt) {
  return api::solveMeanField(api::readModel(path, std::move(text)), parameters, {}, request);
}

const std::string kFarm = MMT_SOURCE_DIR "/examples/farm.hdl";

/// Checks that every number of `probed` (a counted model, its first replica standing for
/// all) is `direct`'s (the model written at its size, every replica listed) to 1e-9, or
/// undefined in both; returns how many numbers were compared.
std::size_t checkSameNumbers(const api::MeanFieldSolution& probed,
                             const api::MeanFieldSolution& direct) {
  const std::map<std::string, double> listed =
      api::numbersByPath(api::namedResults(direct.metrics, direct.values));
  std::size_t compared = 0;
  for (const api::NamedNumber& n : api::namedResults(probed.metrics, probed.values).numbers) {
    CAPTURE(api::pathText(n.path));
    const auto it = listed.find(api::pathText(n.path));
    REQUIRE(it != listed.end());
    CHECK(std::isnan(n.value) == std::isnan(it->second));
    if (std::isnan(n.value)) continue;
    CHECK(std::abs(n.value - it->second) <= 1e-9 * std::max(1.0, std::abs(it->second)));
    ++compared;
  }
  return compared;
}

TEST_CASE("mean-field farm: a million workers from two small compilations, at its critical load") {
  // Emit and Collect each hand an item over in 1/100 and process it in 1/10 (the host's
  // rate 20 shared by the two): with workers to spare the farm passes 1 / (1/10 + 1/100)
  // items per time unit, and each worker is busy 1/1.5 of a time unit per item.
  for (double workers : {1000.0, 1e6}) {
    CAPTURE(workers);
    const api::MeanFieldSolution s = meanFieldOf(kFarm, {{"workers", workers}});
    const double closed = 1 / (0.1 + 0.01);
    CHECK(std::abs(number(s, "application.throughput") - closed) <= 1e-9 * closed);
    CHECK(std::abs(number(s, "tasks.W[1].utilization") - closed / 1.5 / workers) <=
          1e-9 * closed / 1.5 / workers);
    REQUIRE(s.population.replicas.size() == 1);
    CHECK(s.population.replicas[0].count == std::uint64_t(workers));
    CHECK(s.population.probes.size() == 2);
    CHECK(s.metrics->tasks.size() == 3);  // Emit, W[1] standing for all, Collect
    CHECK(s.standsFor.size() == 1);
    CHECK(s.equilibrium.residual <= 1e-10);
    // The full workers sit on the kink of Collect's transfer, min(1, x_full).
    CHECK(!s.equilibrium.kinks.empty());
  }
}

TEST_CASE("mean-field farm: its distance from the exact chain falls as the workers grow") {
  api::MeanFieldRequest request;
  request.reference = api::MeanFieldRequest::Reference::Auto;
  const api::MeanFieldSolution s = meanFieldOf(kFarm, {{"workers", 1000}}, request);
  REQUIRE(s.reference.has_value());
  const api::MeanFieldReference& r = *s.reference;
  CHECK(r.method == "exact at smaller sizes");
  REQUIRE(r.sizes.size() == 3);
  CHECK(r.sizes[0].replicas[0] == 64);
  const auto throughput = std::find_if(r.numbers.begin(), r.numbers.end(), [](const auto& n) {
    return api::pathText(n.path) == "application.throughput";
  });
  REQUIRE(throughput != r.numbers.end());
  // Each reference is the exact chain at that size, solved on its own.
  const api::Solution exact64 = api::solve(api::loadModel(kFarm, {{"workers", 64}}));
  CHECK(std::abs(throughput->reference[0] - exact64.metrics->application.throughput) <=
        1e-9 * exact64.metrics->application.throughput);
  CHECK(throughput->distances[0] < throughput->distances[1]);
  CHECK(throughput->distances[1] < throughput->distances[2]);
  CHECK(throughput->exponent > 0.8);
  // At 1,000 workers the exact answer is 9.0833 (tools/bench/meanfield solves it): the
  // trend of the smaller sizes puts the distance under 1e-3.
  CHECK(throughput->estimate < 1e-3);
}

TEST_CASE("mean-field farm: counted from probes or read at its size, the same numbers") {
  // farm(6) with its loops written out reads no parameter: the net itself is counted.
  std::string text = readText(kFarm);
  for (const char* from : {"farm(workers)", "1..workers"}) {
    const std::string to = std::string(from).replace(std::string(from).find("workers"), 7, "6");
    for (std::size_t at; (at = text.find(from)) != std::string::npos;)
      text.replace(at, std::string(from).size(), to);
  }
  const api::MeanFieldSolution direct = meanFieldOf(kFarm, {}, alone(), text);
  const api::MeanFieldSolution probed = meanFieldOf(kFarm, {{"workers", 6}});
  CHECK(direct.population.probes.empty());
  CHECK(probed.population.probes.size() == 2);
  CHECK(direct.metrics->tasks.size() == 8);  // every replica listed
  CHECK(checkSameNumbers(probed, direct) > 20);
}

TEST_CASE("mean-field trajectory of independent machines is their closed form") {
  // Each machine up with probability (mu + lambda e^{-(lambda + mu) t}) / (lambda + mu).
  const double lambda = 1, mu = 3;
  const int n = 7;
  api::MeanFieldRequest request = alone();
  request.times = {0, 0.25, 1};
  const std::string text = machines(n, 0, lambda, mu) + "measure down = prob(#down0 > 0);\n";
  const api::MeanFieldSolution s = meanFieldOf("machines.gspn", {}, request, text);
  REQUIRE(s.points.size() == 3);
  for (const api::TransientPoint& p : s.points) {
    CAPTURE(p.time);
    const double up = (mu + lambda * std::exp(-(lambda + mu) * p.time)) / (lambda + mu);
    for (const api::NamedNumber& x : p.results.numbers)
      if (api::pathText(x.path) == "places.up3.mean_tokens") CHECK(std::abs(x.value - up) <= 1e-7);
  }
  // prob(...) reads the distribution of one machine's local state.
  CHECK(std::abs(number(s, "measures.down") - lambda / (lambda + mu)) <= 1e-9);
}

TEST_CASE("mean-field refusals name what tells the replicas apart") {
  const auto refused = [](const std::string& path, const api::Parameters& p,
                          std::optional<std::string> text = std::nullopt) -> std::string {
    try {
      meanFieldOf(path, p, alone(), std::move(text));
    } catch (const api::FluidError& e) {
      CHECK(e.unsupported());
      return e.headline();
    }
    FAIL("not refused");
    return "";
  };
  // Faster processors for some workers: not interchangeable.
  CHECK(refused(kFarm, {{"workers", 100}, {"fast", 1}}).find("not interchangeable") !=
        std::string::npos);
  // A rate that reads the parameter as well as the count: the probes differ.
  std::string text = readText(kFarm);
  text.replace(text.find("rate: 1.5"), 9, "rate: 1.5 * workers");
  CHECK(refused(kFarm, {{"workers", 100}}, text).find("differs in more than its replica counts") !=
        std::string::npos);
  // No replicas at all.
  CHECK(refused(MMT_SOURCE_DIR "/tools/bench/models/kanban.gspn", {{"N", 2}})
            .find("no interchangeable replicas") != std::string::npos);
}

}  // namespace
}  // namespace mmt

namespace mmt {
namespace {

TEST_CASE("mean-field in studies: a sweep's and a contract's points are solveMeanField's") {
  const api::Model base = api::loadModel(kFarm, {{"emit_rate", 16}});
  api::SweepSettings sweep;
  sweep.parameters = {{"workers", {10, 1000, 1e6}}};
  sweep.series = {api::sweepSeries("exponential", false, true)};
  const api::SweepResult swept = api::sweep(base, sweep);
  REQUIRE(swept.points.size() == 3);
  for (const api::SweepPoint& p : swept.points) {
    CAPTURE(p.parameters.at("workers"));
    REQUIRE(p.ok);
    const api::MeanFieldSolution alone = meanFieldOf(kFarm, p.parameters);
    CHECK(p.values[0]->value ==
          doctest::Approx(number(alone, "application.throughput")).epsilon(1e-12));
  }
  CHECK(swept.json()["points"][0]["method"] == "mean-field");

  api::ContractSettings contract;
  contract.requirement = api::parseRequirement("application.throughput >= 7.4");
  contract.parameter = api::parseSweepParameter("workers=1..1000000", 10'000'000);
  contract.meanField = true;
  const api::ContractResult r = api::contract(base, contract);
  REQUIRE(r.answer.has_value());
  const api::ContractTry& answer = r.tries[*r.answer];
  CHECK(answer.meanField);
  CHECK(answer.metric >= 7.4);
  // The value below the answer misses it.
  const api::MeanFieldSolution below =
      meanFieldOf(kFarm, {{"emit_rate", 16}, {"workers", answer.value - 1}});
  CHECK(number(below, "application.throughput") < 7.4);
}

}  // namespace
}  // namespace mmt

namespace mmt {
namespace {

/// Two farms in a row: each transfer from one to the other fires for one worker of each,
/// its rate shared over every (full, idle) pair: a class of two slots whose orbit sum is a
/// sum of products.
std::string twoFarms(const std::string& a, const std::string& b) {
  return "system farms2 {\n  param a = 3;\n  param b = 3;\n"
         "  hardware {\n    processor Host;\n"
         "    for k in 1.." +
         a +
         " { processor P[k]; }\n"
         "    for k in 1.." +
         b +
         " { processor Q[k]; }\n"
         "    link Net (Host, P[1.." +
         a + "], Q[1.." + b +
         "]) { kind: bus; bandwidth: 100; }\n  }\n"
         "  application {\n    pipeline Job {\n      task Emit { rate: 10; }\n"
         "      farm(" +
         a +
         ") F { task A { rate: 1.5; size: 1; } }\n"
         "      farm(" +
         b +
         ") G { task B { rate: 2; size: 1; } }\n"
         "      task Collect { rate: 20; size: 1; }\n    }\n  }\n"
         "  mapping {\n    Emit, Collect on Host;\n"
         "    for k in 1.." +
         a +
         " { A[k] on P[k]; }\n"
         "    for k in 1.." +
         b + " { B[k] on Q[k]; }\n  }\n}\n";
}

TEST_CASE("mean-field of two farms in a row: probes and the net at its size agree") {
  const api::MeanFieldSolution direct = meanFieldOf("farms2.hdl", {}, alone(), twoFarms("4", "5"));
  const api::MeanFieldSolution probed =
      meanFieldOf("farms2.hdl", {{"a", 4}, {"b", 5}}, alone(), twoFarms("a", "b"));
  REQUIRE(direct.population.replicas.size() == 2);
  CHECK(probed.population.probes.size() == 2);
  CHECK(checkSameNumbers(probed, direct) > 20);
}

TEST_CASE("mean-field of examples/farm_pipeline.hdl: 4,000 workers, each farm by Little's law") {
  const api::MeanFieldSolution s = meanFieldOf(MMT_SOURCE_DIR "/examples/farm_pipeline.hdl", {});
  REQUIRE(s.population.replicas.size() == 4);
  const double x = number(s, "application.throughput");
  // The encoding farm, 1,000 workers at 0.009, bounds it at 9 frames per time unit.
  CHECK(x <= 9 * (1 + 1e-9));
  CHECK(x >= 0.99 * 9);
  // Each farm passes every frame: a worker is busy x / (rate · 1,000) of the time.
  // No structured binding: clang 14 (the sanitizer build) cannot CAPTURE one.
  for (const std::pair<const char*, double>& farm :
       {std::pair{"D[1]", 0.011}, std::pair{"F[1]", 0.012}, std::pair{"E[1]", 0.009},
        std::pair{"K[1]", 0.02}}) {
    const char* task = farm.first;
    const double rate = farm.second;
    CAPTURE(task);
    CHECK(number(s, std::string("tasks.") + task + ".utilization") ==
          doctest::Approx(x / (rate * 1000)).epsilon(1e-9));
  }
  // Processors whose names move with the count are named by their tasks.
  CHECK(api::lookupMetric(s.results(), "processors.processor of E[1].utilization").has_value());
  CHECK(api::lookupMetric(s.results(), "processors.P[1].utilization").has_value());
}

}  // namespace
}  // namespace mmt
