// Exploration on orbits (gspn/symmetry.hpp, docs/symmetry.md): the lumped chain of a net
// with interchangeable blocks against the full chain and against closed forms. Orbits ×
// orbit sizes must give the full count, and every measure, also one that names one
// replica, the full chain's value.
#include "gspn/symmetry.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "gspn/marking_store.hpp"
#include "gspn/measure_source.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

/// A steady-state solution with or without a symmetry: the graph, and the measures of the
/// whole chain (averaged over the group when lumped).
struct Solution {
  std::unique_ptr<solver::SolvedNet> solved;
  std::optional<gspn::SymmetricMeasures> symmetric;
  const gspn::MeasureSource& measures() const {
    if (symmetric) return *symmetric;
    return *solved->measures;
  }
  std::size_t states() const { return solved->solution.explored.graph.stateCount(); }
};

Solution solveWith(const gspn::Net& net, const gspn::Symmetry* group) {
  gspn::ExplorationSettings exploration;
  exploration.symmetry = group;
  solver::SteadyStateSettings settings;
  settings.method = solver::Method::LU;
  settings.tolerance = 1e-13;
  Solution out{solver::solveNet(net, {.exploration = exploration, .steadyState = settings}),
               std::nullopt};
  REQUIRE_MESSAGE(out.solved->stage == solver::SolvedNet::Stage::Ok, out.solved->message());
  if (group) out.symmetric.emplace(*out.solved->measures, group);
  return out;
}

/// Σ over the lumped graph's markings of their orbit sizes.
double orbitTotal(const Solution& s, const gspn::Symmetry& group) {
  const gspn::TangibleReachabilityGraph& g = s.solved->solution.explored.graph;
  double total = 0;
  for (std::size_t i = 0; i < g.stateCount(); ++i) total += group.orbitSize(g.marking(i));
  return total;
}

/// Every place's mean tokens, every transition's throughput and every user measure agree.
void checkSameMeasures(const gspn::Net& net, const Solution& lumped, const Solution& full) {
  auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b) + 1e-13; };
  for (gspn::PlaceId p = 0; p < net.placeCount(); ++p)
    CHECK_MESSAGE(close(lumped.measures().meanTokens(p), full.measures().meanTokens(p)),
                  net.place(p).name);
  for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t)
    CHECK_MESSAGE(close(lumped.measures().throughput(t), full.measures().throughput(t)),
                  net.transition(t).name);
  const auto a = gspn::evaluateMeasures(net, lumped.measures());
  const auto b = gspn::evaluateMeasures(net, full.measures());
  for (std::size_t i = 0; i < a.size(); ++i)
    CHECK_MESSAGE(close(a[i], b[i]), net.measures()[i].name);
}

/// The blocks of places and transitions named `prefix` + i + `suffix` for i < k, each
/// block's elements in the order of `places` and `transitions`.
gspn::SymmetryFactor blocks(const gspn::Net& net, gspn::SymmetryFactor::Kind kind, int k,
                            const std::vector<std::string>& places,
                            const std::vector<std::string>& transitions) {
  gspn::SymmetryFactor f;
  f.kind = kind;
  f.label = places.front();
  for (int i = 0; i < k; ++i) {
    f.places.emplace_back();
    f.transitions.emplace_back();
    for (const std::string& p : places)
      f.places.back().push_back(*net.findPlace(p + std::to_string(i)));
    for (const std::string& t : transitions)
      f.transitions.back().push_back(*net.findTransition(t + std::to_string(i)));
  }
  return f;
}

/// k machines that fail at rate λ and wait for one of c repairmen, who repair at rate μ.
std::string repairman(int k, int c, double lambda, double mu, const std::string& extra = "") {
  std::string text = "place free = " + std::to_string(c) + ";\n";
  for (int i = 0; i < k; ++i) {
    const std::string n = std::to_string(i);
    text += "place up" + n + " = 1; place down" + n + "; place rep" + n + ";\n";
    text += "timed fail" + n + " rate " + std::to_string(lambda) + " in up" + n + " out down" + n +
            ";\n";
    text += "immediate start" + n + " in down" + n + ", free out rep" + n + ";\n";
    text += "timed repair" + n + " rate " + std::to_string(mu) + " in rep" + n + " out up" + n +
            ", free;\n";
  }
  return text + extra;
}

/// The machine-repairman model's distribution of broken machines, M/M/c//k: p_n ∝
/// C(k, n) n! / (min(n, c)! c^max(n − c, 0)) (λ/μ)^n (Kleinrock, Queueing Systems I, §3.8).
std::vector<double> repairmanDistribution(int k, int c, double lambda, double mu) {
  std::vector<double> p(std::size_t(k) + 1);
  double sum = 0;
  for (int n = 0; n <= k; ++n) {
    double x = std::pow(lambda / mu, n);
    for (int i = 0; i < n; ++i) x *= double(k - i) / double(std::min(i + 1, c));
    p[std::size_t(n)] = x;
    sum += x;
  }
  for (double& x : p) x /= sum;
  return p;
}

}  // namespace

TEST_CASE("identical machines and repairmen: the lumped chain against the full one and M/M/c//k") {
  const int k = 6, c = 2;
  const double lambda = 0.7, mu = 1.9;
  // A measure that names one machine, and one that reads two machines at once.
  const gspn::Net net = testing::loadGspnText(repairman(
      k, c, lambda, mu,
      "measure one = prob(#down0 + #rep0 > 0); measure two = prob(#up0 > 0 && #up1 == 0);"));
  const gspn::Symmetry group(net, {blocks(net, gspn::SymmetryFactor::Kind::Symmetric, k,
                                          {"up", "down", "rep"}, {"fail", "start", "repair"})});
  CHECK_FALSE(gspn::symmetryViolation(net, group.factors()[0]));
  const Solution full = solveWith(net, nullptr);
  const Solution lumped = solveWith(net, &group);
  // No machine waits while a repairman is free: with n broken, min(n, 2) are in repair,
  // which ones telling markings apart: Σ_n C(6, n) · (n ≤ 2 ? 1 : C(n, 2)) = 247. Lumped,
  // only n counts: 7.
  CHECK(full.states() == 1 + 6 + 15 + 20 * 3 + 15 * 6 + 6 * 10 + 1 * 15);
  CHECK(lumped.states() == 7);
  CHECK(orbitTotal(lumped, group) == double(full.states()));
  checkSameMeasures(net, lumped, full);
  // The closed form: the mean number broken, and the throughput of repairs.
  const std::vector<double> p = repairmanDistribution(k, c, lambda, mu);
  double broken = 0;
  for (int n = 0; n <= k; ++n) broken += n * p[std::size_t(n)];
  double down = 0;
  for (int i = 0; i < k; ++i) {
    const std::string n = std::to_string(i);
    down += lumped.measures().meanTokens(*net.findPlace("down" + n)) +
            lumped.measures().meanTokens(*net.findPlace("rep" + n));
  }
  CHECK(down == doctest::Approx(broken).epsilon(1e-12));
  CHECK(lumped.measures().throughput(*net.findTransition("repair3")) ==
        doctest::Approx(lambda * (k - broken) / k).epsilon(1e-12));
}

TEST_CASE("a ring of identical stations lumped by its rotations") {
  // A server visits k stations in turn; each station holds one customer at most, who
  // arrives at rate 1 and is served at rate 3; an empty station is passed at rate 10.
  const int k = 5;
  std::string text;
  for (int i = 0; i < k; ++i) {
    const std::string n = std::to_string(i), next = std::to_string((i + 1) % k);
    text += "place idle" + n + " = 1; place waiting" + n + "; place at" + n +
            (i == 0 ? " = 1" : "") + ";\n";
    text += "timed arrive" + n + " rate 1 in idle" + n + " out waiting" + n + ";\n";
    text += "timed serve" + n + " rate 3 in at" + n + ", waiting" + n + " out at" + next +
            ", idle" + n + ";\n";
    text +=
        "timed pass" + n + " rate 10 in at" + n + " out at" + next + " inhibit waiting" + n + ";\n";
  }
  text += "measure next_waits = prob(#at0 > 0 && #waiting1 > 0);";
  const gspn::Net net = testing::loadGspnText(text);
  const gspn::SymmetryFactor rotations =
      blocks(net, gspn::SymmetryFactor::Kind::Cyclic, k, {"idle", "waiting", "at"},
             {"arrive", "serve", "pass"});
  // The server starts at station 0: the net is symmetric, its start is not; the steady
  // state of its one recurrent class is.
  CHECK(gspn::symmetryViolation(net, rotations)->find("initial marking") != std::string::npos);
  CHECK_FALSE(gspn::symmetryViolation(net, rotations, /*initialMarking=*/false));
  // Not dihedral: a reflection reverses the server's direction.
  gspn::SymmetryFactor reflections = rotations;
  reflections.kind = gspn::SymmetryFactor::Kind::Dihedral;
  CHECK(gspn::symmetryViolation(net, reflections, false));
  const gspn::Symmetry group(net, {rotations});
  const Solution full = solveWith(net, nullptr);
  const Solution lumped = solveWith(net, &group);
  CHECK(full.states() == std::size_t(k) << k);  // the server's station × each waiting or not
  CHECK(orbitTotal(lumped, group) == double(full.states()));
  CHECK(lumped.states() * k == full.states());  // no marking is fixed by a rotation
  checkSameMeasures(net, lumped, full);
}

TEST_CASE("two independent families of replicas: a direct product of two symmetric groups") {
  // Three fast and four slow clients share one server.
  std::string text = "place server = 1;\n";
  for (const auto& [kind, count, think, serve] :
       {std::tuple{"f", 3, "2", "5"}, std::tuple{"s", 4, "0.5", "1"}}) {
    for (int i = 0; i < count; ++i) {
      const std::string n = std::string(kind) + std::to_string(i);
      text += "place think" + n + " = 1; place queue" + n + "; place served" + n + ";\n";
      text += "timed go" + n + " rate " + think + " in think" + n + " out queue" + n + ";\n";
      text += "immediate take" + n + " in queue" + n + ", server out served" + n + ";\n";
      text +=
          "timed done" + n + " rate " + serve + " in served" + n + " out think" + n + ", server;\n";
    }
  }
  text += "measure both = mean(#queuef0 * #queues2);";
  const gspn::Net net = testing::loadGspnText(text);
  const gspn::SymmetryFactor fast =
      blocks(net, gspn::SymmetryFactor::Kind::Symmetric, 3, {"thinkf", "queuef", "servedf"},
             {"gof", "takef", "donef"});
  const gspn::SymmetryFactor slow =
      blocks(net, gspn::SymmetryFactor::Kind::Symmetric, 4, {"thinks", "queues", "serveds"},
             {"gos", "takes", "dones"});
  CHECK_FALSE(gspn::symmetryViolation(net, fast));
  CHECK_FALSE(gspn::symmetryViolation(net, slow));
  const gspn::Symmetry group(net, {fast, slow});
  CHECK(group.log10Order() == doctest::Approx(std::log10(6.0 * 24.0)));
  const Solution full = solveWith(net, nullptr);
  const Solution lumped = solveWith(net, &group);
  CHECK(orbitTotal(lumped, group) == double(full.states()));
  checkSameMeasures(net, lumped, full);
}

TEST_CASE("a replica that differs is no symmetry, and says how it differs") {
  const auto factor = [](const gspn::Net& net) {
    return blocks(net, gspn::SymmetryFactor::Kind::Symmetric, 3, {"up", "down", "rep"},
                  {"fail", "start", "repair"});
  };
  // The same text with one machine's repair rate, weight or guard changed.
  std::string base = repairman(3, 1, 1, 2);
  auto change = [&](const std::string& from, const std::string& to) {
    std::string text = base;
    text.replace(text.find(from), from.size(), to);
    return testing::loadGspnText(text);
  };
  const gspn::Net rate = change("timed repair2 rate 2.000000", "timed repair2 rate 2.5");
  CHECK(gspn::symmetryViolation(rate, factor(rate))->find("rate") != std::string::npos);
  const gspn::Net weight = change("immediate start1 in", "immediate start1 weight 2 in");
  CHECK(gspn::symmetryViolation(weight, factor(weight))->find("weight") != std::string::npos);
  const gspn::Net guard = change("immediate start0 in", "immediate start0 guard #up1 > 0 in");
  CHECK(gspn::symmetryViolation(guard, factor(guard))->find("guard") != std::string::npos);
  const gspn::Net initial = change("place up1 = 1", "place up1 = 2");
  CHECK(gspn::symmetryViolation(initial, factor(initial))->find("initial") != std::string::npos);
  const gspn::Net same = testing::loadGspnText(base);
  CHECK_FALSE(gspn::symmetryViolation(same, factor(same)));
}

TEST_CASE("marking-dependent rates are compared up to the order of sums and products") {
  // Each client's rate is shared with the others: λ / (#a0 + #a1 + #a2) written in a
  // different order in each.
  const gspn::Net net = testing::loadGspnText(
      "place a0 = 1; place a1 = 1; place a2 = 1; place b0; place b1; place b2;"
      "timed go0 rate 3 / (#a0 + #a1 + #a2) in a0 out b0;"
      "timed go1 rate 3 / (#a2 + (#a0 + #a1)) in a1 out b1;"
      "timed go2 rate 3 / ((#a1 + #a2) + #a0) in a2 out b2;"
      "timed back0 rate 1 in b0 out a0; timed back1 rate 1 in b1 out a1;"
      "timed back2 rate 1 in b2 out a2;");
  const gspn::SymmetryFactor f =
      blocks(net, gspn::SymmetryFactor::Kind::Symmetric, 3, {"a", "b"}, {"go", "back"});
  CHECK_FALSE(gspn::symmetryViolation(net, f));
  const gspn::Symmetry group(net, {f});
  const Solution full = solveWith(net, nullptr);
  const Solution lumped = solveWith(net, &group);
  CHECK(lumped.states() == 4);  // 0, 1, 2 or 3 clients at b
  CHECK(full.states() == 8);
  checkSameMeasures(net, lumped, full);
  // A rate that is not the image of the others: 3 / (#a0 + #a1) for go2.
  const gspn::Net odd = testing::loadGspnText(
      "place a0 = 1; place a1 = 1; place a2 = 1; place b0; place b1; place b2;"
      "timed go0 rate 3 / (#a0 + #a1 + #a2) in a0 out b0;"
      "timed go1 rate 3 / (#a0 + #a1 + #a2) in a1 out b1;"
      "timed go2 rate 3 / (#a0 + #a1) in a2 out b2;"
      "timed back0 rate 1 in b0 out a0; timed back1 rate 1 in b1 out a1;"
      "timed back2 rate 1 in b2 out a2;");
  CHECK(gspn::symmetryViolation(
            odd, blocks(odd, gspn::SymmetryFactor::Kind::Symmetric, 3, {"a", "b"}, {"go", "back"}))
            ->find("marking-dependent rate") != std::string::npos);
}

TEST_CASE("canonical markings and orbit sizes") {
  const gspn::Net net = testing::loadGspnText(repairman(4, 1, 1, 1));
  const gspn::Symmetry group(net, {blocks(net, gspn::SymmetryFactor::Kind::Symmetric, 4,
                                          {"up", "down", "rep"}, {"fail", "start", "repair"})});
  // Places: free, then up/down/rep per machine: down, up, in repair, down.
  std::vector<gspn::Tokens> m = {0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0};
  group.canonicalize(m);
  // Blocks sorted ascending: (0,0,1), (0,1,0), (0,1,0), (1,0,0).
  CHECK(m == std::vector<gspn::Tokens>{0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0});
  CHECK(group.orbitSize(m) == 12);  // 4! / 2!
  CHECK(group.log10OrbitSize(m) == doctest::Approx(std::log10(12.0)));
  // The first of a run of equal blocks fires for the run, the others not at all.
  CHECK(group.firingMultiplicity(*net.findTransition("fail0"), m) == 1);
  CHECK(group.firingMultiplicity(*net.findTransition("fail1"), m) == 2);
  CHECK(group.firingMultiplicity(*net.findTransition("fail2"), m) == 0);
  CHECK(group.firingMultiplicity(*net.findTransition("fail3"), m) == 1);
  CHECK(group.placeOrbit(*net.findPlace("down1")).size() == 4);
  CHECK(group.placeOrbit(*net.findPlace("free")).size() == 1);
}

TEST_CASE("keys: one per orbit, expanded into the canonical marking") {
  const gspn::Net net = testing::loadGspnText(repairman(4, 1, 1, 1));
  const gspn::Symmetry group(net, {blocks(net, gspn::SymmetryFactor::Kind::Symmetric, 4,
                                          {"up", "down", "rep"}, {"fail", "start", "repair"})});
  // free = 0; machines: down, up, in repair, down (as above), and a permutation of them.
  const std::vector<gspn::Tokens> m = {0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0};
  const std::vector<gspn::Tokens> permuted = {0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1};
  std::vector<gspn::Tokens> key, other;
  group.key(m, key);
  group.key(permuted, other);
  CHECK(key == other);
  // free, then 3 distinct vectors ascending with their counts.
  CHECK(key == std::vector<gspn::Tokens>{0, 3, 1, 0, 0, 1, 2, 0, 1, 0, 1, 1, 0, 0});
  std::vector<gspn::Tokens> canonical(m), expanded(m.size());
  group.canonicalize(canonical);
  group.expand(key, expanded);
  CHECK(expanded == canonical);
  // Another orbit (one machine fewer down) has another key.
  std::vector<gspn::Tokens> up = m;
  up[1] = 1;
  up[2] = 0;
  group.key(up, other);
  CHECK(key != other);

  // Runs, and the representatives they give, against firingMultiplicity.
  gspn::Symmetry::Runs runs;
  group.runs(canonical, runs);
  CHECK(runs.start[0] == std::vector<std::uint32_t>{1, 2, 0, 1});
  std::vector<std::uint32_t> copies(net.transitionCount(), 0);
  group.forEachRepresentative(runs, [&](gspn::TransitionId t, std::uint32_t c) { copies[t] = c; });
  for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t)
    CHECK_MESSAGE(copies[t] == group.firingMultiplicity(t, canonical), net.transition(t).name);
}

TEST_CASE("a store of orbits holds keys and decodes canonical markings") {
  const gspn::Net net = testing::loadGspnText(repairman(4, 1, 1, 1));
  const gspn::Symmetry group(net, {blocks(net, gspn::SymmetryFactor::Kind::Symmetric, 4,
                                          {"up", "down", "rep"}, {"fail", "start", "repair"})});
  gspn::PackedMarkingStore store(net.placeCount(), &group);
  std::vector<gspn::Tokens> key;
  std::vector<std::uint8_t> scratch;
  const std::vector<gspn::Tokens> a = {0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0};
  const std::vector<gspn::Tokens> b = {1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0};
  group.key(a, key);
  CHECK(store.insert(key) == std::pair<std::uint32_t, bool>{0, true});
  group.key(b, key);
  CHECK(store.insert(key) == std::pair<std::uint32_t, bool>{1, true});
  CHECK(store.find(key, scratch) == 1u);
  // A count past 255 widens every record to 2 bytes; ids and contents survive.
  std::vector<gspn::Tokens> c = b;
  c[0] = 300;
  group.key(c, key);
  const std::vector<gspn::MarkingView> fresh{key};
  store.appendNew(fresh, 1);
  CHECK(store.counterBytes() == 2);
  for (const auto& [id, m] : {std::pair{0u, a}, {1u, b}, {2u, c}}) {
    std::vector<gspn::Tokens> canonical = m;
    group.canonicalize(canonical);
    CHECK(store.decode(id) == canonical);
    group.key(m, key);
    CHECK(store.find(key, scratch) == id);
  }
}

TEST_CASE("IAD's levels on a lumped chain: the tokens of each orbit of places, summed") {
  const gspn::Net net = testing::loadGspnText(repairman(6, 2, 0.7, 1.9));
  const gspn::Symmetry group(net, {blocks(net, gspn::SymmetryFactor::Kind::Symmetric, 6,
                                          {"up", "down", "rep"}, {"fail", "start", "repair"})});
  const Solution lumped = solveWith(net, &group);
  const gspn::TangibleReachabilityGraph& g = lumped.solved->solution.explored.graph;
  const std::vector<std::uint32_t>& states = lumped.solved->solution.structure.recurrent;
  const solver::MarkingLevels levels(net, g, states);
  const std::vector<std::uint64_t> spans = levels.spans();
  REQUIRE(spans.size() == 4);  // free, and the orbits of up, down and rep
  std::optional<std::size_t> up;
  for (std::size_t o = 0; o < spans.size(); ++o)
    if (levels.placeName(o) == "up0 summed over its 6 replicas") up = o;
  REQUIRE(up);
  CHECK(spans[*up] == 7);  // 0 to 6 machines up
  const solver::BlockPartition byUp = levels.levels(*up);
  CHECK(byUp.blockCount == 7);
  for (std::size_t i = 0; i < states.size(); ++i) {
    const std::vector<gspn::Tokens> m = g.markings.decode(states[i]);
    gspn::Tokens count = 0;
    for (int k = 0; k < 6; ++k) count += m[*net.findPlace("up" + std::to_string(k))];
    CHECK(byUp.blockOf[i] == count);  // the levels 0..6 are their own ranks
  }
  // Over every state without a list (as solveNet holds them while solving): the same.
  REQUIRE(states.size() == g.stateCount());
  const solver::MarkingLevels listless(net, g);
  CHECK(listless.spans() == spans);
  CHECK(listless.placeName(*up) == levels.placeName(*up));
  CHECK(listless.levels(*up).blockOf == byUp.blockOf);
}
