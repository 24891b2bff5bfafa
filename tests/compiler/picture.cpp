// The results drawn on the system (compiler/picture.hpp): every element in the picture,
// the bottleneck found from the metrics and marked once.
#include "compiler/picture.hpp"

#include <doctest/doctest.h>

#include "compile_helpers.hpp"

using namespace mmt;

namespace {
std::size_t count(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (std::size_t at = 0; (at = text.find(word, at)) != std::string::npos; at += word.size()) ++n;
  return n;
}
}  // namespace

TEST_CASE("fork-join drawn with its bottleneck: the links, each at 20 X, over P4 at 8 X") {
  auto model = testing::compileText(testing::readExample("forkjoin.hdl"));
  auto solved = testing::solve(model->compiled.net, solver::Method::GTH);
  const auto m = compiler::computeMetrics(model->compiled, *solved.measures);
  // Every link carries 20 data units per iteration at bandwidth 1, more than any
  // processor's demand (A4: 8): the three links tie, and the first is named.
  CHECK(compiler::bottleneck(m) == "link L12");
  const std::string dot = compiler::systemDot(model->compiled, m);
  for (const char* box : {"cluster_P1", "cluster_P2", "cluster_P3", "cluster_P4"})
    CHECK(dot.find(box) != std::string::npos);
  for (const char* node : {"\"link L12\"", "\"link L23\"", "\"link L34\"", "A1", "A4", "D3"})
    CHECK(dot.find(node) != std::string::npos);
  CHECK(count(dot, "BOTTLENECK") == 1);
  CHECK(dot.find("BOTTLENECK\nL12") != std::string::npos);  // labels keep their line breaks
  CHECK(dot.find("bottleneck: link L12") != std::string::npos);
  // Laid out: Graphviz wrote coordinates.
  CHECK(dot.find("pos=") != std::string::npos);
}

TEST_CASE("a bus is drawn once, joined to each of its processors") {
  auto model = testing::compileText(testing::readExample("image_filter.hdl"));
  auto solved = testing::solve(model->compiled.net, solver::Method::GTH);
  const auto m = compiler::computeMetrics(model->compiled, *solved.measures);
  const std::string dot = compiler::systemDot(model->compiled, m);
  CHECK(count(dot, "\n\t\"link Ether\"\t[") == 1);  // one node statement
  CHECK(count(dot, "-> \"link Ether\"") == 4);      // W[1..4]
}

TEST_CASE("skeleton tasks are drawn in their processors, joined by their transfers") {
  auto model = testing::compileText(R"(system s {
    hardware { processor P1; processor P2; link L (P1, P2); }
    application { pipeline Q { task A; farm(2) F { task W; } task B; } }
    mapping { A, W[1] on P1; W[2], B on P2; }
  })");
  auto solved = testing::solve(model->compiled.net, solver::Method::LU);
  const auto m = compiler::computeMetrics(model->compiled, *solved.measures);
  const std::string dot = compiler::systemDot(model->compiled, m);
  for (const char* task : {"\"W[1]\"", "\"W[2]\"", "A\t", "B\t"})
    CHECK(dot.find(task) != std::string::npos);
  CHECK(count(dot, "A -> \"W[") == 2);  // A feeds both workers
  CHECK(count(dot, "]\" -> B") == 2);   // both feed B
  CHECK(dot.find("blocked") != std::string::npos);
}
