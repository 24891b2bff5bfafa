// Mapping exploration (compiler/mappings.hpp): every assignment once, symmetric ones
// merged only when the hardware really is symmetric, and the best mapping never lost.
#include "compiler/mappings.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "compile_helpers.hpp"

using namespace mmt;

namespace {

/// E4's pipeline with S1 pinned on P1 and S2, S3 free.
std::string e4(double nl12, double nl13, double cp2, double cp3) {
  auto n = [](double x) { return std::to_string(x); };
  return "system p {\n hardware {\n"
         "  processor P1 { speed: 10; local_bandwidth: 10000; }\n"
         "  processor P2 { speed: " +
         n(cp2) +
         "; local_bandwidth: 10000; }\n"
         "  processor P3 { speed: " +
         n(cp3) +
         "; local_bandwidth: 10000; }\n"
         "  link L12 (P1, P2) { bandwidth: " +
         n(nl12) +
         "; }\n"
         "  link L23 (P2, P3) { bandwidth: 1; }\n"
         "  link L13 (P1, P3) { bandwidth: " +
         n(nl13) +
         "; }\n }\n"
         " application { pipeline Pipe { input: P1; output: local; task S1; task S2; task S3; } }\n"
         " mapping { S1 on P1; }\n}\n";
}

struct Probed {
  grammar::SourceFile source;
  std::optional<grammar::ParsedSystem> parsed;
  compiler::System system;
};

std::unique_ptr<Probed> probe(const std::string& text) {
  auto p = std::make_unique<Probed>();
  p->source = {"test.hdl", text};
  grammar::Diagnostics d(p->source);
  p->parsed = grammar::parseSystem(p->source, d);
  REQUIRE(p->parsed);
  auto system = compiler::probeSystem(*p->parsed, d);
  REQUIRE_MESSAGE(system, d.str());
  p->system = std::move(*system);
  return p;
}

double throughputOf(const Probed& p, const compiler::MappingSpace& space,
                    const compiler::Mapping& m) {
  compiler::Placements placements;
  for (std::size_t t = 0; t < space.free.size(); ++t)
    placements.emplace_back(p.system.tasks[space.free[t]].name, p.system.processors[m[t]].name);
  grammar::Diagnostics d(p.source);
  auto compiled = compiler::compile(*p.parsed, d, nullptr, {}, placements);
  REQUIRE_MESSAGE(compiled, d.str());
  auto solved = testing::solve(compiled->net, solver::Method::LU);
  return compiler::computeMetrics(*compiled, *solved.measures).application.throughput;
}

}  // namespace

TEST_CASE("E4: nine candidates, five distinct when P2 and P3 are identical") {
  auto p = probe(e4(10, 10, 10, 10));
  const compiler::MappingSpace space = compiler::mappingSpace(p->system);
  REQUIRE(space.free.size() == 2);
  const auto all = compiler::allMappings(space, 100);
  CHECK(all.size() == 9);
  CHECK(std::set<compiler::Mapping>(all.begin(), all.end()).size() == 9);
  CHECK(space.symmetries.size() == 2);  // the identity and P2 <-> P3
  const auto distinct = compiler::distinctMappings(space, all);
  CHECK(distinct.size() == 5);
  // Each candidate's class has exactly one representative, and symmetric candidates give
  // the same throughput: merging them never loses the best.
  std::set<compiler::Mapping> classes;
  for (std::size_t i : distinct) classes.insert(compiler::canonicalMapping(space, all[i]));
  CHECK(classes.size() == 5);
  double bestAll = 0, bestDistinct = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const double x = throughputOf(*p, space, all[i]);
    bestAll = std::max(bestAll, x);
    if (std::find(distinct.begin(), distinct.end(), i) != distinct.end())
      bestDistinct = std::max(bestDistinct, x);
    CHECK(classes.count(compiler::canonicalMapping(space, all[i])) == 1);
    CHECK(x == doctest::Approx(throughputOf(*p, space, compiler::canonicalMapping(space, all[i])))
                   .epsilon(1e-9));
  }
  CHECK(bestDistinct == bestAll);
}

TEST_CASE("no symmetry is assumed where processors or links differ") {
  for (auto [nl12, nl13, cp2, cp3] : {std::tuple{10.0, 1.0, 10.0, 10.0}, {10.0, 10.0, 10.0, 1.0}}) {
    auto p = probe(e4(nl12, nl13, cp2, cp3));
    const compiler::MappingSpace space = compiler::mappingSpace(p->system);
    CHECK(space.symmetries.size() == 1);
    CHECK(compiler::distinctMappings(space, compiler::allMappings(space, 100)).size() == 9);
  }
}

TEST_CASE("too many candidates is refused") {
  auto p = probe(e4(10, 10, 10, 10));
  CHECK_THROWS_AS(compiler::allMappings(compiler::mappingSpace(p->system), 8), std::length_error);
}
