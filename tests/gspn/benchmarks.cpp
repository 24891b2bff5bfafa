// The classic benchmark nets of tools/bench/models, read through the .gspn loader:
// published state counts (Kanban, FMS, tandem), published throughputs and productivity,
// the ring against Buzen's convolution, and every solver method against the direct one.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gspn/measure_source.hpp"
#include "io/load_gspn.hpp"
#include "solve_helpers.hpp"
#include "solver/measures.hpp"

using namespace mmt;

namespace {

gspn::Net loadModel(const std::string& name, const grammar::ParameterOverrides& overrides) {
  const auto path = std::filesystem::path(MMT_SOURCE_DIR) / "tools" / "bench" / "models" / name;
  grammar::SourceFile source = grammar::readSourceFile(path.string());
  grammar::Diagnostics diagnostics(source);
  auto net = io::loadGspn(source, diagnostics, overrides);
  REQUIRE_MESSAGE(net, diagnostics.str());
  return std::move(*net);
}

/// A benchmark model file and its parameters.
/// Whether two graphs hold the same edges in the same order, each with its source and its
/// rate, whether stored packed or apart.
bool sameEdges(const gspn::TangibleReachabilityGraph& a, const gspn::TangibleReachabilityGraph& b) {
  if (a.inOffset != b.inOffset || a.edgeCount() != b.edgeCount()) return false;
  for (std::size_t k = 0; k < a.edgeCount(); ++k)
    if (a.sourceOf(k) != b.sourceOf(k) || a.rateOf(k) != b.rateOf(k)) return false;
  return true;
}

struct Case {
  const char* file;
  grammar::ParameterOverrides overrides;
};

std::size_t tangibleStates(const gspn::Net& net) {
  auto explored = gspn::exploreTangible(net);
  REQUIRE_MESSAGE(explored.status == gspn::ExplorationResult::Status::Ok, explored.message);
  return explored.graph.stateCount();
}

}  // namespace

TEST_CASE("Kanban N = 1..4: published tangible state counts and edges and throughputs" *
          doctest::test_suite("slow")) {
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

TEST_CASE("steady-state measures: the same bits on 1, 2 and 3 threads, and the plain sums") {
  // Kanban N = 3 (58,400 states) is summed in chunks on every thread; the sums of π_s m_s(p)
  // and π_s λ_t(m_s) taken here state by state agree to rounding.
  gspn::Net net = loadModel("kanban.gspn", {{"N", 3}});
  auto explored = gspn::exploreTangible(net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  const gspn::TangibleReachabilityGraph& g = explored.graph;
  const std::size_t n = g.stateCount();
  REQUIRE(n == 58400);
  // Any distribution does: a made-up one that weighs the states unevenly.
  Eigen::VectorXd pi(static_cast<Eigen::Index>(n));
  for (std::size_t s = 0; s < n; ++s) pi[Eigen::Index(s)] = 1.0 + double(s % 7);
  pi /= pi.sum();
  std::vector<std::uint32_t> states(n);
  for (std::size_t s = 0; s < n; ++s) states[s] = std::uint32_t(s);

  std::vector<double> tokens(net.placeCount(), 0.0), flows(net.transitionCount(), 0.0);
  std::vector<gspn::Tokens> m(net.placeCount());
  for (std::size_t s = 0; s < n; ++s) {
    g.markings.decode(std::uint32_t(s), m);
    const double p = pi[Eigen::Index(s)];
    for (gspn::PlaceId place = 0; place < net.placeCount(); ++place) tokens[place] += p * m[place];
    for (gspn::TransitionId t : net.timedTransitions()) flows[t] += p * net.rate(t, m);
  }

  const int threads = omp_get_max_threads();
  std::vector<double> first;
  for (int t : {1, 2, 3}) {
    CAPTURE(t);
    omp_set_num_threads(t);
    const solver::SteadyStateMeasures measures(net, g, states, pi);
    std::vector<double> all;
    for (gspn::PlaceId place = 0; place < net.placeCount(); ++place) {
      CHECK(measures.meanTokens(place) == doctest::Approx(tokens[place]).epsilon(1e-12));
      all.push_back(measures.meanTokens(place));
    }
    for (gspn::TransitionId u : net.timedTransitions()) {
      CHECK(measures.throughput(u) == doctest::Approx(flows[u]).epsilon(1e-12));
      all.push_back(measures.throughput(u));
    }
    if (first.empty()) first = all;
    CHECK(all == first);
  }
  omp_set_num_threads(threads);
}

TEST_CASE("FMS N = 1..3: published tangible state counts and productivity" *
          doctest::test_suite("slow")) {
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

TEST_CASE("every steady-state method agrees with the direct method to 1e-9" *
          doctest::test_suite("slow")) {
  const Case cases[] = {{"kanban.gspn", {{"N", 2}}},
                        {"fms.gspn", {{"N", 2}}},
                        {"tandem.gspn", {{"c", 7}}},
                        {"ring8.gspn", {{"N", 4}}}};
  for (const Case& c : cases) {
    gspn::Net net = loadModel(c.file, c.overrides);
    auto direct = testing::solve(net, solver::Method::LU);
    for (solver::Method m :
         {solver::Method::GaussSeidel, solver::Method::SOR, solver::Method::Power,
          solver::Method::BiCGSTAB, solver::Method::GMRES, solver::Method::Auto}) {
      CAPTURE(c.file);
      CAPTURE(solver::toString(m));
      auto other = testing::solve(net, m, 1e-13);
      REQUIRE(other.result.pi.size() == direct.result.pi.size());
      CHECK((other.result.pi - direct.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
    }
  }
}

TEST_CASE(
    "two-block sweeps: the direct method's solution to 1e-9 and the same bits on 1 and 2 "
    "threads" *
    doctest::test_suite("slow")) {
  // Every chain split in two (blockSweepStates = 2): Gauss–Seidel within each half, the
  // other half's values from the previous sweep.
  const Case cases[] = {{"kanban.gspn", {{"N", 2}}},
                        {"fms.gspn", {{"N", 2}}},
                        {"tandem.gspn", {{"c", 31}}},
                        {"ring8.gspn", {{"N", 4}}}};
  const int threads = omp_get_max_threads();
  for (const Case& c : cases) {
    gspn::Net net = loadModel(c.file, c.overrides);
    auto direct = testing::solve(net, solver::Method::LU);
    for (solver::Method m :
         {solver::Method::GaussSeidel, solver::Method::SOR, solver::Method::Auto}) {
      CAPTURE(c.file);
      CAPTURE(solver::toString(m));
      solver::SteadyStateSettings settings;
      settings.method = m;
      settings.tolerance = 1e-13;
      settings.directLimit = 0;  // Auto sweeps too
      settings.blockSweepStates = 2;
      Eigen::VectorXd pi[2];
      std::size_t iterations[2] = {};
      for (int t : {1, 2}) {
        omp_set_num_threads(t);
        auto solved = solver::solveNet(net, {.steadyState = settings});
        REQUIRE_MESSAGE(solved->stage == solver::SolvedNet::Stage::Ok, solved->message());
        pi[t - 1] = solved->solution.steadyState.pi;
        iterations[t - 1] = solved->solution.steadyState.iterations;
      }
      omp_set_num_threads(threads);
      REQUIRE(pi[0].size() == direct.result.pi.size());
      CHECK((pi[0] - direct.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
      CHECK(iterations[0] == iterations[1]);
      CHECK((pi[0].array() == pi[1].array()).all());
      if (std::string(c.file) == "kanban.gspn" && m == solver::Method::GaussSeidel) {
        // Few entries cross the halves (under the 10 % that keeps one block), and the
        // split is taken: one block's sweeps end on other bits.
        settings.blockSweepStates = 0;
        auto one = solver::solveNet(net, {.steadyState = settings});
        CHECK(one->solution.steadyState.pi.size() == pi[0].size());
        CHECK(!(one->solution.steadyState.pi.array() == pi[0].array()).all());
      }
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

TEST_CASE("SOR at a relaxation whose iterates cycle stops once its residual stops falling") {
  // Kanban N = 1 (160 states) at ω = 1.5: the residual stays at 5.2e-3 for ever, and
  // Kanban N = 5 at the same ω kept its residual for the 100,000 sweeps of the default
  // --max-iterations (40 minutes). The sweeps stop 50 checks after the lowest residual.
  gspn::Net net = loadModel("kanban.gspn", {{"N", 1}});
  solver::SteadyStateSettings settings;
  settings.method = solver::Method::SOR;
  settings.relaxation = 1.5;
  auto sor = solver::solveNet(net, {.steadyState = settings});
  const solver::SteadyStateResult& result = sor->solution.steadyState;
  CAPTURE(result.note);
  CHECK(sor->stage == solver::SolvedNet::Stage::Solver);
  CHECK(result.status == solver::Status::NoConvergence);
  CHECK(result.note.find("sor made no progress: its residual has not fallen below") !=
        std::string::npos);
  CHECK(result.note.find("in the last 250 sweeps (relaxation 1.5)") != std::string::npos);
  CHECK(result.iterations < 1000);
  CHECK(result.residual > 1e-3);
  CHECK_FALSE(result.iterationLimit);  // more sweeps would not help
  // The same method with fewer sweeps allowed than it takes to give up runs out of them.
  settings.maxIterations = 100;
  auto shorter = solver::solveNet(net, {.steadyState = settings});
  CHECK(shorter->solution.steadyState.status == solver::Status::NoConvergence);
  CHECK(shorter->solution.steadyState.iterations == 100);
  CHECK(shorter->solution.steadyState.iterationLimit);
  settings.maxIterations = solver::SteadyStateSettings{}.maxIterations;
  // The power method below the floor rounding sets (its residual stays at 1.1e-17).
  settings.method = solver::Method::Power;
  settings.tolerance = 1e-19;
  auto power = solver::solveNet(net, {.steadyState = settings});
  CAPTURE(power->solution.steadyState.note);
  CHECK(power->solution.steadyState.status == solver::Status::NoConvergence);
  CHECK(power->solution.steadyState.note.find("the power method made no progress") !=
        std::string::npos);
  CHECK(power->solution.steadyState.iterations < 10'000);
  CHECK_FALSE(power->solution.steadyState.iterationLimit);
  // Gauss–Seidel, and SOR at 1.2, converge on the same chain as before.
  settings.method = solver::Method::SOR;
  CHECK(testing::solve(net, solver::Method::GaussSeidel).result.residual <= 1e-12);
  settings.relaxation = 1.2;
  settings.tolerance = 1e-12;
  CHECK(solver::solveNet(net, {.steadyState = settings})->stage == solver::SolvedNet::Stage::Ok);
}

TEST_CASE("auto keeps SOR at 1.2 where a trial beats Gauss-Seidel (Kanban) and drops it elsewhere" *
          doctest::test_suite("slow")) {
  // Kanban N = 3 (58,400 states): Gauss–Seidel's residual halves every 5 sweeps, SOR's
  // falls faster. The trial is kept, and the result matches Gauss–Seidel's (which
  // extrapolates) in fewer sweeps.
  {
    gspn::Net net = loadModel("kanban.gspn", {{"N", 3}});
    auto gs = testing::solve(net, solver::Method::GaussSeidel, 1e-12);
    auto automatic = testing::solve(net, solver::Method::Auto, 1e-12);
    CAPTURE(automatic.result.note);
    CHECK(solver::toString(automatic.result.method) == "sor");
    CHECK(automatic.result.relaxation == 1.2);
    CHECK(automatic.result.note.find("Gauss-Seidel sweeps, then SOR at 1.2") != std::string::npos);
    CHECK(automatic.result.iterations + 30 <= gs.result.iterations);  // 60 against 100
    REQUIRE(automatic.result.pi.size() == gs.result.pi.size());
    CHECK((automatic.result.pi - gs.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
  }
  // The tandem queue (c = 31): SOR at 1.2 is slower; the ring (N = 8): its iterate leaves
  // the probabilities. The iterate from before the trial is restored and Gauss–Seidel
  // converges to LU's result.
  const std::pair<Case, const char*> dropped[] = {
      {{"tandem.gspn", {{"c", 31}}}, "(it was slower)"},
      {{"ring8.gspn", {{"N", 8}}}, "(it produced values that are not probabilities)"}};
  for (const auto& [c, why] : dropped) {
    const std::string& file = c.file;
    CAPTURE(file);
    gspn::Net net = loadModel(c.file, c.overrides);
    auto lu = testing::solve(net, solver::Method::LU);
    auto automatic = testing::solve(net, solver::Method::Auto, 1e-12);
    CAPTURE(automatic.result.note);
    CHECK(solver::toString(automatic.result.method) == "gauss-seidel");
    CHECK(automatic.result.relaxation == 1);
    CHECK(automatic.result.note.find("SOR at 1.2 tried after") != std::string::npos);
    CHECK(automatic.result.note.find(std::string("and dropped ") + why) != std::string::npos);
    REQUIRE(automatic.result.pi.size() == lu.result.pi.size());
    CHECK((automatic.result.pi - lu.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
  }
}

TEST_CASE("a packed generator holds the same entries and gives the same bits as an unpacked one") {
  for (const char* file : {"kanban.gspn", "fms.gspn"}) {
    CAPTURE(file);
    gspn::Net net = loadModel(file, {{"N", 2}});
    auto explored = gspn::exploreTangible(net);
    const auto& g = explored.graph;
    std::vector<std::uint32_t> all(g.stateCount());
    for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    solver::Generator packed = solver::buildGenerator(g, all);
    REQUIRE(packed.packed());
    CHECK(packed.bytesPerEntry() == 4);
    REQUIRE(packed.entries() == g.edgeCount());
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < packed.entries(); ++k)
      wrong += std::uint32_t(packed.source(k)) != g.sourceOf(k) || packed.rate(k) != g.rateOf(k);
    CHECK(wrong == 0);
    // The same generator, not packed: each edge's source and its rate number apart.
    solver::Generator plain;
    plain.offset = g.inOffset;
    plain.value.assignCompact(g.edgeCount());
    plain.value.setTable(g.rate.table());
    plain.index.resize(g.edgeCount());
    for (std::size_t k = 0; k < g.edgeCount(); ++k) {
      plain.index[k] = std::int32_t(g.sourceOf(k));
      plain.value.setNumber(k, g.rateNumberOf(k));
    }
    plain.exitRate = gspn::EdgeRates::compacted(g.exitRate);
    REQUIRE(!plain.packed());
    CHECK(plain.bytesPerEntry() == 6);
    for (solver::Method method : {solver::Method::GaussSeidel, solver::Method::Power}) {
      CAPTURE(solver::toString(method));
      solver::SteadyStateSettings settings;
      settings.method = method;
      const auto a = solver::solveSteadyState(packed, settings);
      const auto b = solver::solveSteadyState(plain, settings);
      REQUIRE(a.status == solver::Status::Converged);
      CHECK(a.iterations == b.iterations);
      CHECK(a.pi == b.pi);
    }
  }
  // 70,001 states (17 bits) and 40,001 distinct rates (16 bits) do not fit in 32: the
  // generator stays unpacked, 6 bytes an entry.
  const gspn::Net chain = testing::loadGspnText(
      "place n; timed up rate 1 + 1 / (min(#n, 40000) + 1) out n inhibit n * 70000;"
      "timed down rate 2 in n;");
  auto explored = gspn::exploreTangible(chain);
  std::vector<std::uint32_t> all(explored.graph.stateCount());
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  const solver::Generator q = solver::buildGenerator(explored.graph, all);
  CHECK(!q.packed());
  CHECK(q.bytesPerEntry() == 6);
  CHECK(q.rate(0) == explored.graph.rate[0]);
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
  auto solution = solver::solveNet(cycle, {.steadyState = settings});
  CHECK(solution->stage == solver::SolvedNet::Stage::Solver);
  CHECK(solution->message().find("no place whose levels couple weakly") != std::string::npos);
}

namespace {

/// Explores on `threads` threads; breadth-first levels of `levelSize` states or more in
/// parallel (1: every level, however small).
gspn::TangibleReachabilityGraph exploreOn(const gspn::Net& net, unsigned threads,
                                          std::uint32_t levelSize = 1, bool everyOrder = false) {
  gspn::ExplorationSettings settings;
  settings.everyOrder = everyOrder;
  settings.threads = threads;
  settings.parallelLevelSize = levelSize;
  auto explored = gspn::exploreTangible(net, settings);
  REQUIRE_MESSAGE(explored.status == gspn::ExplorationResult::Status::Ok, explored.message);
  return std::move(explored.graph);
}

}  // namespace

TEST_CASE(
    "exploration on 1, 2 and 3 threads: the same states, numbers and generator, bit for bit") {
  // Kanban and the tandem queue have no vanishing markings; FMS and the ring do.
  const Case cases[] = {{"kanban.gspn", {{"N", 3}}},
                        {"fms.gspn", {{"N", 3}}},
                        {"tandem.gspn", {{"c", 31}}},
                        {"ring8.gspn", {{"N", 8}}}};
  for (const Case& c : cases) {
    CAPTURE(c.file);
    gspn::Net net = loadModel(c.file, c.overrides);
    const auto one = exploreOn(net, 1);
    for (const auto& [threadCount, levelCount] : {std::pair{2u, 1u}, {3u, 1u}, {2u, 2048u}}) {
      const unsigned threads = threadCount, levelSize = levelCount;
      CAPTURE(threads);
      CAPTURE(levelSize);
      const auto more = exploreOn(net, threads, levelSize);
      REQUIRE(more.stateCount() == one.stateCount());
      bool sameMarkings = true;
      for (std::size_t s = 0; s < one.stateCount(); ++s)
        sameMarkings = sameMarkings && more.marking(s) == one.marking(s);
      CHECK(sameMarkings);
      CHECK(more.inOffset == one.inOffset);
      CHECK(more.source == one.source);
      CHECK(more.rate == one.rate);
      CHECK(more.exitRate == one.exitRate);
      CHECK(more.initial == one.initial);
      CHECK(more.vanishingCount == one.vanishingCount);
      REQUIRE(more.immediateFlows.size() == one.immediateFlows.size());
      std::size_t differentFlows = 0;
      for (std::size_t k = 0; k < one.immediateFlows.size(); ++k) {
        const auto &a = one.immediateFlows[k], &b = more.immediateFlows[k];
        differentFlows += a.state != b.state || a.transition != b.transition || a.rate != b.rate;
      }
      CHECK(differentFlows == 0);
    }
  }
}

TEST_CASE("the generator transposed from pass 1's rows is pass 2's, bit for bit") {
  const Case cases[] = {
      {"kanban.gspn", {{"N", 3}}}, {"fms.gspn", {{"N", 3}}}, {"ring8.gspn", {{"N", 8}}}};
  for (const Case& c : cases) {
    CAPTURE(c.file);
    gspn::Net net = loadModel(c.file, c.overrides);
    for (unsigned threads : {1u, 2u}) {
      CAPTURE(threads);
      gspn::ExplorationSettings settings;
      settings.threads = threads;
      settings.parallelLevelSize = 1;
      auto transposed = gspn::exploreTangible(net, settings);
      settings.transposeRows = false;
      auto recomputed = gspn::exploreTangible(net, settings);
      REQUIRE(transposed.status == gspn::ExplorationResult::Status::Ok);
      REQUIRE(recomputed.status == gspn::ExplorationResult::Status::Ok);
      CHECK(transposed.graph.edgeCount() == recomputed.graph.edgeCount());
      CHECK(sameEdges(transposed.graph, recomputed.graph));
      // Packed where pass 2 keeps sources and rate numbers apart.
      CHECK(transposed.graph.sourceBits > 0);
      CHECK(transposed.graph.bytesPerEdge == 4);
      CHECK(recomputed.graph.bytesPerEdge == 6);
      CHECK(transposed.graph.rate.table() == recomputed.graph.rate.table());
      CHECK(transposed.graph.exitRate == recomputed.graph.exitRate);
    }
  }
}

TEST_CASE("kept rows pack target and rate number into one word where both fit, else not") {
  // A birth-death chain of 70,001 states (17 bits of target) whose up-rate takes 40,001
  // values (16 bits of rate number): the rows of the first levels are packed, those kept
  // after the numbers outgrow 15 bits are not, and the transposition must read both.
  const gspn::Net net = mmt::testing::loadGspnText(
      "place n; timed up rate 1 + 1 / (min(#n, 40000) + 1) out n inhibit n * 70000;"
      "timed down rate 2 in n;");
  gspn::ExplorationSettings settings;
  auto transposed = gspn::exploreTangible(net, settings);
  settings.transposeRows = false;
  auto recomputed = gspn::exploreTangible(net, settings);
  REQUIRE(transposed.status == gspn::ExplorationResult::Status::Ok);
  REQUIRE(recomputed.status == gspn::ExplorationResult::Status::Ok);
  REQUIRE(transposed.graph.stateCount() == 70'001);
  CHECK(transposed.graph.rate.compact());
  CHECK(transposed.graph.rate.table().size() == 40'001);  // λ(0) = 2 = μ
  CHECK(transposed.graph.sourceBits == 0);                // 17 + 16 bits do not fit in one word
  CHECK(transposed.graph.inOffset == recomputed.graph.inOffset);
  CHECK(transposed.graph.source == recomputed.graph.source);
  CHECK(transposed.graph.rate == recomputed.graph.rate);
  CHECK(transposed.graph.exitRate == recomputed.graph.exitRate);
}

TEST_CASE("the vanishing markings counted are those a plain breadth-first search meets") {
  // An independent search over every reachable marking of the ring (K = 8, N = 10): in a
  // vanishing marking only the enabled immediate transitions of the top priority fire, in
  // a tangible one the timed transitions. 91,521 vanishing markings in every order, past
  // the first compaction of one eliminator's fingerprints (65,536) on one thread; on two
  // and three threads the lists are merged.
  const gspn::Net net = loadModel("ring8.gspn", {{"N", 10}});
  std::set<std::vector<gspn::Tokens>> seen{net.initialMarking()};
  std::vector<std::vector<gspn::Tokens>> queue{net.initialMarking()};
  std::size_t vanishing = 0;
  std::vector<gspn::Tokens> next(net.placeCount());
  for (std::size_t k = 0; k < queue.size(); ++k) {
    const std::vector<gspn::Tokens> m = queue[k];
    std::vector<gspn::TransitionId> firing;
    std::uint32_t top = 0;
    for (gspn::TransitionId t : net.immediateTransitions())
      if (net.isEnabled(t, m)) top = std::max(top, net.transition(t).priority);
    for (gspn::TransitionId t : net.immediateTransitions())
      if (net.isEnabled(t, m) && net.transition(t).priority == top) firing.push_back(t);
    vanishing += !firing.empty();
    if (firing.empty())
      for (gspn::TransitionId t : net.timedTransitions())
        if (net.isEnabled(t, m) && net.rate(t, m) > 0) firing.push_back(t);
    for (gspn::TransitionId t : firing) {
      net.fire(t, m, next);
      if (seen.insert(next).second) queue.push_back(next);
    }
  }
  REQUIRE(vanishing == 91'521);
  for (unsigned threads : {1u, 2u, 3u}) {
    CAPTURE(threads);
    CHECK(exploreOn(net, threads, 1, /*everyOrder=*/true).vanishingCount == vanishing);
  }
}

TEST_CASE("rows that stop being kept within a level are counted once: the graph is pass 2's") {
  // Two counters a, b ≤ 299 (90,000 states, breadth-first levels a + b up to 300 wide)
  // whose up-rates take a value per marking: the rate numbering fills up (65,535) within
  // a level, while two threads merge its runs. Some runs of that level were kept, the
  // others not; the kept rows so far are dropped and pass 2 builds the generator. Every
  // edge must be counted into its target exactly once, kept or not.
  const gspn::Net net = mmt::testing::loadGspnText(
      "place a; place b;"
      "timed upA rate 1 + #a / 1000 + #b / 1000000 out a inhibit a * 299;"
      "timed upB rate 2 + #a / 1000 + #b / 1000000 out b inhibit b * 299;"
      "timed downA rate 3 in a; timed downB rate 5 in b;");
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    gspn::ExplorationSettings settings;
    settings.threads = threads;
    settings.parallelLevelSize = 1;
    auto stopped = gspn::exploreTangible(net, settings);
    settings.transposeRows = false;
    auto recomputed = gspn::exploreTangible(net, settings);
    REQUIRE(stopped.status == gspn::ExplorationResult::Status::Ok);
    REQUIRE(recomputed.status == gspn::ExplorationResult::Status::Ok);
    REQUIRE(stopped.graph.stateCount() == 90'000);
    CHECK(!stopped.graph.rate.compact());  // more rates than the compact form holds
    CHECK(stopped.graph.inOffset == recomputed.graph.inOffset);
    CHECK(sameEdges(stopped.graph, recomputed.graph));
    CHECK(stopped.graph.exitRate == recomputed.graph.exitRate);
  }
}

TEST_CASE("kept rows of 256 edges and more transpose as pass 2 builds them") {
  // One token at a hub that 300 transitions move to 300 spokes, each of which returns it
  // at a rate of its own: the hub's row has 300 edges, past the one-byte degree the kept
  // rows store where every row of a run is shorter; the spokes' rows have one.
  std::string text = "place hub = 1;";
  for (int k = 0; k < 300; ++k) {
    const std::string spoke = "s" + std::to_string(k);
    text += "place " + spoke + "; timed out" + std::to_string(k) + " rate " +
            std::to_string(1 + k % 7) + " in hub out " + spoke + "; timed back" +
            std::to_string(k) + " rate " + std::to_string(1 + k) + " in " + spoke + " out hub;";
  }
  const gspn::Net net = mmt::testing::loadGspnText(text);
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    gspn::ExplorationSettings settings;
    settings.threads = threads;
    settings.parallelLevelSize = 1;
    auto transposed = gspn::exploreTangible(net, settings);
    settings.transposeRows = false;
    auto recomputed = gspn::exploreTangible(net, settings);
    REQUIRE(transposed.status == gspn::ExplorationResult::Status::Ok);
    REQUIRE(recomputed.status == gspn::ExplorationResult::Status::Ok);
    REQUIRE(transposed.graph.stateCount() == 301);
    CHECK(transposed.graph.edges == 600);
    CHECK(transposed.graph.inOffset == recomputed.graph.inOffset);
    CHECK(sameEdges(transposed.graph, recomputed.graph));
    CHECK(transposed.graph.exitRate == recomputed.graph.exitRate);
  }
}

TEST_CASE(
    "exploration numbers the states in breadth-first order of discovery, on any thread count") {
  // An independent breadth-first search over the Kanban net (no vanishing markings): states
  // numbered as found, successors in the order of the timed transitions. Exploration
  // must give every state the same number, whatever the thread count.
  gspn::Net net = loadModel("kanban.gspn", {{"N", 2}});
  std::map<std::vector<gspn::Tokens>, std::uint32_t> number;
  std::vector<std::vector<gspn::Tokens>> order{net.initialMarking()};
  number[order[0]] = 0;
  std::vector<gspn::Tokens> next(net.placeCount());
  for (std::size_t s = 0; s < order.size(); ++s)
    for (gspn::TransitionId t : net.timedTransitions()) {
      if (!net.isEnabled(t, order[s]) || net.rate(t, order[s]) == 0.0) continue;
      net.fire(t, order[s], next);
      if (number.emplace(next, static_cast<std::uint32_t>(order.size())).second)
        order.push_back(next);
    }
  REQUIRE(order.size() == 4600);
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    const auto graph = exploreOn(net, threads);
    REQUIRE(graph.stateCount() == order.size());
    std::size_t mismatches = 0;
    for (std::size_t s = 0; s < order.size(); ++s) mismatches += graph.marking(s) != order[s];
    CHECK(mismatches == 0);
  }
}

TEST_CASE("exploration on 2 threads reports the failures a single thread reports") {
  // Four independent counters of 12 tokens: breadth-first levels of up to 1,469 states,
  // explored in parallel from 1,000 states on, as are the levels where things go wrong. A timeless
  // trap once b1 and b2 are full (level 24), a negative rate past level 20, and the state limit.
  const std::string counters =
      "place a1 = 12; place b1; place a2 = 12; place b2; place a3 = 12; place b3;\n"
      "place a4 = 12; place b4;\n"
      "timed t1 rate 1 in a1 out b1; timed u1 rate 2 in b1 out a1;\n"
      "timed t2 rate 1 in a2 out b2; timed u2 rate 2 in b2 out a2;\n"
      "timed t3 rate 1 in a3 out b3; timed u3 rate 2 in b3 out a3;\n"
      "timed u4 rate 2 in b4 out a4;\n";
  auto trap = testing::loadGspnText(counters +
                                    "timed t4 rate 1 in a4 out b4; place c;\n"
                                    "immediate loop1 in b1 * 12, b2 * 12 out c;\n"
                                    "immediate loop2 in c out b1 * 12, b2 * 12;\n");
  auto invalid =
      testing::loadGspnText(counters + "timed t4 rate (20 - #b1 - #b2 - #b3) in a4 out b4;\n");
  std::string trapMessage, invalidMessage;
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    gspn::ExplorationSettings settings;
    settings.threads = threads;
    settings.parallelLevelSize = 1000;
    const auto trapped = gspn::exploreTangible(trap, settings);
    CHECK(trapped.status == gspn::ExplorationResult::Status::TimelessTrap);
    CHECK(trapped.message.find("loop1, loop2") != std::string::npos);
    const auto bad = gspn::exploreTangible(invalid, settings);
    CHECK(bad.status == gspn::ExplorationResult::Status::InvalidModel);
    if (threads == 1) {
      trapMessage = trapped.message;
      invalidMessage = bad.message;
    } else {
      // The same marking is named: the first in state order, as one thread meets it.
      CHECK(trapped.message == trapMessage);
      CHECK(bad.message == invalidMessage);
    }
    settings.maxStates = 5000;
    const auto limited = gspn::exploreTangible(invalid, settings);
    CHECK(limited.status == gspn::ExplorationResult::Status::StateLimit);
    CHECK(limited.message.find("more than 5000 tangible markings") != std::string::npos);
  }
}

TEST_CASE("the steady state's order: each breadth-first level in the order of its markings") {
  gspn::Net net = loadModel("kanban.gspn", {{"N", 2}});
  auto explored = gspn::exploreTangible(net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  const auto& g = explored.graph;
  const auto& starts = g.levelStarts;
  REQUIRE(starts.size() > 10);
  auto levelOf = [&](std::size_t s) {
    return std::upper_bound(starts.begin(), starts.end(), std::uint32_t(s)) - starts.begin();
  };
  auto marking = [&](std::size_t s) {
    auto view = g.marking(std::uint32_t(s));
    return std::vector<gspn::Tokens>(view.begin(), view.end());
  };
  const solver::BlockOrder order = solver::levelMarkingOrder(g, nullptr, net.placeCount());
  REQUIRE(order.size() == g.stateCount());
  std::size_t moved = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    CHECK(levelOf(order[k]) == levelOf(k));
    if (k > 0 && levelOf(k - 1) == levelOf(k)) CHECK(marking(order[k - 1]) < marking(order[k]));
    moved += order[k] != k;
  }
  CHECK(moved > order.size() / 2);
  // Over a subset of the states (the recurrent ones, say): positions among the subset.
  std::vector<std::uint32_t> odd;
  for (std::uint32_t s = 1; s < g.stateCount(); s += 2) odd.push_back(s);
  const solver::BlockOrder some = solver::levelMarkingOrder(g, &odd, net.placeCount());
  REQUIRE(some.size() == odd.size());
  for (std::size_t k = 1; k < some.size(); ++k)
    if (levelOf(odd[some[k - 1]]) == levelOf(odd[some[k]]))
      CHECK(marking(odd[some[k - 1]]) < marking(odd[some[k]]));
    else
      CHECK(levelOf(odd[some[k - 1]]) < levelOf(odd[some[k]]));
}

TEST_CASE("exploration records where each breadth-first level begins") {
  // Against a breadth-first search of its own over the stored edges, from the initial
  // states: the ids grow with the distance, and each level starts at the first id of its
  // distance.
  for (const Case& c : {Case{"kanban.gspn", {{"N", 2}}}, Case{"tandem.gspn", {{"c", 7}}},
                        Case{"fms.gspn", {{"N", 1}}}}) {
    CAPTURE(c.file);
    const auto explored = gspn::exploreTangible(loadModel(c.file, c.overrides));
    REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
    const gspn::TangibleReachabilityGraph& g = explored.graph;
    const std::size_t n = g.stateCount();
    std::vector<std::vector<std::uint32_t>> out(n);
    for (std::size_t j = 0; j < n; ++j)
      for (auto k = std::size_t(g.inOffset[j]); k < std::size_t(g.inOffset[j + 1]); ++k)
        out[g.sourceOf(k)].push_back(std::uint32_t(j));
    std::vector<std::int64_t> distance(n, -1);
    std::vector<std::uint32_t> frontier;
    for (const auto& [state, p] : g.initial) {
      distance[state] = 0;
      frontier.push_back(state);
    }
    for (std::size_t f = 0; f < frontier.size(); ++f)
      for (const std::uint32_t t : out[frontier[f]])
        if (distance[t] < 0) {
          distance[t] = distance[frontier[f]] + 1;
          frontier.push_back(t);
        }
    std::vector<std::uint32_t> starts;
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(distance[i] >= 0);
      if (i > 0) REQUIRE(distance[i - 1] <= distance[i]);
      if (i == 0 || distance[i - 1] != distance[i]) starts.push_back(std::uint32_t(i));
    }
    CHECK(starts.size() > 5);
    CHECK(g.levelStarts == starts);
  }
}
