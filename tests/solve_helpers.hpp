#pragma once
// Shared test helper: explore, check structure, solve with a given method.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "api/model.hpp"
#include "gspn/reachability.hpp"
#include "io/load_gspn.hpp"
#include "solver/ctmc.hpp"
#include "solver/measures.hpp"
#include "solver/pipeline.hpp"
#include "solver/steady_state.hpp"

namespace mmt::testing {

/// The net of a `.gspn` text, which must load.
inline gspn::Net loadGspnText(const std::string& text) {
  grammar::SourceFile source{"test.gspn", text};
  grammar::Diagnostics diagnostics(source);
  auto net = io::loadGspn(source, diagnostics);
  REQUIRE_MESSAGE(net, diagnostics.str());
  return *net;
}

/// The benchmark net `name` of tools/bench/models with its parameters, which must load.
inline gspn::Net loadBenchModel(const std::string& name,
                                const grammar::ParameterOverrides& overrides = {}) {
  const auto path = std::filesystem::path(MMT_SOURCE_DIR) / "tools" / "bench" / "models" / name;
  grammar::SourceFile source = grammar::readSourceFile(path.string());
  grammar::Diagnostics diagnostics(source);
  auto net = io::loadGspn(source, diagnostics, overrides);
  REQUIRE_MESSAGE(net, diagnostics.str());
  return std::move(*net);
}

/// A benchmark model file and its parameters.
struct BenchCase {
  const char* file;
  grammar::ParameterOverrides overrides;
};

/// The api::Model of a `.gspn` text (or of another format by its `extension`, ".hdl"),
/// loaded through a file of this process's own (CTest runs test cases as parallel
/// processes), removed once read.
inline api::Model loadModelText(const std::string& text, const std::string& extension = ".gspn") {
  static std::atomic<int> made = 0;
  const auto path =
      std::filesystem::temp_directory_path() /
      ("mmt_test_" + std::to_string(::getpid()) + "_" + std::to_string(made++) + extension);
  std::ofstream(path) << text;
  api::Model model = api::loadModel(path.string());
  std::filesystem::remove(path);
  return model;
}

/// The t at which an increasing function `f` reaches p, by bisection to the last bit.
inline double inverse(const std::function<double(double)>& f, double p) {
  double lo = 0, hi = 1;
  while (f(hi) < p) hi *= 2;
  for (int i = 0; i < 200; ++i) (f((lo + hi) / 2) < p ? lo : hi) = (lo + hi) / 2;
  return (lo + hi) / 2;
}

/// solver::solveNet's result, with its parts under the names the tests use.
struct Solved {
  std::unique_ptr<solver::SolvedNet> exact;
  gspn::TangibleReachabilityGraph& graph = exact->solution.explored.graph;
  solver::ChainStructure& structure = exact->solution.structure;
  solver::SteadyStateResult& result = exact->solution.steadyState;
  std::unique_ptr<solver::SteadyStateMeasures>& measures = exact->measures;
  /// Probability of the tangible marking m (0 if unreachable or transient).
  double probability(const std::vector<gspn::Tokens>& m) const {
    for (std::size_t i = 0; i < structure.recurrent.size(); ++i) {
      auto view = graph.marking(structure.recurrent[i]);
      if (std::equal(view.begin(), view.end(), m.begin(), m.end()))
        return result.pi[Eigen::Index(i)];
    }
    return 0.0;
  }
};

inline Solved solve(const gspn::Net& net, solver::Method method, double tolerance = 1e-12) {
  solver::SteadyStateSettings settings;
  settings.method = method;
  settings.tolerance = tolerance;
  Solved s{solver::solveNet(net, {.steadyState = settings})};
  REQUIRE_MESSAGE(s.exact->stage == solver::SolvedNet::Stage::Ok, s.exact->message());
  return s;
}

/// Solves with LU and Gauss–Seidel and checks that the two distributions agree to 1e-9.
inline Solved solveBoth(const gspn::Net& net) {
  Solved lu = solve(net, solver::Method::LU);
  Solved gs = solve(net, solver::Method::GaussSeidel);
  REQUIRE(lu.result.pi.size() == gs.result.pi.size());
  CHECK((lu.result.pi - gs.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
  return lu;
}

/// Every number of the two results trees agrees to 1e-9 relative (a floor of 1e-12 for
/// results that are 0); returns how many were compared.
inline std::size_t checkSameResults(const nlohmann::ordered_json& a,
                                    const nlohmann::ordered_json& b, const std::string& path = "") {
  std::size_t compared = 0;
  if (a.is_object()) {
    REQUIRE(b.is_object());
    CHECK_MESSAGE(a.size() == b.size(), path);
    for (const auto& item : a.items()) {
      const std::string& key = item.key();
      REQUIRE_MESSAGE(b.contains(key), path << "/" << key);
      compared += checkSameResults(item.value(), b[key], path + "/" + key);
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

}  // namespace mmt::testing
