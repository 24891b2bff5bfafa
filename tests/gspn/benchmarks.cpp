// The classic benchmark nets of tools/bench/models, read through the .gspn loader:
// published state counts (Kanban, FMS, tandem), published throughputs and productivity,
// the ring against Buzen's convolution, and every solver method against the direct one.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "grammar/load_gspn.hpp"
#include "gspn/measure_source.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

gspn::Net loadModel(const std::string& name, const grammar::ParameterOverrides& overrides) {
  const auto path = std::filesystem::path(MMT_SOURCE_DIR) / "tools" / "bench" / "models" / name;
  grammar::SourceFile source = grammar::readSourceFile(path.string());
  grammar::Diagnostics diagnostics(source);
  auto net = grammar::loadGspn(source, diagnostics, overrides);
  REQUIRE_MESSAGE(net, diagnostics.str());
  return std::move(*net);
}

std::size_t tangibleStates(const gspn::Net& net) {
  auto explored = gspn::exploreTangible(net);
  REQUIRE_MESSAGE(explored.status == gspn::ExplorationResult::Status::Ok, explored.message);
  return explored.graph.stateCount();
}

}  // namespace

TEST_CASE("Kanban N = 1..4: published tangible state counts, edges and throughputs") {
  const std::size_t states[] = {160, 4600, 58400, 454475};
  for (int n = 1; n <= 4; ++n) {
    CAPTURE(n);
    gspn::Net net = loadModel("kanban.gspn", {{"N", n}});
    auto explored = gspn::exploreTangible(net);
    REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
    CHECK(explored.graph.stateCount() == states[n - 1]);
    if (n == 4) CHECK(explored.graph.edgeCount() == 3979850);
  }
  // Ciardo & Tilgner's throughput of tin1 for N = 1, 2.
  const double throughput[] = {0.0925846346, 0.1738717062};
  for (int n = 1; n <= 2; ++n) {
    gspn::Net net = loadModel("kanban.gspn", {{"N", n}});
    auto s = testing::solve(net, solver::Method::LU);
    CHECK(s.measures->throughput(*net.findTransition("tin1")) ==
          doctest::Approx(throughput[n - 1]).epsilon(1e-9));
  }
}

TEST_CASE("FMS N = 1..3: published tangible state counts and productivity") {
  const std::size_t states[] = {54, 810, 6520};
  const double productivity[] = {13.9, 29.2, 44.4};
  for (int n = 1; n <= 3; ++n) {
    CAPTURE(n);
    gspn::Net net = loadModel("fms.gspn", {{"N", n}});
    auto s = testing::solve(net, solver::Method::LU);
    CHECK(s.graph.stateCount() == states[n - 1]);
    // Ciardo & Trivedi give the productivity to one decimal.
    const double value = gspn::evaluateMeasures(net, *s.measures).at(0);
    CHECK(std::abs(value - productivity[n - 1]) < 0.05);
  }
}

TEST_CASE("tandem queue: (2c + 1)(c + 1) states, as in PRISM's benchmark") {
  // With capacity c, queue 1 holds 0..c jobs with the Coxian phase relevant only when busy
  // (2c + 1 combinations) and queue 2 0..c: (2c + 1)(c + 1) states; c = 255 gives 130,816.
  for (int c : {1, 3, 15, 255}) {
    CAPTURE(c);
    CHECK(tangibleStates(loadModel("tandem.gspn", {{"c", c}})) ==
          static_cast<std::size_t>((2 * c + 1) * (c + 1)));
  }
}

TEST_CASE("ring of stations with immediate starts matches Buzen's convolution to 1e-8") {
  // Closed product-form network: K = 8 single-server stations in a cycle, service rates
  // μ_i = 1 + (i mod 3), visit ratios 1. Buzen (CACM 16(9), 1973): G(n) by convolution,
  // X = G(N−1)/G(N), E[n_i] = Σ_{k=1..N} ρ_i^k G(N−k)/G(N) with ρ_i = 1/μ_i.
  const int stations = 8, jobs = 6;
  gspn::Net net = loadModel("ring8.gspn", {{"N", jobs}});
  auto s = testing::solveBoth(net);
  std::vector<double> g(jobs + 1, 0.0);
  g[0] = 1;
  for (int i = 0; i < stations; ++i) {
    const double rho = 1.0 / (1 + i % 3);
    for (int n = 1; n <= jobs; ++n) g[n] += rho * g[n - 1];
  }
  const double x = g[jobs - 1] / g[jobs];
  for (int i = 0; i < stations; ++i) {
    CAPTURE(i);
    const double rho = 1.0 / (1 + i % 3);
    double mean = 0;
    for (int k = 1; k <= jobs; ++k) mean += std::pow(rho, k) * g[jobs - k] / g[jobs];
    const std::string id = std::to_string(i);
    const double tokens = s.measures->meanTokens(*net.findPlace("Q" + id)) +
                          s.measures->meanTokens(*net.findPlace("B" + id));
    CHECK(std::abs(tokens - mean) < 1e-8);
    CHECK(std::abs(s.measures->throughput(*net.findTransition("end" + id)) - x) < 1e-8);
    // Immediate transitions get throughputs too: every start is followed by an end.
    CHECK(std::abs(s.measures->throughput(*net.findTransition("start" + id)) - x) < 1e-8);
  }
}

TEST_CASE("every steady-state method agrees with the direct method to 1e-9") {
  struct Case {
    const char* file;
    grammar::ParameterOverrides overrides;
  };
  const Case cases[] = {{"kanban.gspn", {{"N", 2}}},
                        {"fms.gspn", {{"N", 2}}},
                        {"tandem.gspn", {{"c", 7}}},
                        {"ring8.gspn", {{"N", 4}}}};
  for (const Case& c : cases) {
    gspn::Net net = loadModel(c.file, c.overrides);
    auto direct = testing::solve(net, solver::Method::LU);
    for (solver::Method m : {solver::Method::GaussSeidel, solver::Method::SOR, solver::Method::Power,
                             solver::Method::BiCGSTAB, solver::Method::GMRES,
                             solver::Method::Auto}) {
      CAPTURE(c.file);
      CAPTURE(solver::toString(m));
      auto other = testing::solve(net, m, 1e-13);
      REQUIRE(other.result.pi.size() == direct.result.pi.size());
      CHECK((other.result.pi - direct.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
    }
  }
}

TEST_CASE("tandem queue: Gauss-Seidel stalls, auto switches to IAD over queue 2's levels") {
  // c = 63 (8,128 states): plain Gauss–Seidel's residual stalls near 1e-5, since the
  // slow mode is the distribution of queue 2's length; one aggregation over its 64
  // levels per ten sweeps removes it (Stewart 1994 §6.3).
  gspn::Net net = loadModel("tandem.gspn", {{"c", 63}});
  auto direct = testing::solve(net, solver::Method::LU);
  auto automatic = testing::solve(net, solver::Method::Auto, 1e-10);
  CAPTURE(automatic.result.note);
  CHECK(solver::toString(automatic.result.method) == "iad");
  CHECK(automatic.result.note.find("gauss-seidel stalled") != std::string::npos);
  CHECK(automatic.result.note.find("switched to iad over the levels of place sm (64 levels)") !=
        std::string::npos);
  CHECK((automatic.result.pi - direct.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
  // Asked for by name, on sizes where plain Gauss–Seidel converges too.
  for (int c : {7, 31, 63}) {
    CAPTURE(c);
    gspn::Net small = loadModel("tandem.gspn", {{"c", c}});
    auto lu = testing::solve(small, solver::Method::LU);
    auto iad = testing::solve(small, solver::Method::IAD, 1e-13);
    CHECK(iad.result.note.find("over the levels of place sm") != std::string::npos);
    CHECK((iad.result.pi - lu.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
  }
}

TEST_CASE("IAD refuses a chain without place levels, and a net whose levels all couple strongly") {
  gspn::Net net = loadModel("tandem.gspn", {{"c", 7}});
  auto explored = gspn::exploreTangible(net);
  std::vector<std::uint32_t> all(explored.graph.stateCount());
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  solver::SteadyStateSettings settings;
  settings.method = solver::Method::IAD;
  const auto bare = solver::solveSteadyState(solver::buildGenerator(explored.graph, all), settings);
  CHECK(bare.status == solver::Status::NumericalIssue);
  CHECK(bare.note.find("needs the net's places") != std::string::npos);
  // A cycle of 3 places and 20 tokens: every transition moves a token between levels of
  // two of the three places, so each place's levels share more than half the rate.
  auto cycle = testing::loadGspnText(
      "place a = 20; place b; place c;\n"
      "timed ab rate 1 in a out b; timed bc rate 1 in b out c; timed ca rate 1 in c out a;\n");
  auto solution = solver::solveNet(cycle, {}, settings);
  CHECK(solution->stage == solver::ExactSolution::Stage::Solver);
  CHECK(solution->message.find("no place whose levels couple weakly") != std::string::npos);
}
