// Contracts that explain themselves (docs/skeletons.md, "Contracts"): values the bound
// rules out are not solved, a requirement the bound makes impossible is said to be so
// before anything is solved, and with no answer the bottleneck and GridCOMP's remedies
// are named, each checked against the bound of the changed system.
#include "api/contract.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "api/solve.hpp"
#include "compile_helpers.hpp"
#include "compiler/bounds.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

using Kind = compiler::BoundElement::Kind;
using Remedy = api::Suggestion::Remedy;

/// examples/farm.hdl with `from` replaced by `to` (each once).
std::string farmWith(std::initializer_list<std::pair<std::string, std::string>> edits) {
  std::string text = testing::readExample("farm.hdl");
  for (const auto& [from, to] : edits) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  return text;
}

api::Model loadSystem(const std::string& text) { return testing::loadModelText(text, ".hdl"); }

double boundAt(const api::Model& model, double workers) {
  api::Parameters point = model.parameters;
  point["workers"] = workers;
  const api::Model m = model.at(point);
  return *compiler::throughputBound(m.compiled->system, m.compiled->routing);
}

api::ContractResult run(const api::Model& model, const std::string& requirement,
                        const std::string& vary, bool linear = false) {
  api::ContractSettings settings;
  settings.requirement = api::parseRequirement(requirement);
  settings.parameter = api::parseSweepParameter(vary);
  settings.linear = linear;
  return api::contract(model, settings);
}

}  // namespace

TEST_CASE("contract: a slow shared emitter makes the target impossible; nothing is solved") {
  // Emit (work 1/4) shares Host with Collect, statically: 0.25 · 2 / 1 = 0.5 per item, a
  // bound of 2 whatever the number of workers.
  const api::Model model = loadSystem(testing::readExample("farm.hdl")).at({{"emit_rate", 4}});
  const api::ContractResult r = run(model, "application.throughput >= 5", "workers=1..12");
  CHECK(!r.answer);
  CHECK(r.impossible);
  CHECK(r.tries.empty());
  REQUIRE(r.diagnosis);
  const api::Diagnosis& d = *r.diagnosis;
  CHECK(d.impossible);
  CHECK(d.bound == doctest::Approx(2).epsilon(1e-12));
  CHECK(d.serviceTime == doctest::Approx(0.5).epsilon(1e-12));
  REQUIRE(d.bottleneck.size() == 1);
  const api::BottleneckElement& e = d.bottleneck[0];
  CHECK((e.kind == Kind::Task));
  CHECK(e.name == "Emit");
  CHECK(e.processor == "Host");
  CHECK((e.sharedWith == std::vector<std::string>{"Collect"}));
  CHECK(d.reason.find("at every value of workers") != std::string::npos);
  // Collect (0.1) is next: without Emit's time the bound would be 10.
  REQUIRE(d.boundWithout);
  CHECK(*d.boundWithout == doctest::Approx(10).epsilon(1e-12));
  REQUIRE(d.suggestions.size() == 2);
  CHECK((d.suggestions[0].remedy == Remedy::SeparateProcessor));
  CHECK((d.suggestions[1].remedy == Remedy::FasterProcessor));
  CHECK(*d.suggestions[1].needed == doctest::Approx(2.5).epsilon(1e-12));  // 5 · 0.5
  // Checked on the changed systems: Emit alone on a processor of its own has work / speed
  // = 0.25, a bound of 4, as said; a Host 2.5 times as fast gives exactly the target.
  const api::Model own =
      loadSystem(farmWith({{"param emit_rate = 20;", "param emit_rate = 4;"},
                           {"processor Host {", "processor Own; processor Host {"},
                           {"link Net (Host,", "link Net (Host, Own,"},
                           {"Emit, Collect on Host;", "Emit on Own; Collect on Host;"}}));
  CHECK(boundAt(own, 12) == doctest::Approx(*d.suggestions[0].needed).epsilon(1e-12));
  CHECK(*d.suggestions[0].needed == doctest::Approx(4).epsilon(1e-12));
  const api::Model faster =
      loadSystem(farmWith({{"param emit_rate = 20;", "param emit_rate = 4;"},
                           {"local_bandwidth: 1000;", "local_bandwidth: 1000; speed: 2.5;"}}));
  CHECK(boundAt(faster, 12) == doctest::Approx(5).epsilon(1e-12));
}

TEST_CASE("contract: values the bound rules out are tried without a solution") {
  // Workers at 1.5 each: 1, 2 and 3 workers have bounds 1.5, 3, 4.5 < 5.
  const api::Model model = loadSystem(testing::readExample("farm.hdl"));
  const api::ContractResult linear =
      run(model, "application.throughput >= 5", "workers=1..12", true);
  REQUIRE(linear.answer);
  CHECK(linear.tries[*linear.answer].value == 5);
  REQUIRE(linear.tries.size() == 5);
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(linear.tries[i].ruledOut);
    CHECK(!linear.tries[i].met);
    CHECK(linear.tries[i].states == 0);
    CHECK(*linear.tries[i].bound == doctest::Approx(1.5 * double(i + 1)).epsilon(1e-12));
  }
  CHECK(!linear.tries[3].ruledOut);
  CHECK(linear.tries[3].states > 0);
  CHECK(!linear.diagnosis);
  // The bisection lands on the same value.
  const api::ContractResult bisect = run(model, "application.throughput >= 5", "workers=1..12");
  REQUIRE(bisect.answer);
  CHECK(bisect.tries[*bisect.answer].value == 5);
}

TEST_CASE("contract: the workers are the bottleneck: more workers, as many as the bound needs") {
  // Up to 4 workers the farm (0.667 / n) is slower than Emit and Collect (0.1 each).
  const api::Model model = loadSystem(testing::readExample("farm.hdl"));
  const api::ContractResult r = run(model, "application.throughput >= 8", "workers=1..4");
  CHECK(r.impossible);
  REQUIRE(r.diagnosis);
  const api::Diagnosis& d = *r.diagnosis;
  CHECK(d.value == 4);
  REQUIRE(d.bottleneck.size() == 1);
  CHECK((d.bottleneck[0].kind == Kind::Farm));
  CHECK(d.bottleneck[0].name == "F");
  CHECK(d.bottleneck[0].replicas == 4);
  REQUIRE(!d.suggestions.empty());
  CHECK((d.suggestions[0].remedy == Remedy::MoreWorkers));
  const double needed = *d.suggestions[0].needed;
  CHECK(needed == 6);
  // The smallest count whose bound reaches 8, checked on the system itself.
  CHECK(boundAt(model, needed) >= 8);
  CHECK(boundAt(model, needed - 1) < 8);
}

TEST_CASE("contract: the bound allows it but queueing does not: the reason says so") {
  // 7 and 8 workers: bound 10 (Emit and Collect, 0.1 each) >= 9.5, but the exact
  // throughput stays near 7.
  const api::Model model = loadSystem(testing::readExample("farm.hdl"));
  const api::ContractResult r = run(model, "application.throughput >= 9.5", "workers=7..8");
  CHECK(!r.answer);
  CHECK(!r.impossible);
  REQUIRE(r.best);
  REQUIRE(r.diagnosis);
  const api::Diagnosis& d = *r.diagnosis;
  CHECK(d.value == r.tries[*r.best].value);
  CHECK(d.reason.find("blocking and variable times") != std::string::npos);
  REQUIRE(d.bottleneck.size() == 2);  // a tie
  CHECK(d.bottleneck[0].name == "Emit");
  CHECK(d.bottleneck[1].name == "Collect");
  // The bound is not what falls short: no speed-up or count is computed; a processor of
  // its own still says what bound it would give.
  for (const api::Suggestion& s : d.suggestions)
    CHECK(s.needed.has_value() == (s.remedy == Remedy::SeparateProcessor));
  // Emit on a processor of its own: Emit 0.05, Collect alone on Host 0.05, the farm of 8
  // 0.0833: 12, as the changed system's bound says.
  REQUIRE((d.suggestions[0].remedy == Remedy::SeparateProcessor));
  CHECK(d.suggestions[0].element == "Emit");
  const api::Model own =
      loadSystem(farmWith({{"processor Host {", "processor Own; processor Host {"},
                           {"link Net (Host,", "link Net (Host, Own,"},
                           {"Emit, Collect on Host;", "Emit on Own; Collect on Host;"}}));
  CHECK(*d.suggestions[0].needed == doctest::Approx(boundAt(own, d.value)).epsilon(1e-12));
  CHECK(*d.suggestions[0].needed == doctest::Approx(12).epsilon(1e-12));
}

TEST_CASE("bottleneck: a slow link makes a move the bottleneck") {
  // Items of size 1 over a link of bandwidth 0.5: the move takes 2, the stages 1 and 0.5.
  const api::Model model = loadSystem(R"(system s {
    hardware { processor A; processor B; link L (A, B) { bandwidth: 0.5; } }
    application { pipeline Q { input: local; output: local;
                               task S1 { rate: 1; } task S2 { rate: 2; size: 1; } } }
    mapping { S1 on A; S2 on B; }
  })");
  const auto b = compiler::bottleneck(model.compiled->system, model.compiled->routing);
  REQUIRE(b);
  REQUIRE(b->elements.size() == 1);
  CHECK((b->elements[0].kind == Kind::Move));
  CHECK(b->elements[0].name == "S1->S2");
  CHECK(b->serviceTime == doctest::Approx(2).epsilon(1e-12));
  const auto d = api::diagnose(model, 0, "x", 1.0, std::nullopt, false);
  REQUIRE(d);
  REQUIRE(d->suggestions.size() == 1);
  CHECK((d->suggestions[0].remedy == Remedy::FasterLink));
  CHECK(*d->suggestions[0].needed == doctest::Approx(2).epsilon(1e-12));
}

TEST_CASE("contract: 'input' asks for the fewest workers that keep up with Emit and Collect") {
  // Emit and Collect (work 1/20 each, sharing Host) take 0.1 per item: T_A = T_D = 0.1. The
  // farm of n workers of work 1/1.5 takes (1/1.5)/n, at most 0.1 from n = 7 on
  // ([GridCOMP08]: add workers while T_W / n > max{T_A, T_D}).
  const api::Model model = loadSystem(testing::readExample("farm.hdl"));
  const api::ContractResult r = run(model, "application.throughput >= input", "workers=1..12");
  REQUIRE(r.surroundings);
  CHECK(r.surroundings->varied == std::vector<std::string>{"F"});
  CHECK(r.surroundings->arrivalTime == doctest::Approx(0.1).epsilon(1e-12));
  CHECK(r.surroundings->arrivalFrom == "Emit");
  CHECK(r.surroundings->departureTime == doctest::Approx(0.1).epsilon(1e-12));
  CHECK(r.surroundings->departureFrom == "Collect");
  CHECK(r.settings.requirement.bound == doctest::Approx(10).epsilon(1e-12));
  REQUIRE(r.answer);
  const api::ContractTry& a = r.tries[*r.answer];
  CHECK(a.value == 7);
  CHECK(*a.serviceTime == doctest::Approx(1 / 1.5 / 7).epsilon(1e-12));
  // Values in order, by service time alone; only the answer is solved, exactly as `solve`.
  CHECK(r.tries.size() == 7);
  for (std::size_t i = 0; i + 1 < r.tries.size(); ++i) {
    CHECK(!r.tries[i].met);
    CHECK(r.tries[i].states == 0);
  }
  const api::Solution exact = api::solve(model.at({{"workers", 7}}));
  CHECK(a.metric == doctest::Approx(exact.metrics->application.throughput).epsilon(1e-12));
  CHECK(r.json()["surroundings"]["arrival_from"] == "Emit");
  CHECK(r.json()["tries"][0]["method"] == "service_time");

  // A slow emitter (0.5 per item) needs n >= (1/1.5) / 0.5: 2; T_A given as 0.3, n = 3.
  const api::ContractResult slow =
      run(model.at({{"emit_rate", 4}}), "application.throughput >= input", "workers=1..12");
  REQUIRE(slow.answer);
  CHECK(slow.tries[*slow.answer].value == 2);
  CHECK(slow.surroundings->arrivalTime == doctest::Approx(0.5).epsilon(1e-12));
  api::ContractSettings given;
  given.requirement = api::parseRequirement("application.throughput >= input");
  given.parameter = api::parseSweepParameter("workers=1..12");
  given.arrivalTime = 0.3;
  const api::ContractResult r3 = api::contract(model, given);
  REQUIRE(r3.answer);
  CHECK(r3.tries[*r3.answer].value == 3);
  CHECK(r3.surroundings->arrivalFrom == "given");

  // Too few values: no answer, and the diagnosis asks for 7 replicas.
  const api::ContractResult few = run(model, "application.throughput >= input", "workers=1..5");
  CHECK(!few.answer);
  REQUIRE(few.diagnosis);
  REQUIRE(!few.diagnosis->suggestions.empty());
  CHECK((few.diagnosis->suggestions.front().remedy == Remedy::MoreWorkers));
  CHECK(*few.diagnosis->suggestions.front().needed == 7);
}

TEST_CASE("contract: moving workers to faster processors, a parameter of the mapping") {
  // `fast` of the 4 workers run on processors 3 times as fast: the farm takes
  // 1 / (1.5 (4 - f) + 4.5 f) per item, at most 0.1 from f = 2 (6 + 3f >= 10).
  const api::Model model = loadSystem(testing::readExample("farm.hdl"));
  const api::ContractResult keep = run(model, "application.throughput >= input", "fast=0..4");
  REQUIRE(keep.answer);
  CHECK(keep.tries[*keep.answer].value == 2);
  CHECK(*keep.tries[*keep.answer].serviceTime == doctest::Approx(1.0 / 12).epsilon(1e-12));
  // A throughput of 6: bisection and a linear scan agree, and the answer's neighbour fails.
  const api::ContractResult bisect = run(model, "application.throughput >= 6", "fast=0..4");
  const api::ContractResult linear = run(model, "application.throughput >= 6", "fast=0..4", true);
  REQUIRE(bisect.answer);
  REQUIRE(linear.answer);
  CHECK(bisect.tries[*bisect.answer].value == linear.tries[*linear.answer].value);
  const double f = bisect.tries[*bisect.answer].value;
  CHECK(api::solve(model.at({{"fast", f - 1}})).metrics->application.throughput < 6);
}

TEST_CASE("contract: 'input' mistakes") {
  auto refused = [](const api::Model& model, const std::string& requirement,
                    const std::string& vary) -> std::string {
    try {
      run(model, requirement, vary);
    } catch (const api::SettingError& e) {
      return e.what();
    }
    FAIL("not refused: " << requirement);
    return "";
  };
  const api::Model farm = loadSystem(testing::readExample("farm.hdl"));
  CHECK(refused(farm, "application.throughput >= input", "fast_speed=2..4")
            .find("changes the service time of no stage") != std::string::npos);
  const api::Model filter = loadSystem(testing::readExample("image_filter.hdl"));
  CHECK(refused(filter, "application.throughput >= input", "P=1..2")
            .find("needs a system of one skeleton") != std::string::npos);
  CHECK_THROWS_AS(api::parseRequirement("application.response_time <= input"), api::SettingError);
  api::ContractSettings stray;
  stray.requirement = api::parseRequirement("application.throughput >= 5");
  stray.parameter = api::parseSweepParameter("workers=1..2");
  stray.departureTime = 0.2;
  CHECK_THROWS_AS(api::contract(farm, stray), api::SettingError);
}
