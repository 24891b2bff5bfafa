// Systems solved on the chain lumped by their interchangeable replicas (docs/symmetry.md)
// against the same systems solved whole (Settings::symmetry off): the same state count
// once orbits are weighed by their sizes, the same number for every element.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "api/solve.hpp"
#include "compile_helpers.hpp"

using namespace mmt;

namespace {

api::Model farmModel(int workers, int fast = 0) {
  api::Model model = testing::loadModelText(testing::readExample("farm.hdl"), ".hdl");
  return model.at({{"workers", double(workers)}, {"fast", double(fast)}});
}

api::Solution solveWith(const api::Model& model, bool symmetry,
                        const api::TransientRequest& transient = {}) {
  api::Settings settings;
  settings.symmetry = symmetry;
  settings.method = solver::Method::LU;
  settings.tolerance = 1e-13;
  return api::solve(model, settings, {}, transient);
}

/// Every number of the two results trees agrees to 1e-9 relative (a floor of 1e-12 for
/// results that are 0); returns how many were compared.
std::size_t checkSameResults(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b,
                             const std::string& path = "") {
  std::size_t compared = 0;
  if (a.is_object()) {
    REQUIRE(b.is_object());
    CHECK_MESSAGE(a.size() == b.size(), path);
    for (const auto& [key, value] : a.items()) {
      REQUIRE_MESSAGE(b.contains(key), path << "/" << key);
      compared += checkSameResults(value, b[key], path + "/" + key);
    }
  } else if (a.is_array()) {
    REQUIRE(b.is_array());
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      compared += checkSameResults(a[i], b[i], path + "/" + std::to_string(i));
  } else if (a.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    if (std::isnan(x) || std::isnan(y)) {  // no completions: undefined in both
      CHECK_MESSAGE((std::isnan(x) && std::isnan(y)), path);
      return 1;
    }
    CHECK_MESSAGE(std::abs(x - y) <= 1e-9 * std::abs(y) + 1e-12,
                  path << ": " << x << " against " << y);
    ++compared;
  } else {
    CHECK_MESSAGE(a == b, path);
  }
  return compared;
}

}  // namespace

TEST_CASE("a farm of W identical workers: 4 C(W+2, 2) orbits, the full chain's numbers") {
  for (int w : {2, 4, 6}) {
    CAPTURE(w);
    const api::Model model = farmModel(w);
    const api::Solution lumped = solveWith(model, true);
    const api::Solution full = solveWith(model, false);
    REQUIRE(lumped.symmetry.used());
    CHECK(lumped.symmetry.describe() == std::to_string(w) + " interchangeable W");
    // Emit (idle, busy or full) × Collect, and how many workers are idle, busy or full.
    const std::size_t orbits = 4 * std::size_t((w + 2) * (w + 1) / 2);
    CHECK(lumped.explored.graph.stateCount() == orbits);
    CHECK(full.explored.graph.stateCount() == std::size_t(4 * std::pow(3, w)));
    CHECK(*lumped.symmetry.unlumpedTangible == double(full.explored.graph.stateCount()));
    CHECK_FALSE(full.symmetry.used());
    CHECK(full.symmetry.notes.at(0).find("off") != std::string::npos);
    CHECK(checkSameResults(lumped.results(), full.results()) > 20);
  }
}

TEST_CASE("transient measures of a farm from its symmetric start, lumped and whole") {
  const api::Model model = farmModel(4);
  api::TransientRequest at;
  at.times = {0.5, 2, 10};
  const api::Solution lumped = solveWith(model, true, at);
  const api::Solution full = solveWith(model, false, at);
  REQUIRE(lumped.symmetry.used());
  CHECK(checkSameResults(lumped.transient->pointsJson(), full.transient->pointsJson()) > 60);
}

TEST_CASE("a worker on a faster processor breaks the farm's symmetry: the full chain") {
  const api::Model model = farmModel(3, 1);
  const api::Solution s = solveWith(model, true);
  CHECK_FALSE(s.symmetry.used());
  REQUIRE(s.symmetry.notes.size() == 1);
  CHECK(s.symmetry.notes[0].find("W[1].process") != std::string::npos);
  CHECK(s.symmetry.notes[0].find("rate") != std::string::npos);
  CHECK(s.explored.graph.stateCount() == 4 * 27);
}

TEST_CASE("a map of equal parts and two farms in one pipeline are lumped, numbers unchanged") {
  const char* map =
      "system m { hardware { for k in 1..4 { processor P[k]; } processor H;\n"
      " link L (H, P[1..4]) { kind: bus; bandwidth: 100; } }\n"
      " application { pipeline Q { task S { rate: 2; } map(4) M { task W { work: 1; size: 0; } }"
      " } }\n"
      " mapping { S on H; for k in 1..4 { W[k] on P[k]; } } }";
  const char* farms =
      "system f { hardware { for k in 1..5 { processor P[k]; }\n"
      " link L (P[1..5]) { kind: bus; bandwidth: 100; } }\n"
      " application { pipeline Q { farm(2) A { task X { rate: 1; } }"
      " farm(3) B { task Y { rate: 0.7; } } } }\n"
      " mapping { for k in 1..2 { X[k] on P[k]; } for k in 1..3 { Y[k] on P[2 + k]; } } }";
  for (const char* text : {map, farms}) {
    CAPTURE(text);
    const api::Model model = testing::loadModelText(text, ".hdl");
    const api::Solution lumped = solveWith(model, true);
    const api::Solution full = solveWith(model, false);
    REQUIRE(lumped.symmetry.used());
    CHECK(lumped.explored.graph.stateCount() < full.explored.graph.stateCount());
    CHECK(*lumped.symmetry.unlumpedTangible == double(full.explored.graph.stateCount()));
    CHECK(checkSameResults(lumped.results(), full.results()) > 10);
  }
}

TEST_CASE("an exported chain is the full one, and the report says so") {
  const api::Model model = farmModel(3);
  std::size_t exported = 0;
  const api::Solution s = api::solve(
      model, {}, [&](const gspn::TangibleReachabilityGraph& g) { exported = g.stateCount(); });
  CHECK(exported == 4 * 27);
  CHECK_FALSE(s.symmetry.used());
  CHECK(s.symmetry.notes.at(0).find("--prism") != std::string::npos);
}

TEST_CASE("12 workers: 364 orbits of 2,125,764 markings, every number as the full chain's" *
          doctest::test_suite("slow")) {
  const api::Model model = farmModel(12);
  api::Settings settings;
  settings.tolerance = 1e-13;
  settings.symmetry = true;
  const api::Solution lumped = api::solve(model, settings);
  settings.symmetry = false;
  const api::Solution full = api::solve(model, settings);
  CHECK(lumped.explored.graph.stateCount() == 364);
  CHECK(full.explored.graph.stateCount() == 2'125'764);
  CHECK(*lumped.symmetry.unlumpedTangible == 2'125'764);
  checkSameResults(lumped.results(), full.results());
}
