// The steady state of the classic benchmark nets of tools/bench/models: published state
// counts and throughputs (Kanban, FMS), the ring against Buzen's convolution, every solver
// method against the direct one, the block sweeps, the auto strategy's switches, the
// packed generator and the measures summed on several threads.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "gspn/invariants.hpp"
#include "gspn/measure_source.hpp"
#include "solve_helpers.hpp"
#include "solver/measures.hpp"

using namespace mmt;
using testing::BenchCase;
using testing::loadBenchModel;

TEST_CASE("Kanban N = 1..4: published tangible state counts and edges and throughputs" *
          doctest::test_suite("slow")) {
  const std::size_t states[] = {160, 4600, 58400, 454475};
  for (int n = 1; n <= 4; ++n) {
    CAPTURE(n);
    gspn::Net net = loadBenchModel("kanban.gspn", {{"N", n}});
    auto explored = gspn::exploreTangible(net);
    REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
    CHECK(explored.graph.stateCount() == states[n - 1]);
    if (n == 4) CHECK(explored.graph.edgeCount() == 3979850);
  }
  // Ciardo & Tilgner's throughput of tin1 for N = 1, 2.
  const double throughput[] = {0.0925846346, 0.1738717062};
  for (int n = 1; n <= 2; ++n) {
    gspn::Net net = loadBenchModel("kanban.gspn", {{"N", n}});
    auto s = testing::solve(net, solver::Method::LU);
    CHECK(s.measures->throughput(*net.findTransition("tin1")) ==
          doctest::Approx(throughput[n - 1]).epsilon(1e-9));
  }
}

TEST_CASE("steady-state measures: the same bits on 1, 2 and 3 threads, and the plain sums") {
  // Kanban N = 3 (58,400 states) is summed in chunks on every thread; the sums of π_s m_s(p)
  // and π_s λ_t(m_s) taken here state by state agree to rounding.
  gspn::Net net = loadBenchModel("kanban.gspn", {{"N", 3}});
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
    gspn::Net net = loadBenchModel("fms.gspn", {{"N", n}});
    auto s = testing::solve(net, solver::Method::LU);
    CHECK(s.graph.stateCount() == states[n - 1]);
    // Ciardo & Trivedi give the productivity to one decimal.
    const double value = gspn::evaluateMeasures(net, *s.measures).at(0);
    CHECK(std::abs(value - productivity[n - 1]) < 0.05);
  }
}

TEST_CASE("ring of stations with immediate starts matches Buzen's convolution to 1e-8") {
  // Closed product-form network: K = 8 single-server stations in a cycle, service rates
  // μ_i = 1 + (i mod 3), visit ratios 1. Buzen (CACM 16(9), 1973): G(n) by convolution,
  // X = G(N−1)/G(N), E[n_i] = Σ_{k=1..N} ρ_i^k G(N−k)/G(N) with ρ_i = 1/μ_i.
  const int stations = 8, jobs = 6;
  gspn::Net net = loadBenchModel("ring8.gspn", {{"N", jobs}});
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
  const BenchCase cases[] = {{"kanban.gspn", {{"N", 2}}},
                             {"fms.gspn", {{"N", 2}}},
                             {"tandem.gspn", {{"c", 7}}},
                             {"ring8.gspn", {{"N", 4}}}};
  for (const BenchCase& c : cases) {
    gspn::Net net = loadBenchModel(c.file, c.overrides);
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
  const BenchCase cases[] = {{"kanban.gspn", {{"N", 2}}},
                             {"fms.gspn", {{"N", 2}}},
                             {"tandem.gspn", {{"c", 31}}},
                             {"ring8.gspn", {{"N", 4}}}};
  const int threads = omp_get_max_threads();
  for (const BenchCase& c : cases) {
    gspn::Net net = loadBenchModel(c.file, c.overrides);
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
  gspn::Net net = loadBenchModel("tandem.gspn", {{"c", 63}});
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
    gspn::Net small = loadBenchModel("tandem.gspn", {{"c", c}});
    auto lu = testing::solve(small, solver::Method::LU);
    auto iad = testing::solve(small, solver::Method::IAD, 1e-13);
    CHECK(iad.result.note.find("over the levels of place sm") != std::string::npos);
    CHECK((iad.result.pi - lu.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
  }
}

TEST_CASE("auto stalls Gauss-Seidel before its trial of SOR where its first rates are hopeless") {
  // c = 255 (130,816 states): by sweep 30 Gauss–Seidel's residual falls by 0.961 and 0.984
  // a check of ten sweeps, some 6,000 sweeps to go, more than even SOR's best gain brings
  // within the stall rule's 2,000: IAD at once, without the trial or 50 more sweeps.
  gspn::Net net = loadBenchModel("tandem.gspn", {{"c", 255}});
  auto automatic = testing::solve(net, solver::Method::Auto, 1e-10);
  auto iad = testing::solve(net, solver::Method::IAD, 1e-13);
  CAPTURE(automatic.result.note);
  CHECK(solver::toString(automatic.result.method) == "iad");
  CHECK(automatic.result.note.find("gauss-seidel would take some ") == 0);
  CHECK(automatic.result.note.find("more sweeps at its rate (residual ") != std::string::npos);
  CHECK(automatic.result.note.find("after 30 sweeps), switched to iad over the levels of place "
                                   "sm (256 levels)") != std::string::npos);
  CHECK(automatic.result.note.find("SOR at 1.2 tried") == std::string::npos);
  CHECK(automatic.result.iterations <= 80);
  CHECK((automatic.result.pi - iad.result.pi).cwiseAbs().maxCoeff() <= 1e-11);
}

TEST_CASE("SOR at a relaxation whose iterates cycle stops once its residual stops falling") {
  // Kanban N = 1 (160 states) at ω = 1.5: the residual stays at 5.2e-3 for ever, and
  // Kanban N = 5 at the same ω kept its residual for the 100,000 sweeps of the default
  // --max-iterations (40 minutes). The sweeps stop 50 checks after the lowest residual.
  gspn::Net net = loadBenchModel("kanban.gspn", {{"N", 1}});
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
    gspn::Net net = loadBenchModel("kanban.gspn", {{"N", 3}});
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
  // Kanban N = 2: SOR at 1.2 is slower; the tandem queue (c = 31) and the ring (N = 8):
  // a sweep at 1.2 writes a negative value. The iterate from before the trial is restored
  // and Gauss–Seidel converges to LU's result. The ring's trial ends at its first sweep,
  // so it costs no residual check: Auto takes Gauss–Seidel's 85 sweeps (90 where the
  // trial ran to its check, 5 sweeps on).
  const std::pair<BenchCase, const char*> dropped[] = {
      {{"kanban.gspn", {{"N", 2}}}, "(it was slower)"},
      {{"tandem.gspn", {{"c", 31}}}, "(it produced values that are not probabilities)"},
      {{"ring8.gspn", {{"N", 8}}}, "(it produced values that are not probabilities)"}};
  for (const auto& [c, why] : dropped) {
    const std::string& file = c.file;
    CAPTURE(file);
    gspn::Net net = loadBenchModel(c.file, c.overrides);
    auto lu = testing::solve(net, solver::Method::LU);
    auto automatic = testing::solve(net, solver::Method::Auto, 1e-12);
    CAPTURE(automatic.result.note);
    CHECK(solver::toString(automatic.result.method) == "gauss-seidel");
    CHECK(automatic.result.relaxation == 1);
    CHECK(automatic.result.note.find("SOR at 1.2 tried after") != std::string::npos);
    CHECK(automatic.result.note.find(std::string("and dropped ") + why) != std::string::npos);
    REQUIRE(automatic.result.pi.size() == lu.result.pi.size());
    CHECK((automatic.result.pi - lu.result.pi).cwiseAbs().maxCoeff() <= 1e-9);
    if (file == "ring8.gspn") {
      auto gs = testing::solve(net, solver::Method::GaussSeidel, 1e-12);
      CHECK(automatic.result.iterations <= gs.result.iterations + 2);
    }
  }
}

TEST_CASE("a packed generator holds the same entries and gives the same bits as an unpacked one") {
  for (const char* file : {"kanban.gspn", "fms.gspn"}) {
    CAPTURE(file);
    gspn::Net net = loadBenchModel(file, {{"N", 2}});
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
  gspn::Net net = loadBenchModel("tandem.gspn", {{"c", 7}});
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

/// Checks levelMarkingOrder on `net`'s whole chain and on its odd states, and that it moves
/// more than half of the states from their breadth-first places. The markings are stored
/// as keys of `keyWords` words (sorted as one number up to two words, by rows beyond),
/// packed in the bits of the places' bounds where `packed`.
void checkLevelMarkingOrder(const gspn::Net& net, bool packed, std::size_t keyWords) {
  gspn::ExplorationSettings settings;
  if (packed)
    settings.placeBounds = gspn::analyzeBoundedness(net, gspn::computePSemiflows(net)).bound;
  auto explored = gspn::exploreTangible(net, settings);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  const auto& g = explored.graph;
  REQUIRE(g.markings.layout() != nullptr);
  CHECK(g.markings.layout()->keyLength() == keyWords);
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

}  // namespace

TEST_CASE("the steady state's order: each breadth-first level in the order of its markings") {
  // Two tokens on a ring of `places` places, found in another order than the markings'.
  auto ring = [](int places) {
    gspn::NetBuilder b("ring");
    std::vector<gspn::PlaceId> ring;
    for (int k = 0; k < places; ++k) ring.push_back(b.addPlace("p" + std::to_string(k), k < 2));
    for (int k = places - 1; k >= 0; --k) {
      const auto t = b.addTimed("t" + std::to_string(k), 1.0 + k % 3);
      b.addInput(t, ring[k]);
      b.addOutput(t, ring[(k + 1) % places]);
    }
    return b.freeze();
  };
  SUBCASE("keys of one word (Kanban N = 2, 2 bits a place) and two (a ring of 20 places)") {
    checkLevelMarkingOrder(loadBenchModel("kanban.gspn", {{"N", 2}}), true, 1);
    checkLevelMarkingOrder(ring(20), true, 2);
  }
  SUBCASE("keys of a word a place, sorted by rows: Kanban N = 2, a ring of 80 places") {
    checkLevelMarkingOrder(loadBenchModel("kanban.gspn", {{"N", 2}}), false, 16);
    checkLevelMarkingOrder(ring(80), false, 80);
  }
}
