// compiler::replicaCounts: the outermost farms' and maps' counts read without expanding them,
// against the symmetric factors the compiler proposes for the same description compiled.
#include <doctest/doctest.h>

#include <string>

#include "compile_helpers.hpp"
#include "compiler/compile.hpp"

using namespace mmt;

namespace {

std::vector<compiler::elab::ReplicaCount> countsOf(const std::string& text,
                                                   const grammar::ParameterOverrides& p = {}) {
  const grammar::SourceFile source{"test.hdl", text};
  grammar::Diagnostics diagnostics(source);
  const auto parsed = grammar::parseSystem(source, diagnostics);
  REQUIRE(parsed);
  const auto counts = compiler::replicaCounts(*parsed, diagnostics, p);
  REQUIRE_MESSAGE(counts, diagnostics.str());
  return *counts;
}

/// The counts must be the compiled system's factors: their labels, blocks and order.
void sameAsFactors(const std::string& text, const grammar::ParameterOverrides& p = {}) {
  const auto counts = countsOf(text, p);
  const grammar::SourceFile source{"test.hdl", text};
  grammar::Diagnostics diagnostics(source);
  const auto parsed = grammar::parseSystem(source, diagnostics);
  const auto compiled = compiler::compile(*parsed, diagnostics, nullptr, p);
  REQUIRE_MESSAGE(compiled, diagnostics.str());
  REQUIRE(counts.size() == compiled->symmetry.size());
  for (std::size_t i = 0; i < counts.size(); ++i) {
    CHECK(counts[i].label == compiled->symmetry[i].label);
    CHECK(std::size_t(counts[i].replicas) == compiled->symmetry[i].blockCount());
  }
}

}  // namespace

TEST_CASE("replica counts: a farm of a million workers counted, its parameter named") {
  const auto counts = countsOf(testing::readExample("farm.hdl"), {{"workers", 1e6}});
  REQUIRE(counts.size() == 1);
  CHECK(counts[0].label == "W");
  CHECK(counts[0].replicas == 1'000'000);
  CHECK(counts[0].parameters == std::vector<std::string>{"workers"});
  sameAsFactors(testing::readExample("farm.hdl"), {{"workers", 7}});
}

TEST_CASE("replica counts: nested skeletons, literal counts, deals not counted") {
  const std::string text = testing::readExample("nested_skeletons.hdl");
  const auto counts = countsOf(text);
  REQUIRE(counts.size() == 2);
  CHECK(counts[0].label == "B");
  CHECK(counts[1].label == "E");
  CHECK(counts[0].parameters.empty());
  sameAsFactors(text);
}

TEST_CASE("replica counts: farms in a deal's replicas and in a pipeline's loop, read by index") {
  const std::string text = R"(system s {
  param n = 3;
  param m = 2;
  hardware { processor P; }
  application {
    pipeline Pipe {
      task A { rate: 1; }
      deal(2) D { farm(n) F { task W { rate: 1; } } }
      for i in 1..2 { farm(m + i) G[i] { task V[i] { rate: 2; } } }
      task Z { rate: 1; }
    }
  }
  mapping { A, D, W[1..2][1..3], V[1][1..3], V[2][1..4], Z on P; }
})";
  const auto counts = countsOf(text);
  REQUIRE(counts.size() == 4);
  CHECK(counts[0].label == "W[1]");
  CHECK(counts[1].label == "W[2]");
  CHECK(counts[0].parameters == std::vector<std::string>{"n"});
  CHECK(counts[2].replicas == 3);
  CHECK(counts[3].replicas == 4);
  CHECK(counts[3].parameters == std::vector<std::string>{"m"});  // not the loop's index i
}
