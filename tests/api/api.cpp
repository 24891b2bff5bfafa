// mmt::api: models loaded from files, solved, and every failure thrown as its type with its
// data. Truths: the M/M/1/K closed form (Kleinrock, Queueing Systems I, §3.6), positions
// counted by hand in the broken files, the limits the settings set, and agreement between
// a model rebuilt from its parse and one loaded afresh.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "api/errors.hpp"
#include "api/model.hpp"
#include "api/simulate.hpp"
#include "api/solve.hpp"

using namespace mmt;

namespace {

/// A file of `text` under a temporary folder of this process's own (CTest runs test cases
/// as parallel processes), removed with the object.
struct TempFile {
  std::filesystem::path dir, path;
  TempFile(const std::string& name, const std::string& text) {
    static int made = 0;
    dir = std::filesystem::temp_directory_path() /
          ("mmt_api_test_" + std::to_string(::getpid()) + "_" + std::to_string(made++));
    std::filesystem::create_directories(dir);
    path = dir / name;
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove_all(dir); }
  std::string str() const { return path.string(); }
};

const char* kMm1k =
    "param K = 4; param lambda = 0.7; param mu = 1.3;\n"
    "place queue;\n"
    "timed arrive rate lambda out queue inhibit queue * K;\n"
    "timed serve rate mu in queue;\n"
    "measure L = mean(#queue);\n";

/// Mean number in an M/M/1/K queue: Σ n ρ^n (1 − ρ) / (1 − ρ^{K+1}).
double mm1kMean(double lambda, double mu, int k) {
  const double rho = lambda / mu, norm = (1 - rho) / (1 - std::pow(rho, k + 1));
  double mean = 0;
  for (int n = 0; n <= k; ++n) mean += n * std::pow(rho, n) * norm;
  return mean;
}

std::string example(const std::string& name) {
  return std::string(MMT_SOURCE_DIR) + "/examples/" + name;
}

}  // namespace

TEST_CASE("api::solve of a raw net: the M/M/1/K closed form, with parameters bound at load") {
  TempFile file("mm1k.gspn", kMm1k);
  for (int k : {1, 4, 7}) {
    CAPTURE(k);
    const api::Model model = api::loadModel(file.str(), {{"K", k}});
    CHECK_FALSE(model.isSystem());
    const api::Solution s = api::solve(model);
    CHECK(s.chain.explored.graph.stateCount() == std::size_t(k + 1));
    REQUIRE(s.values.measures.size() == 1);
    CHECK(s.values.measures[0].second == doctest::Approx(mm1kMean(0.7, 1.3, k)).epsilon(1e-12));
    CHECK(s.json()["measures"]["L"].get<double>() ==
          doctest::Approx(mm1kMean(0.7, 1.3, k)).epsilon(1e-12));
    CHECK(s.json()["schema"] == "mmt/solve/1");
  }
}

TEST_CASE("api::Model::at rebuilds from the parse and agrees with a fresh load") {
  const api::Model p2 = api::loadModel(example("image_filter.hdl"), {{"P", 2}, {"N", 64}});
  const api::Model p3 = p2.at({{"P", 3}, {"N", 64}});
  const api::Model fresh = api::loadModel(example("image_filter.hdl"), {{"P", 3}, {"N", 64}});
  CHECK(p3.source == p2.source);  // one read, one parse
  const double x3 = api::solve(p3).metrics->application.throughput;
  CHECK(x3 == api::solve(fresh).metrics->application.throughput);
  CHECK(x3 != api::solve(p2).metrics->application.throughput);
}

TEST_CASE("api::Settings reach the solver: two methods agree, and the result names its method") {
  const api::Model model = api::loadModel(example("forkjoin.hdl"));
  api::Settings gth, gs;
  gth.method = solver::Method::GTH;
  gs.method = solver::Method::GaussSeidel;
  gs.tolerance = 1e-13;
  const api::Solution a = api::solve(model, gth), b = api::solve(model, gs);
  CHECK(solver::toString(a.chain.steadyState.method) == "gth");
  CHECK(solver::toString(b.chain.steadyState.method) == "gauss-seidel");
  CHECK(b.chain.steadyState.residual <= 1e-13);
  CHECK(a.metrics->application.throughput ==
        doctest::Approx(b.metrics->application.throughput).epsilon(1e-11));
  // The response time of a closed(1) workload is the inverse of its throughput.
  CHECK(*a.metrics->application.responseTime ==
        doctest::Approx(1 / a.metrics->application.throughput).epsilon(1e-12));
}

TEST_CASE("a broken description is a ModelError with every diagnostic and its position") {
  // Line 3, column 24: the ';' where a property value should be.
  TempFile file("broken.hdl",
                "system s {\n"
                "  hardware { processor P1; }\n"
                "  application { actor A { demand: ; } }\n"
                "  mapping { A on P1; }\n"
                "}\n");
  try {
    api::loadModel(file.str());
    FAIL("no ModelError");
  } catch (const api::ModelError& e) {
    CHECK(e.errorCount() >= 1);
    CHECK(e.location().file == file.str());
    CHECK(e.location().line == 3);
    CHECK(e.location().column == 35);
    CHECK(e.rendered().find("^") != std::string::npos);  // the caret line
    CHECK(e.headline() == std::to_string(e.errorCount()) +
                              (e.errorCount() == 1 ? " error in " : " errors in ") + file.str());
  }
}

TEST_CASE("an unknown name and an unreadable file are ModelErrors") {
  TempFile file("unknown.hdl",
                "system s {\n"
                "  hardware { processor P1; }\n"
                "  application { actor A { demand: 1; } }\n"
                "  mapping { A on P2; }\n"
                "}\n");
  try {
    api::loadModel(file.str());
    FAIL("no ModelError");
  } catch (const api::ModelError& e) {
    // Both errors at once, sorted by position: the unmapped actor, then the unknown name.
    REQUIRE(e.errorCount() == 2);
    CHECK(e.location().line == 3);
    CHECK(e.location().column == 17);
    const api::ModelDiagnostic& unknown = e.diagnostics()[1];
    CHECK(unknown.location.line == 4);
    CHECK(unknown.location.column == 18);
    CHECK(unknown.message == "unknown name 'P2'; did you mean 'P1'?");
  }
  try {
    api::loadModel(file.str() + ".missing.gspn");
    FAIL("no ModelError");
  } catch (const api::ModelError& e) {
    CHECK(e.location().line == 0);
    CHECK(e.diagnostics().empty());
  }
  CHECK_THROWS_AS(api::loadModel("model.txt"), api::ModelError);
  CHECK_THROWS_AS(api::loadModel(file.str(), {{"nope", 1}}), api::ModelError);
}

TEST_CASE("a state limit is a StateLimitError with the states, the limit and the places") {
  SUBCASE("an unbounded net: the places nothing proves bounded, the fullest place") {
    TempFile file("open.gspn", "place q;\ntimed arrive rate 1 out q;\ntimed serve rate 2 in q;\n");
    api::Settings settings;
    settings.maxStates = 500;
    try {
      api::solve(api::loadModel(file.str()), settings);
      FAIL("no StateLimitError");
    } catch (const api::StateLimitError& e) {
      CHECK((e.status() == gspn::ExplorationResult::Status::StateLimit));
      CHECK(e.data().limit == 500);
      CHECK_FALSE(e.data().provenBounded);
      CHECK(e.data().unprovenPlaces == std::vector<std::string>{"q"});
      REQUIRE(e.data().fullestPlace);
      CHECK(*e.data().fullestPlace == "q");
      // Breadth-first, the queue grows one token per level: the markings are 0..n − 1.
      CHECK(e.data().fullestTokens + 1 == e.states());
      CHECK(e.states() == 501);  // one past the limit
    }
  }
  SUBCASE("a bounded net stopped by a small limit is said to be only large") {
    TempFile file("mm1k.gspn", kMm1k);
    api::Settings settings;
    settings.maxStates = 3;
    try {
      api::solve(api::loadModel(file.str(), {{"K", 10}}), settings);
      FAIL("no StateLimitError");
    } catch (const api::StateLimitError& e) {
      CHECK(e.data().provenBounded);
      CHECK(e.data().unprovenPlaces.empty());
      CHECK(e.headline().find("only large") != std::string::npos);
    }
  }
}

TEST_CASE("a solver stopped early is a SolverError with its method, iterations and residual") {
  TempFile file("mm1k.gspn", kMm1k);
  api::Settings settings;
  settings.method = solver::Method::GaussSeidel;
  settings.maxIterations = 2;
  settings.tolerance = 1e-15;
  try {
    api::solve(api::loadModel(file.str(), {{"K", 60}}), settings);
    FAIL("no SolverError");
  } catch (const api::SolverError& e) {
    CHECK((e.status() == solver::Status::NoConvergence));
    CHECK(solver::toString(e.method()) == "gauss-seidel");
    CHECK(e.iterations() <= 2);
    CHECK(e.residual() > 1e-15);
    CHECK(e.tolerance() == 1e-15);
    CHECK(e.iterationLimit());
    CHECK(api::failureJson(e)["data"]["iteration_limit"] == true);
  }
}

TEST_CASE("timeless traps, deadlocks and undefined measures are typed") {
  TempFile trap("trap.gspn",
                "place a = 1; place b;\n"
                "immediate ab in a out b;\nimmediate ba in b out a;\n"
                "place c = 1;\ntimed t rate 1 in c out c;\n");
  CHECK_THROWS_AS(api::solve(api::loadModel(trap.str())), api::TimelessTrapError);
  try {
    api::solve(api::loadModel(std::string(MMT_SOURCE_DIR) + "/tests/cli/deadlock.hdl"));
    FAIL("no StructureError");
  } catch (const api::StructureError& e) {
    CHECK((e.kind() == solver::ChainStructure::Kind::Deadlock));
  }
  try {
    api::solve(api::loadModel(std::string(MMT_SOURCE_DIR) + "/tests/cli/measure_zero.gspn"));
    FAIL("no UndefinedMeasureError");
  } catch (const api::UndefinedMeasureError& e) {
    CHECK(e.measure() == "per_firing");
  }
}

TEST_CASE(
    "the default state limit: none but memory for a net proven bounded, 2,000,000 otherwise") {
  TempFile bounded("mm1k.gspn", kMm1k), open("open.gspn", "place q;\ntimed a rate 1 out q;\n");
  const api::Settings defaults;
  CHECK(api::explorationSettings(api::loadModel(bounded.str()).net(), defaults).maxStates ==
        api::Settings::kBoundedStateLimit);
  CHECK(api::explorationSettings(api::loadModel(open.str()).net(), defaults).maxStates ==
        api::Settings::kUnprovenStateLimit);
  CHECK(api::explorationSettings(api::loadModel(open.str()).net(), defaults).maxMemoryBytes ==
        api::defaultMemoryLimit());
  api::Settings set;
  set.maxStates = 7;
  set.maxMemoryBytes = 1 << 20;
  CHECK(api::explorationSettings(api::loadModel(open.str()).net(), set).maxStates == 7);
  CHECK(api::explorationSettings(api::loadModel(open.str()).net(), set).maxMemoryBytes == 1 << 20);
}

TEST_CASE(
    "Settings::interrupt stops exploration, the solver, the transient products and the "
    "simulation") {
  TempFile file("mm1k.gspn", kMm1k);
  const api::Model model = api::loadModel(file.str(), {{"K", 60}});
  std::atomic<bool> stop{true};
  api::Settings settings;
  settings.run.interrupt = &stop;
  CHECK_THROWS_AS(api::solve(model, settings), api::InterruptedError);
  // Set once the graph is explored: the solver stops at its first sweep.
  stop = false;
  settings.method = solver::Method::GaussSeidel;
  settings.tolerance = 1e-300;
  settings.maxIterations = 1'000'000'000;
  try {
    api::solve(model, settings, [&](const gspn::TangibleReachabilityGraph&) { stop = true; });
    FAIL("not interrupted");
  } catch (const api::InterruptedError& e) {
    CHECK(e.headline().rfind("interrupted while solving", 0) == 0);
  }
  api::SimulationSettings simulation;
  simulation.precision = 1e-9;
  simulation.events = 1000;
  simulation.run.interrupt = &stop;
  CHECK_THROWS_AS(api::simulate(model, simulation), api::InterruptedError);
  // Unset, the same settings solve.
  stop = false;
  settings.tolerance = 1e-12;
  CHECK(api::solve(model, settings).chain.explored.graph.stateCount() == 61);
  // Set once the graph is explored, with transient measures alone: the products stop.
  api::TransientRequest transient;
  transient.times = {1e6};
  transient.only = true;
  try {
    api::solve(
        model, settings, [&](const gspn::TangibleReachabilityGraph&) { stop = true; }, transient);
    FAIL("not interrupted");
  } catch (const api::InterruptedError& e) {
    CHECK(e.headline().rfind("interrupted while computing the transient measures", 0) == 0);
  }
}

TEST_CASE("failureJson: a failure's class and fields, as the Python module raises them") {
  TempFile file("mm1k.gspn", kMm1k);
  api::Settings settings;
  settings.maxStates = 5;
  try {
    api::solve(api::loadModel(file.str(), {{"K", 60}}), settings);
    FAIL("no state limit");
  } catch (const api::StateLimitError& e) {
    const nlohmann::ordered_json j = api::failureJson(e);
    CHECK(j["kind"] == "StateLimitError");
    CHECK(j["headline"] == e.headline());
    CHECK(j["data"]["limit"] == 5);
    CHECK(j["data"]["states"] == e.states());
    CHECK(j["data"]["proven_bounded"] == e.data().provenBounded);
  }
  TempFile broken("broken.gspn", "net n; place p = ;");
  try {
    api::loadModel(broken.str());
    FAIL("no model error");
  } catch (const api::ModelError& e) {
    const nlohmann::ordered_json j = api::failureJson(e);
    CHECK(j["kind"] == "ModelError");
    CHECK(j["data"]["line"] == 1);
    CHECK(j["data"]["column"] == e.location().column);
    CHECK(j["data"]["diagnostics"][0]["severity"] == "error");
  }
  CHECK(api::failureJson(api::InterruptedError("stopped"))["kind"] == "InterruptedError");
}
