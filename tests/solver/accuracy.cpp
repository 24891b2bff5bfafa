// Accuracy where the residual is blind: GTH against published and closed-form answers, a
// nearly completely decomposable chain for every method, and the differential test of
// every method on random nets with rates over 18 orders of magnitude against GTH in
// 50-digit arithmetic.
#include "solver/accuracy.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <iomanip>
#include <map>
#include <random>

#include "api/solve.hpp"
#include "gspn/net.hpp"
#include "gspn/reachability.hpp"
#include "solver/ctmc.hpp"
#include "solver/gth.hpp"
#include "solver/measures.hpp"
#include "solver/pipeline.hpp"
#include "solver/steady_state.hpp"

using namespace mmt;
using Wide = boost::multiprecision::cpp_bin_float_50;

namespace {

constexpr solver::Method kEveryMethod[] = {
    solver::Method::Auto,        solver::Method::GTH,   solver::Method::LU,
    solver::Method::GaussSeidel, solver::Method::SOR,   solver::Method::Power,
    solver::Method::BiCGSTAB,    solver::Method::GMRES, solver::Method::IAD};

struct Chain {
  gspn::TangibleReachabilityGraph graph;
  std::vector<std::uint32_t> states;
  solver::Generator q;
};

/// Explores `net`; false when it is not ergodic (the caller skips it).
bool explore(const gspn::Net& net, Chain& c) {
  auto explored = gspn::exploreTangible(net);
  REQUIRE_MESSAGE(explored.status == gspn::ExplorationResult::Status::Ok, explored.message);
  c.graph = std::move(explored.graph);
  const auto structure = solver::analyzeStructure(net, c.graph);
  if (structure.kind != solver::ChainStructure::Kind::Ergodic) return false;
  c.states = structure.recurrent;
  c.q = solver::buildGenerator(c.graph, c.states);
  return true;
}

/// π by GTH in 50-digit arithmetic, rounded to double: the reference solution.
Eigen::VectorXd widePi(const solver::Generator& q) {
  const std::size_t n = q.size();
  std::vector<Wide> rates(n * n, Wide(0));
  for (std::size_t j = 0; j < n; ++j)
    for (int k = q.offset[j]; k < q.offset[j + 1]; ++k)
      rates[std::size_t(q.source(k)) * n + j] += Wide(q.rate(k));
  const std::vector<Wide> pi = solver::gthSteadyState(rates, n);
  Eigen::VectorXd out(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) out[Eigen::Index(i)] = static_cast<double>(pi[i]);
  return out;
}

/// Solves c's chain with method m, the places of `net` giving IAD its levels.
solver::SteadyStateResult solveWith(const gspn::Net& net, const Chain& c, solver::Method m) {
  const solver::MarkingLevels levels(net, c.graph, c.states);
  const solver::Generator& q = c.q;
  solver::SteadyStateSettings s;
  s.levels = &levels;
  s.method = m;
  s.maxIterations = 20'000;
  return solver::solveSteadyState(q, s);
}

/// The nearly completely decomposable part of the net: A <-> B and C <-> D at
/// 1e12, A -> C at 1, C -> A at 2 (one token, in A). Returns A and B, whose total is 2/3.
std::pair<gspn::PlaceId, gspn::PlaceId> addFastPairs(gspn::NetBuilder& b) {
  auto A = b.addPlace("A", 1), B = b.addPlace("B"), C = b.addPlace("C"), D = b.addPlace("D");
  auto move = [&](const char* name, gspn::PlaceId from, gspn::PlaceId to, double rate) {
    auto t = b.addTimed(name, rate);
    b.addInput(t, from);
    b.addOutput(t, to);
  };
  move("ab", A, B, 1e12);
  move("ba", B, A, 1e12);
  move("cd", C, D, 1e12);
  move("dc", D, C, 1e12);
  move("ac", A, C, 1);
  move("ca", C, A, 2);
  return {A, B};
}

}  // namespace

TEST_CASE("GTH gives Molloy's published distribution") {
  // SPNP manual: five tangible markings p0, p1+p2, p2+p3, p1+p4, p3+p4.
  const std::size_t n = 5;
  std::vector<double> q(n * n, 0.0);
  auto rate = [&](int i, int j, double r) { q[std::size_t(i) * n + std::size_t(j)] += r; };
  rate(0, 1, 1);  // t0
  rate(1, 2, 3);  // t1: p1 → p3
  rate(1, 3, 7);  // t2: p2 → p4
  rate(2, 1, 9);  // t3: p3 → p1
  rate(2, 4, 7);  // t2
  rate(3, 4, 3);  // t1
  rate(4, 3, 9);  // t3
  rate(4, 0, 5);  // t4
  const std::vector<double> pi = solver::gthSteadyState(q, n);
  const double published[] = {0.4497294860, 0.0541027953, 0.0101442741, 0.3960775473, 0.0899458972};
  for (std::size_t i = 0; i < n; ++i) CHECK(pi[i] == doctest::Approx(published[i]).epsilon(1e-9));
}

TEST_CASE("GTH refuses a chain that is not irreducible") {
  std::vector<double> q = {0, 1, 0, 0};  // 0 → 1, and 1 never leaves
  CHECK_THROWS_AS(solver::gthSteadyState(q, 2), std::domain_error);
}

TEST_CASE("the NCD partitions and the coupling matrix of two fast pairs joined by slow rates") {
  // A <-> B and C <-> D at 1e12, A -> C at 1, C -> A at 2: exactly P(A or B) = 2/3.
  gspn::NetBuilder b("ncd");
  const auto [A, B] = addFastPairs(b);
  gspn::Net net = b.freeze();
  Chain c;
  REQUIRE(explore(net, c));
  REQUIRE(c.q.size() == 4);
  const auto partitions = solver::nearlyDecomposablePartitions(c.q);
  REQUIRE(partitions.size() == 1);  // 1e-2 … 1e-12 all give {A, B}, {C, D}
  CHECK(partitions[0].blockCount == 2);
  // A wrong vector with a residual of 1e-12 but the blocks' masses at ½ each.
  Eigen::VectorXd wrong = Eigen::VectorXd::Constant(4, 0.25);
  CHECK(solver::relativeResidual(c.q, wrong) < 1e-11);
  const auto imbalance = solver::flowImbalance(c.q, wrong, partitions);
  CHECK(imbalance.partition == 0);
  CHECK(imbalance.error == doctest::Approx(0.5));  // |in − out| / max(in, out) = (0.5 − 0.25) / 0.5
  Eigen::VectorXd phi;
  const solver::Generator coupling = solver::couplingMatrix(c.q, partitions[0], wrong, phi);
  REQUIRE(coupling.size() == 2);
  // From each block, its rate out: φ_A · 1 = ½ and φ_C · 2 = 1.
  CHECK(coupling.exitRate[0] + coupling.exitRate[1] == doctest::Approx(1.5));
  // Every method answers this chain (stiff to 1e12) but IAD, whose places' levels all
  // couple strongly here: it refuses rather than answer wrongly.
  std::vector<std::string> refused;
  for (solver::Method m : kEveryMethod) {
    CAPTURE(solver::toString(m));
    const auto r = solveWith(net, c, m);
    if (r.status != solver::Status::Converged) {
      refused.push_back(solver::toString(m));
      continue;
    }
    solver::SteadyStateMeasures measures(net, c.graph, c.states, r.pi);
    CHECK(measures.meanTokens(A) + measures.meanTokens(B) ==
          doctest::Approx(2.0 / 3).epsilon(1e-9));
  }
  CHECK(grammar::join(refused) == "iad");
}

TEST_CASE("the NCD net with an independent 301-state part: every method gives 2/3") {
  gspn::NetBuilder b("ncd_product");
  const auto [A, B] = addFastPairs(b);
  auto Y = b.addPlace("Y", 300), Z = b.addPlace("Z");
  auto move = [&](const char* name, gspn::PlaceId from, gspn::PlaceId to, double rate) {
    auto t = b.addTimed(name, rate);
    b.addInput(t, from);
    b.addOutput(t, to);
  };
  move("yz", Y, Z, 1);
  move("zy", Z, Y, 1);
  gspn::Net net = b.freeze();
  Chain c;
  REQUIRE(explore(net, c));
  REQUIRE(c.q.size() == 4 * 301);
  std::size_t solved = 0;
  for (solver::Method m : kEveryMethod) {
    CAPTURE(solver::toString(m));
    const auto r = solveWith(net, c, m);
    if (r.status != solver::Status::Converged) continue;
    ++solved;
    solver::SteadyStateMeasures measures(net, c.graph, c.states, r.pi);
    CHECK(measures.meanTokens(A) + measures.meanTokens(B) ==
          doctest::Approx(2.0 / 3).epsilon(1e-9));
    CHECK(measures.meanTokens(Z) == doctest::Approx(150).epsilon(1e-9));
    CHECK(r.imbalance <= 1e-8);
  }
  CHECK(solved == std::size(kEveryMethod));
}

TEST_CASE(
    "differential: every method on random nets with rates from 1e-9 to 1e9 against 50-digit GTH") {
  std::mt19937_64 random(20261123);
  auto uniform = [&](int lo, int hi) {  // integers in [lo, hi]
    return lo + static_cast<int>(random() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  auto logRate = [&] {  // 10^u, u uniform in [−9, 9]
    return std::pow(10.0, -9.0 + 18.0 * double(random() >> 11) * 0x1.0p-53);
  };
  const int nets = 300;
  int ergodic = 0, checked = 0;
  std::map<std::string, int> refused;
  for (int k = 0; k < nets; ++k) {
    // Token-conserving transitions (bounded by construction): moves of one token, and
    // synchronisations of two tokens, some with an inhibitor arc.
    gspn::NetBuilder nb("random" + std::to_string(k));
    const int places = uniform(3, 5), transitions = uniform(places, 2 * places + 2);
    std::vector<std::uint32_t> tokens(std::size_t(places), 0);
    for (int t = uniform(1, 3); t > 0; --t) ++tokens[std::size_t(uniform(0, places - 1))];
    std::vector<gspn::PlaceId> p;
    for (int i = 0; i < places; ++i)
      p.push_back(nb.addPlace("p" + std::to_string(i), tokens[std::size_t(i)]));
    for (int t = 0; t < transitions; ++t) {
      auto tr = nb.addTimed("t" + std::to_string(t), logRate());
      const int from = uniform(0, places - 1);
      const int to = (from + uniform(1, places - 1)) % places;
      if (random() % 4 == 0) {
        const int from2 = uniform(0, places - 1), to2 = uniform(0, places - 1);
        nb.addInput(tr, p[std::size_t(from)]);
        nb.addInput(tr, p[std::size_t(from2)]);
        nb.addOutput(tr, p[std::size_t(to)]);
        nb.addOutput(tr, p[std::size_t(to2)]);
      } else {
        nb.addInput(tr, p[std::size_t(from)]);
        nb.addOutput(tr, p[std::size_t(to)]);
      }
      if (random() % 5 == 0) nb.addInhibitor(tr, p[std::size_t(uniform(0, places - 1))], 2);
    }
    gspn::Net net = nb.freeze();
    Chain c;
    if (!explore(net, c) || c.q.size() < 2) continue;
    ++ergodic;
    CAPTURE(k);
    CAPTURE(c.q.size());
    const Eigen::VectorXd reference = widePi(c.q);
    solver::SteadyStateMeasures exact(net, c.graph, c.states, reference);
    double maxThroughput = 0;
    for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t)
      maxThroughput = std::max(maxThroughput, exact.throughput(t));
    double totalTokens = 0;
    for (gspn::PlaceId q = 0; q < net.placeCount(); ++q) totalTokens += exact.meanTokens(q);
    for (solver::Method m : kEveryMethod) {
      CAPTURE(solver::toString(m));
      const auto r = solveWith(net, c, m);
      if (r.status != solver::Status::Converged) {
        if (m == solver::Method::Auto) MESSAGE("auto refused net " << k << ": " << r.note);
        ++refused[solver::toString(m)];
        continue;
      }
      ++checked;
      CAPTURE(r.imbalance);
      CAPTURE(r.note);
      solver::SteadyStateMeasures got(net, c.graph, c.states, r.pi);
      // Six significant digits, on the scale of the net's largest value of the same kind.
      for (gspn::PlaceId q = 0; q < net.placeCount(); ++q) {
        CAPTURE(net.place(q).name);
        CHECK(std::abs(got.meanTokens(q) - exact.meanTokens(q)) <=
              1e-6 * exact.meanTokens(q) + 1e-9 * totalTokens);
      }
      for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t) {
        CAPTURE(net.transition(t).name);
        CHECK(std::abs(got.throughput(t) - exact.throughput(t)) <=
              1e-6 * exact.throughput(t) + 1e-9 * maxThroughput);
      }
    }
  }
  MESSAGE("ergodic random nets: " << ergodic << " of " << nets << ", results checked: " << checked);
  for (const auto& [method, count] : refused) MESSAGE(method << " refused " << count);
  CHECK(ergodic >= nets / 3);
  // Auto, the direct methods and GMRES solve every one of them accurately; each other
  // method answers at least as often as it does at this seed (300 nets, 120 ergodic:
  // Gauss–Seidel and SOR refuse 2, BiCGSTAB 17, the power method 55, IAD all but one,
  // since random nets seldom have levels that couple weakly), with some room.
  for (const char* method : {"auto", "gth", "lu", "gmres"}) CHECK(refused.count(method) == 0);
  const std::map<std::string, int> allowed = {
      {"gauss-seidel", 5}, {"sor", 5}, {"bicgstab", 25}, {"power", 65}, {"iad", ergodic}};
  for (const auto& entry : refused) {
    const std::string& method = entry.first;  // a plain name: CAPTURE cannot take a binding
    CAPTURE(method);
    REQUIRE(allowed.count(method) == 1);
    CHECK(entry.second <= allowed.at(method));
  }
  CHECK(checked >= 8 * ergodic - 100);
}

TEST_CASE("IAD's levels over every state, without a list, are those over the list") {
  // A closed cycle of three queues with 7 jobs (36 states, every one recurrent), each
  // place's levels 0 to 7.
  gspn::NetBuilder b;
  auto idle = b.addPlace("idle", 7), queue1 = b.addPlace("queue1"), queue2 = b.addPlace("queue2");
  auto move = [&](const char* name, gspn::PlaceId from, gspn::PlaceId to, double rate) {
    auto t = b.addTimed(name, rate);
    b.addInput(t, from);
    b.addOutput(t, to);
  };
  move("arrive", idle, queue1, 3.0);
  move("serve1", queue1, queue2, 2.0);
  move("serve2", queue2, idle, 1.5);
  const gspn::Net net = b.freeze();
  Chain c;
  REQUIRE(explore(net, c));
  REQUIRE(c.states.size() == c.graph.stateCount());
  const solver::MarkingLevels listed(net, c.graph, c.states), listless(net, c.graph);
  CHECK(listless.spans() == listed.spans());
  for (std::size_t p = 0; p < net.placeCount(); ++p) {
    CAPTURE(p);
    CHECK(listless.placeName(p) == listed.placeName(p));
    const solver::BlockPartition a = listed.levels(p), b2 = listless.levels(p);
    CHECK(a.blockCount == b2.blockCount);
    CHECK(a.blockOf == b2.blockOf);
  }
  REQUIRE(c.states.size() == 36);
  CHECK(listed.levels(std::size_t(queue1)).blockCount == 8);  // 0 to 7 jobs
}

TEST_CASE("differential: IAD on random nets of a few hundred states against GTH") {
  // Larger nets than above (so that the places have levels of 8 states or more), with
  // rates from 1e-3 to 1e3; GTH in double precision is the reference (subtraction-free,
  // accurate to rounding on any chain of this size).
  std::mt19937_64 random(1984);
  auto uniform = [&](int lo, int hi) {
    return lo + static_cast<int>(random() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  auto logRate = [&] { return std::pow(10.0, -3.0 + 6.0 * double(random() >> 11) * 0x1.0p-53); };
  int solved = 0;
  for (int k = 0; k < 60; ++k) {
    gspn::NetBuilder nb("random" + std::to_string(k));
    const int places = uniform(4, 5);
    std::vector<gspn::PlaceId> p;
    for (int i = 0; i < places; ++i)
      p.push_back(nb.addPlace("p" + std::to_string(i), i == 0 ? 8 : 0));
    for (int t = 0; t < 2 * places; ++t) {
      auto tr = nb.addTimed("t" + std::to_string(t), logRate());
      const int from = t < places ? t : uniform(0, places - 1);
      const int to = t < places ? (t + 1) % places : (from + uniform(1, places - 1)) % places;
      nb.addInput(tr, p[std::size_t(from)]);
      nb.addOutput(tr, p[std::size_t(to)]);
    }
    gspn::Net net = nb.freeze();
    Chain c;
    if (!explore(net, c)) continue;
    CAPTURE(k);
    const Eigen::VectorXd reference = solver::gthSolve(c.q);
    const auto r = solveWith(net, c, solver::Method::IAD);
    if (r.status != solver::Status::Converged) continue;
    ++solved;
    CAPTURE(r.note);
    CHECK((r.pi - reference).cwiseAbs().maxCoeff() <= 1e-8);
  }
  MESSAGE("IAD solved " << solved << " of 60 random nets");
  CHECK(solved >= 20);
}

TEST_CASE("extrapolation along the slowest mode: a closed cycle of three queues against MVA") {
  // N jobs cycling through three single-server stations at rates 1, 1.1 and 1.2: the
  // sweeps' error shrinks by a steady ratio, so they extrapolate. The mean queue lengths
  // are exact by mean value analysis (Reiser and Lavenberg, "Mean-value analysis of
  // closed multichain queuing networks", JACM 27(2), 1980): R_i(n) = (1 + Q_i(n − 1)) /
  // μ_i, X(n) = n / Σ R_i(n), Q_i(n) = X(n) R_i(n).
  const int jobs = 60;
  const double mu[3] = {1.0, 1.1, 1.2};
  gspn::NetBuilder b("cycle");
  gspn::PlaceId station[3];
  for (int i = 0; i < 3; ++i) station[i] = b.addPlace("s" + std::to_string(i), i == 0 ? jobs : 0);
  for (int i = 0; i < 3; ++i) {
    auto t = b.addTimed("serve" + std::to_string(i), mu[i]);
    b.addInput(t, station[i]);
    b.addOutput(t, station[(i + 1) % 3]);
  }
  gspn::Net net = b.freeze();
  Chain c;
  REQUIRE(explore(net, c));
  REQUIRE(c.q.size() == (jobs + 1) * (jobs + 2) / 2);
  double queue[3] = {0, 0, 0};
  for (int n = 1; n <= jobs; ++n) {
    double response[3], total = 0;
    for (int i = 0; i < 3; ++i) total += response[i] = (1 + queue[i]) / mu[i];
    for (int i = 0; i < 3; ++i) queue[i] = n / total * response[i];
  }
  for (solver::Method m : {solver::Method::GaussSeidel, solver::Method::SOR}) {
    CAPTURE(solver::toString(m));
    solver::SteadyStateSettings s;
    s.method = m;
    s.tolerance = 1e-13;
    const auto result = solver::solveSteadyState(c.q, s);
    CAPTURE(result.note);
    REQUIRE(result.status == solver::Status::Converged);
    CHECK(result.note.find("along the slowest mode") != std::string::npos);
    solver::SteadyStateMeasures measures(net, c.graph, c.states, result.pi);
    // At this tolerance the sweeps are 1.4e-9 off, with or without extrapolating.
    for (int i = 0; i < 3; ++i)
      CHECK(measures.meanTokens(station[i]) == doctest::Approx(queue[i]).epsilon(1e-8));
  }
}

TEST_CASE("correction rounds are sized from the last round's rate of decay") {
  // 1.4e-9 → 3e-10 in 10 sweeps: (3/14)^(1/10) a sweep; reaching 1e-10 from 3e-10 takes
  // 10 ln(1/3) / ln(3/14) = 7.13 sweeps, 8.91 with a quarter more: 9.
  CHECK(solver::correctionSweeps(1.4e-9, 3e-10, 10, 1e-10, 10) == 9);
  // A factor 7 in 10 sweeps, from 2e-10 to 1e-10: 3.56 sweeps, 4.45 with the margin: 5.
  CHECK(solver::correctionSweeps(1.4e-9, 2e-10, 10, 1e-10, 10) == 5);
  // Fast decay: at least 2. Slow decay: at most `most`.
  CHECK(solver::correctionSweeps(1e-6, 1.01e-10, 10, 1e-10, 10) == 2);
  CHECK(solver::correctionSweeps(1e-9, 9e-10, 10, 1e-10, 10) == 10);
  // Not falling, or already at the target: a whole round.
  CHECK(solver::correctionSweeps(1e-9, 2e-9, 10, 1e-10, 10) == 10);
  CHECK(solver::correctionSweeps(1e-9, 1e-9, 10, 1e-10, 10) == 10);
  CHECK(solver::correctionSweeps(1e-9, 5e-11, 10, 1e-10, 10) == 10);
  CHECK(solver::correctionSweeps(1e-9, 0, 10, 1e-10, 10) == 10);
  CHECK(solver::correctionSweeps(std::nan(""), 1e-10, 10, 1e-11, 10) == 10);
}

TEST_CASE("an imbalance at a state is named by the number the caller gives it") {
  solver::FlowImbalance at;
  at.where = 7;
  CHECK(at.describe({}) == "state 7");
  const solver::StateNumber graphId = [](std::size_t i) { return std::uint64_t(1000 + 3 * i); };
  CHECK(at.describe({}, &graphId) == "state 1021");
}

TEST_CASE("Auto solves a birth-death chain whose probabilities span 540 decades") {
  // The machine repairman, N = 3,072 machines failing at rate 1, 1,024 repairers of rate 2:
  // Gauss-Seidel stalls and the Krylov methods overflow; Auto's last resort, sparse LU,
  // must give the product form π_k ∝ Π_{i<k} (N − i) / (2 min(i + 1, c)), summed in
  // logarithms.
  const int n = 3072, c = 1024;
  gspn::NetBuilder b("repairman");
  const auto up = b.addPlace("up", n), down = b.addPlace("down");
  const auto fail = b.addTimed("fail", 1, {}, gspn::ServerSemantics::Infinite);
  b.addInput(fail, up);
  b.addOutput(fail, down);
  const auto repair = b.addTimed("repair", 2, {}, gspn::ServerSemantics::KServer, c);
  b.addInput(repair, down);
  b.addOutput(repair, up);
  const gspn::Net net = b.freeze();
  Chain chain;
  REQUIRE(explore(net, chain));
  const solver::SteadyStateResult r = solveWith(net, chain, solver::Method::Auto);
  REQUIRE(r.status == solver::Status::Converged);
  CHECK(solver::toString(r.method) == "lu");
  std::vector<double> logPi(n + 1, 0.0);
  for (int k = 1; k <= n; ++k)
    logPi[k] = logPi[k - 1] + std::log(double(n - k + 1)) - std::log(2.0 * std::min(k, c));
  const double top = *std::max_element(logPi.begin(), logPi.end());
  double mass = 0, meanDown = 0;
  for (int k = 0; k <= n; ++k) {
    mass += std::exp(logPi[k] - top);
    meanDown += k * std::exp(logPi[k] - top);
  }
  double solved = 0;
  for (std::size_t s = 0; s < chain.states.size(); ++s)
    solved += r.pi[Eigen::Index(s)] * chain.graph.markings.decode(chain.states[s])[down];
  CHECK(solved == doctest::Approx(meanDown / mass).epsilon(1e-9));
}

TEST_CASE("at the default tolerance every throughput is within 1e-9 of a solve to 1e-14" *
          doctest::test_suite("slow")) {
  // The residual alone stopped Kanban N = 4 with throughputs 1.4e-8 off; the error
  // estimate of Gauss-Seidel and SOR holds them to the tolerance's tenfold.
  for (const auto& chain : {std::pair{"kanban", 4}, std::pair{"fms", 4}}) {
    const std::string file = chain.first;
    const int n = chain.second;
    CAPTURE(file);
    const api::Model model = api::loadModel(
        std::string(MMT_SOURCE_DIR) + "/tools/bench/models/" + file + ".gspn", {{"N", n}});
    const api::Solution fine = api::solve(model, [] {
      api::Settings s;
      s.tolerance = 1e-14;
      return s;
    }());
    const api::Solution at = api::solve(model);
    CHECK(at.chain.steadyState.errorEstimate > 0);
    CHECK(at.chain.steadyState.errorEstimate <= 1e-9);
    for (std::size_t t = 0; t < at.values.throughput.size(); ++t) {
      CAPTURE(at.values.throughput[t].first);
      const double exact = fine.values.throughput[t].second;
      CHECK(std::abs(at.values.throughput[t].second - exact) <= 1e-9 * exact);
    }
  }
}
