#pragma once
// Shared test helpers: compile a description from text, read an example, find a metric.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "compiler/compile.hpp"
#include "compiler/metrics.hpp"
#include "grammar/parse.hpp"
#include "solve_helpers.hpp"

namespace mmt::testing {

/// The source outlives the compiled system, whose diagnostics point into it.
struct Model {
  grammar::SourceFile source;
  compiler::CompiledSystem compiled;
};

inline std::unique_ptr<Model> compileText(std::string text) {
  auto model = std::make_unique<Model>();
  model->source = {"test.hdl", std::move(text)};
  grammar::Diagnostics diagnostics(model->source);
  auto parsed = grammar::parseSystem(model->source, diagnostics);
  REQUIRE_MESSAGE(parsed, diagnostics.str());
  auto compiled = compiler::compile(*parsed, diagnostics);
  REQUIRE_MESSAGE(compiled, diagnostics.str());
  model->compiled = std::move(*compiled);
  return model;
}

/// The diagnostics of compiling `text`, which must fail.
inline std::string compileErrors(std::string text) {
  grammar::SourceFile source{"test.hdl", std::move(text)};
  grammar::Diagnostics diagnostics(source);
  auto parsed = grammar::parseSystem(source, diagnostics);
  if (parsed) CHECK_FALSE(compiler::compile(*parsed, diagnostics));
  return diagnostics.str();
}

inline std::string readExample(const char* name) {
  std::ifstream in(std::filesystem::path(MMT_SOURCE_DIR) / "examples" / name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

template <typename T>
const T& named(const std::vector<T>& list, const std::string& name) {
  for (const T& x : list)
    if (x.name == name) return x;
  FAIL("no metric for " << name);
  return list.front();
}

/// Compiles, solves with LU and Gauss–Seidel (which must agree) and computes the metrics.
inline compiler::SystemMetrics solveText(const std::string& text, std::size_t* states = nullptr) {
  auto model = compileText(text);
  auto solved = solveBoth(model->compiled.net);
  if (states) *states = solved.graph.stateCount();
  return compiler::computeMetrics(model->compiled, *solved.measures);
}

}  // namespace mmt::testing
