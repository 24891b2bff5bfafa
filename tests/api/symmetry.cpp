// Systems solved on the chain lumped by their interchangeable replicas (docs/symmetry.md)
// against the same systems solved whole (Settings::symmetry off): the same state count
// once orbits are weighed by their sizes, the same number for every element.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "api/solve.hpp"
#include "compile_helpers.hpp"
#include "gspn/automorphisms.hpp"

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
    CHECK(lumped.chain.explored.graph.stateCount() == orbits);
    CHECK(full.chain.explored.graph.stateCount() == std::size_t(4 * std::pow(3, w)));
    CHECK(*lumped.symmetry.unlumpedTangible == double(full.chain.explored.graph.stateCount()));
    CHECK_FALSE(full.symmetry.used());
    CHECK(full.symmetry.notes.at(0).find("off") != std::string::npos);
    CHECK(testing::checkSameResults(lumped.results(), full.results()) > 20);
  }
}

TEST_CASE("transient measures of a farm from its symmetric start, lumped and whole") {
  const api::Model model = farmModel(4);
  api::TransientRequest at;
  at.times = {0.5, 2, 10};
  const api::Solution lumped = solveWith(model, true, at);
  const api::Solution full = solveWith(model, false, at);
  REQUIRE(lumped.symmetry.used());
  CHECK(testing::checkSameResults(lumped.transient->pointsJson(), full.transient->pointsJson()) >
        60);
}

TEST_CASE("a worker on a faster processor breaks the farm's symmetry: the full chain") {
  const api::Model model = farmModel(3, 1);
  const api::Solution s = solveWith(model, true);
  CHECK_FALSE(s.symmetry.used());
  REQUIRE(s.symmetry.notes.size() == 1);
  CHECK(s.symmetry.notes[0].find("W[1].process") != std::string::npos);
  CHECK(s.symmetry.notes[0].find("rate") != std::string::npos);
  CHECK(s.chain.explored.graph.stateCount() == 4 * 27);
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
    CHECK(lumped.chain.explored.graph.stateCount() < full.chain.explored.graph.stateCount());
    CHECK(*lumped.symmetry.unlumpedTangible == double(full.chain.explored.graph.stateCount()));
    CHECK(testing::checkSameResults(lumped.results(), full.results()) > 10);
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

TEST_CASE("12 workers: 364 orbits of 2125764 markings and every number as the full chain has it" *
          doctest::test_suite("slow")) {
  const api::Model model = farmModel(12);
  api::Settings settings;
  settings.tolerance = 1e-13;
  settings.symmetry = true;
  const api::Solution lumped = api::solve(model, settings);
  settings.symmetry = false;
  const api::Solution full = api::solve(model, settings);
  CHECK(lumped.chain.explored.graph.stateCount() == 364);
  CHECK(full.chain.explored.graph.stateCount() == 2'125'764);
  CHECK(*lumped.symmetry.unlumpedTangible == 2'125'764);
  CHECK(*lumped.symmetry.log10UnlumpedTangible == doctest::Approx(std::log10(2'125'764.0)));
  testing::checkSameResults(lumped.results(), full.results());
}

TEST_CASE("auto goes on past an answer whose residual converged but not its error (farm of 512)" *
          doctest::test_suite("slow")) {
  // Gauss-Seidel without extrapolation reaches the residual's tolerance on the lumped farm
  // of 512 workers with its error estimate some 0.06 and falling too slowly (the chain
  // mixes slowly); auto hands its iterate to IAD over the idle workers' levels. With
  // extrapolation (the default) Gauss-Seidel stalls first, and IAD finishes all the same.
  const api::Model model = farmModel(512);
  api::Settings settings;
  settings.extrapolate = false;
  const api::Solution plain = api::solve(model, settings);
  CAPTURE(plain.chain.steadyState.note);
  CHECK(plain.chain.steadyState.note.find("gauss-seidel reached the tolerance but its error "
                                          "estimate") != std::string::npos);
  settings.extrapolate = true;
  const api::Solution automatic = api::solve(model, settings);
  const std::string& note = automatic.chain.steadyState.note;
  CAPTURE(note);
  for (const api::Solution* s : {&plain, &automatic}) {
    CHECK(
        s->chain.steadyState.note.find("switched to iad over the levels of place W[1].idle summed "
                                       "over its 512 replicas") != std::string::npos);
    CHECK(s->chain.steadyState.imbalance <= settings.tolerance);
  }
  CHECK(note.find("along the slowest mode") != std::string::npos);
  // BiCGSTAB at a residual of 1e-13 agrees to the accuracy a residual of 1e-10 gives on
  // this slowly mixing chain (1.6e-6 on the throughput; docs/symmetry.md, "Cost and
  // limits").
  settings.method = solver::Method::BiCGSTAB;
  settings.tolerance = 1e-13;
  const api::Solution krylov = api::solve(model, settings);
  const nlohmann::ordered_json b = krylov.results();
  for (const api::Solution* s : {&plain, &automatic}) {
    const nlohmann::ordered_json a = s->results();
    for (const char* path : {"/application/throughput", "/processors/Host/utilization",
                             "/processors/P[7]/utilization", "/processors/P[7]/queue_length"}) {
      const double x = a[nlohmann::json::json_pointer(path)].get<double>();
      const double y = b[nlohmann::json::json_pointer(path)].get<double>();
      CHECK_MESSAGE(std::abs(x - y) <= 1e-5 * std::abs(y), path << ": " << x << " against " << y);
    }
  }
}

TEST_CASE("an unlumped count past a double's range is reported by its log10") {
  // 1,000 interchangeable blocks of three places; one orbit: 333 blocks in each of the
  // first two local states and 334 in the third, 1000! / (333! 333! 334!) ≈ 10^474
  // markings.
  gspn::NetBuilder b("blocks");
  gspn::SymmetryFactor factor;
  factor.label = "B";
  for (int k = 0; k < 1000; ++k) {
    std::vector<gspn::PlaceId> block;
    for (const char* part : {"x", "y", "z"}) block.push_back(b.addPlace(part + std::to_string(k)));
    factor.places.push_back(block);
    factor.transitions.emplace_back();
  }
  const gspn::Net net = b.freeze();
  const gspn::Symmetry group(net, {factor});
  std::vector<gspn::Tokens> m(net.placeCount(), 0);
  for (int k = 0; k < 1000; ++k) m[std::size_t(3 * k + (k < 333 ? 0 : k < 666 ? 1 : 2))] = 1;
  gspn::PackedMarkingStore store(net.placeCount(), &group);
  std::vector<gspn::Tokens> key;
  group.key(m, key);
  store.insert(key);
  api::SymmetryReport report;
  api::countUnlumped(store, group, report);
  auto log10Factorial = [](double n) { return std::lgamma(n + 1) / std::log(10.0); };
  const double expected = log10Factorial(1000) - 2 * log10Factorial(333) - log10Factorial(334);
  CHECK(expected > 400);
  CHECK(std::isinf(*report.unlumpedTangible));
  CHECK(*report.log10UnlumpedTangible == doctest::Approx(expected).epsilon(1e-12));
  CHECK(report.json()["unlumped_tangible"].is_null());
  CHECK(report.json()["log10_unlumped_tangible"].get<double>() == *report.log10UnlumpedTangible);
}

namespace {

/// The throughput of transition `name` in a raw net's results.
double throughput(const api::Solution& s, const std::string& name) {
  for (const auto& [transition, x] : s.values.throughput)
    if (transition == name) return x;
  FAIL("no transition " << name);
  return 0;
}

/// k machines that fail at rate λ and wait for one of c repairmen, who repair at rate μ;
/// machine `odd` (if any) fails at rate 2λ.
std::string repairmanNet(int k, int c, double lambda, double mu, int odd = -1) {
  std::string text = "place free = " + std::to_string(c) + ";\n";
  for (int i = 0; i < k; ++i) {
    const std::string n = std::to_string(i);
    text += "place up" + n + " = 1; place down" + n + "; place rep" + n + ";\n";
    text += "timed fail" + n + " rate " + std::to_string(i == odd ? 2 * lambda : lambda) +
            " in up" + n + " out down" + n + ";\n";
    text += "immediate start" + n + " in down" + n + ", free out rep" + n + ";\n";
    text += "timed repair" + n + " rate " + std::to_string(mu) + " in rep" + n + " out up" + n +
            ", free;\n";
  }
  return text;
}

}  // namespace

TEST_CASE("a raw net of identical machines is lumped with no hints, as M/M/c//k says") {
  const int k = 7, c = 3;
  const double lambda = 0.4, mu = 1.1;
  const api::Model model = testing::loadModelText(repairmanNet(k, c, lambda, mu));
  const api::Solution lumped = solveWith(model, true);
  const api::Solution full = solveWith(model, false);
  REQUIRE(lumped.symmetry.used());
  REQUIRE(lumped.symmetry.lumped.size() == 1);
  CHECK(lumped.symmetry.lumped[0].blocks == std::size_t(k));
  CHECK(std::string(gspn::toString(lumped.symmetry.lumped[0].kind)) == "symmetric");
  CHECK(lumped.chain.explored.graph.stateCount() == std::size_t(k + 1));  // how many are broken
  CHECK(*lumped.symmetry.unlumpedTangible == double(full.chain.explored.graph.stateCount()));
  testing::checkSameResults(lumped.results(), full.results());
  // M/M/c//k (Kleinrock, Queueing Systems I, §3.8): p_n ∝ C(k, n) n! / (min(n, c)!
  // c^max(n − c, 0)) (λ/μ)^n; each machine's failures are λ P(up).
  std::vector<double> p(k + 1);
  double sum = 0, broken = 0;
  for (int n = 0; n <= k; ++n) {
    double x = std::pow(lambda / mu, n);
    for (int i = 0; i < n; ++i) x *= double(k - i) / double(std::min(i + 1, c));
    sum += p[std::size_t(n)] = x;
  }
  for (int n = 0; n <= k; ++n) broken += n * p[std::size_t(n)] / sum;
  for (int i = 0; i < k; ++i)
    CHECK(throughput(lumped, "fail" + std::to_string(i)) ==
          doctest::Approx(lambda * (k - broken) / k).epsilon(1e-12));
}

TEST_CASE("one machine that fails faster: the others are still lumped, and it alone is not") {
  const api::Model model = testing::loadModelText(repairmanNet(5, 2, 0.5, 1.5, 4));
  const api::Solution lumped = solveWith(model, true);
  const api::Solution full = solveWith(model, false);
  REQUIRE(lumped.symmetry.used());
  CHECK(lumped.symmetry.lumped[0].blocks == 4);
  CHECK(*lumped.symmetry.unlumpedTangible == double(full.chain.explored.graph.stateCount()));
  testing::checkSameResults(lumped.results(), full.results());
  CHECK(throughput(lumped, "fail4") != doctest::Approx(throughput(lumped, "fail0")));
}

TEST_CASE("a cyclic queue of identical stations is lumped by its rotations, as product form says") {
  // k single-server stations in a ring, N = k jobs: every distribution of the jobs is
  // equally likely, so each station is idle with probability C(N+k−2, k−2) / C(N+k−1, k−1)
  // and its throughput is μ N / (N + k − 1) (Gordon & Newell 1967).
  const int k = 6;
  const double mu = 2;
  std::string text;
  for (int i = 0; i < k; ++i) text += "place q" + std::to_string(i) + " = 1;\n";
  for (int i = 0; i < k; ++i)
    text += "timed s" + std::to_string(i) + " rate 2 in q" + std::to_string(i) + " out q" +
            std::to_string((i + 1) % k) + ";\n";
  const api::Model model = testing::loadModelText(text);
  const api::Solution lumped = solveWith(model, true);
  const api::Solution full = solveWith(model, false);
  REQUIRE(lumped.symmetry.used());
  CHECK(std::string(gspn::toString(lumped.symmetry.lumped[0].kind)) == "cyclic");
  CHECK(full.chain.explored.graph.stateCount() == 462);  // C(11, 5)
  CHECK(lumped.chain.explored.graph.stateCount() == 80);
  CHECK(*lumped.symmetry.unlumpedTangible == 462);
  testing::checkSameResults(lumped.results(), full.results());
  CHECK(throughput(lumped, "s3") == doctest::Approx(mu * k / (2.0 * k - 1)).epsilon(1e-12));
}

TEST_CASE("the classic benchmarks have no symmetry to lump: counts and values unchanged" *
          doctest::test_suite("slow")) {
  const std::string models = std::string(MMT_SOURCE_DIR) + "/tools/bench/models/";
  struct Case {
    const char *file, *parameter;
    double value;
    std::size_t states;
  };
  for (const Case& c : {Case{"kanban.gspn", "N", 2, 4600}, Case{"fms.gspn", "N", 2, 810},
                        Case{"tandem.gspn", "c", 15, 496}}) {
    CAPTURE(c.file);
    const api::Model model = api::loadModel(models + c.file, {{c.parameter, c.value}});
    const api::Solution s = solveWith(model, true);
    CHECK_FALSE(s.symmetry.used());
    CHECK(s.chain.explored.graph.stateCount() == c.states);
  }
}

TEST_CASE("the automorphism search stops at its budget of work, the same way every time") {
  // A ring of 3,000 stations, each with one job: nauty's search visits more nodes than the
  // budgets below allow (a graph of tens of thousands of vertices and edges: 1e5 is a few
  // nodes).
  std::string text;
  const int k = 3000;
  for (int i = 0; i < k; ++i) text += "place q" + std::to_string(i) + " = 1;";
  for (int i = 0; i < k; ++i)
    text += "timed s" + std::to_string(i) + " rate 1 in q" + std::to_string(i) + " out q" +
            std::to_string((i + 1) % k) + ";";
  const gspn::Net net = testing::loadGspnText(text);
  auto blocks = [](const gspn::FoundSymmetry& f) {
    std::vector<std::vector<std::vector<gspn::PlaceId>>> out;
    for (const gspn::SymmetryFactor& factor : f.factors) out.push_back(factor.places);
    return out;
  };
  for (const double work : {1.0, 3e4, 1e5}) {
    CAPTURE(work);
    gspn::AutomorphismSettings settings;
    settings.maxWork = work;
    settings.maxSeconds = 1e6;  // no time limit: the budget alone stops it
    const gspn::FoundSymmetry first = gspn::findSymmetry(net, settings);
    const gspn::FoundSymmetry second = gspn::findSymmetry(net, settings);
    CHECK(first.stopped);
    CHECK(second.stopped);
    CHECK(blocks(first) == blocks(second));
    CHECK(first.notes == second.notes);
    CHECK(first.log10GroupOrder == second.log10GroupOrder);
    for (const gspn::SymmetryFactor& f : first.factors)
      CHECK_FALSE(gspn::symmetryViolation(net, f));
  }
  // Within the default budget: the ring's rotations (its arcs have a direction).
  const gspn::FoundSymmetry whole = gspn::findSymmetry(net);
  CHECK_FALSE(whole.stopped);
  CHECK(whole.log10GroupOrder == doctest::Approx(std::log10(double(k))));
}
