// The constructs of the language beyond the core (docs/language.md): processor policies,
// link kinds and buses, bounded and primed data nodes, open and stream workloads. Each
// against a truth that does not come from mmt: closed forms (the finite-source queue,
// M/M/1/K), mean-value analysis of closed networks, and small chains solved by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compile_helpers.hpp"
#include "sim/replications.hpp"

using namespace mmt;
using testing::compileErrors;
using testing::named;
using testing::solveText;

namespace {

/// Replaces every `{KEY}` in `text` by `value`.
std::string with(std::string text, const std::string& key, const std::string& value) {
  const std::string pattern = "{" + key + "}";
  for (std::size_t at; (at = text.find(pattern)) != std::string::npos;)
    text.replace(at, pattern.size(), value);
  return text;
}

/// Exact mean-value analysis (Reiser & Lavenberg 1980) of a closed network of single-server
/// queues (delay = false) and delay stations (delay = true) with service demands `demand`.
struct Mva {
  double throughput = 0;
  std::vector<double> queue;
};
Mva mva(const std::vector<double>& demand, const std::vector<bool>& delay, int population) {
  Mva out;
  out.queue.assign(demand.size(), 0.0);
  for (int n = 1; n <= population; ++n) {
    std::vector<double> r(demand.size());
    double total = 0;
    for (std::size_t i = 0; i < demand.size(); ++i)
      total += r[i] = delay[i] ? demand[i] : demand[i] * (1 + out.queue[i]);
    out.throughput = n / total;
    for (std::size_t i = 0; i < demand.size(); ++i) out.queue[i] = out.throughput * r[i];
  }
  return out;
}

/// S (0.5, on Q) forks to A (1) and B (2), both on P, whose policy and servers are left
/// as {POLICY} and {SERVERS}; M (0.25, on Q) joins them.
const char* kShare = R"(
    system share {
      hardware {
        processor Q;
        processor P { policy: {POLICY}; {SERVERS} }
        link L (Q, P);
      }
      application {
        actor S { demand: 0.5; }  actor A { demand: 1; }  actor B { demand: 2; }
        actor M { demand: 0.25; }
        data D1; data D2; data E1; data E2;
        S -> D1; S -> D2; D1 -> A; D2 -> B; A -> E1; B -> E2; E1 -> M; E2 -> M;
      }
      mapping { S, M, D1, D2, E1, E2 on Q; A, B on P; }
    })";

}  // namespace

TEST_CASE("ps: a finite population served by a k-server processor-sharing station") {
  // N iterations think (A, on a static processor: every one on its own) for Z, then are
  // served by B on a ps processor with k servers and speed 2: with n at B, B completes at
  // rate μ · min(n, k) whatever the sharing. The birth–death chain of the finite-source
  // queue (Kleinrock 1975 §3.8): p(n) ∝ Π_{i<n} ((N − i) / Z) / (μ · min(i + 1, k)).
  const int N = 4;
  const double Z = 3, S = 1, speed = 2, mu = speed / S;
  for (int k : {1, 2, 3}) {
    CAPTURE(k);
    std::vector<double> p(N + 1, 1.0);
    for (int n = 1; n <= N; ++n) p[n] = p[n - 1] * ((N - n + 1) / Z) / (mu * std::min(n, k));
    double sum = 0, x = 0, busy = 0, mean = 0;
    for (int n = 0; n <= N; ++n) sum += p[n];
    for (int n = 0; n <= N; ++n) {
      p[n] /= sum;
      x += p[n] * mu * std::min(n, k);
      busy += p[n] * std::min(n, k);
      mean += p[n] * n;
    }
    for (const char* policy : {"ps", "fcfs"}) {  // exponential service: the same numbers
      CAPTURE(policy);
      const auto m = solveText(with(with(R"(
        system repair {
          hardware {
            processor Think { policy: static; }
            processor P { policy: {POLICY}; servers: {K}; speed: 2; }
            link L (Think, P);
          }
          application {
            actor A { demand: 3; }
            actor B { demand: 1; }
            data D;
            A -> D; D -> B;
          }
          mapping { A, D on Think; B on P; }
          workload: closed(4);
        })",
                                         "POLICY", policy),
                                    "K", std::to_string(k)));
      CHECK(m.application.throughput == doctest::Approx(x).epsilon(1e-10));
      CHECK(named(m.processors, "P").utilization == doctest::Approx(busy / k).epsilon(1e-10));
      CHECK(named(m.processors, "P").queueLength == doctest::Approx(mean).epsilon(1e-10));
      CHECK(named(m.actors, "B").responseTime == doctest::Approx(mean / x).epsilon(1e-10));
      // static: Σ X_a · demand / speed.
      CHECK(named(m.processors, "Think").utilization == doctest::Approx(x * Z).epsilon(1e-10));
    }
  }
}

TEST_CASE("ps and static: two actors sharing one processor") {
  // S forks to A (demand 1) and B (demand 2), both on P; M joins. S and M run on Q.
  const std::string text = kShare;
  const double a = 1, b = 2, other = 0.5 + 0.25;
  SUBCASE("ps, one server: work-conserving, both done after a + b on average") {
    const auto m = solveText(with(with(text, "POLICY", "ps"), "SERVERS", ""));
    CHECK(*m.application.responseTime == doctest::Approx(other + a + b).epsilon(1e-10));
    CHECK(named(m.processors, "P").utilization ==
          doctest::Approx((a + b) / (other + a + b)).epsilon(1e-10));
  }
  SUBCASE("ps, two servers: both at full speed, done after E[max] = a + b − ab/(a + b)") {
    const auto m = solveText(with(with(text, "POLICY", "ps"), "SERVERS", "servers: 2;"));
    const double both = a + b - 1 / (1 / a + 1 / b);
    CHECK(*m.application.responseTime == doctest::Approx(other + both).epsilon(1e-10));
    // Busy servers: 2 while both run (mean 1 / (1/a + 1/b)), then 1.
    const double together = 1 / (1 / a + 1 / b);
    CHECK(named(m.processors, "P").utilization ==
          doctest::Approx((2 * together + (both - together)) / 2 / (other + both)).epsilon(1e-10));
  }
  SUBCASE("static: each gets half the speed, so A takes 2a and B 2b, independently") {
    const auto m = solveText(with(with(text, "POLICY", "static"), "SERVERS", ""));
    const double both = 2 * a + 2 * b - 1 / (1 / (2 * a) + 1 / (2 * b));
    CHECK(*m.application.responseTime == doctest::Approx(other + both).epsilon(1e-10));
    const double x = m.application.throughput;
    CHECK(named(m.processors, "P").utilization == doctest::Approx(x * (a + b)).epsilon(1e-10));
  }
}

TEST_CASE("store-and-forward against circuit on a two-hop route: MVA of the tandem") {
  // A on P1 sends 6 units to B on P3 over L1 (bandwidth 2, latency 0.5) and L2 (3, 0.25).
  // Circuit: one step of 0.75 + 6/2 = 3.75 holding both links. Store-and-forward: 3.5 on
  // L1 then 2.25 on L2. With closed(k) both are closed cyclic networks of single servers.
  const std::string text = R"(
    system hops {
      hardware {
        processor P1; processor P2; processor P3;
        link L1 (P1, P2) { kind: {KIND}; bandwidth: 2; latency: 0.5; }
        link L2 (P2, P3) { kind: {KIND}; bandwidth: 3; latency: 0.25; }
      }
      application {
        actor A { demand: 1; } actor B { demand: 2; } data D;
        A -> D; D -> B { size: 6; }
      }
      mapping { A, D on P1; B on P3; }
      workload: closed({K});
    })";
  for (int k : {1, 3}) {
    CAPTURE(k);
    const std::string model = with(text, "K", std::to_string(k));
    const auto circuit = solveText(with(model, "KIND", "circuit"));
    const Mva c = mva({1, 3.75, 2}, {false, false, false}, k);
    CHECK(circuit.application.throughput == doctest::Approx(c.throughput).epsilon(1e-10));
    CHECK(named(circuit.links, "L1").utilization ==
          doctest::Approx(3.75 * c.throughput).epsilon(1e-10));
    CHECK(named(circuit.links, "L2").queueLength == doctest::Approx(c.queue[1]).epsilon(1e-10));

    const auto sf = solveText(with(model, "KIND", "store_forward"));
    const Mva s = mva({1, 3.5, 2.25, 2}, {false, false, false, false}, k);
    CHECK(sf.application.throughput == doctest::Approx(s.throughput).epsilon(1e-10));
    CHECK(named(sf.links, "L1").utilization == doctest::Approx(3.5 * s.throughput).epsilon(1e-10));
    CHECK(named(sf.links, "L2").utilization == doctest::Approx(2.25 * s.throughput).epsilon(1e-10));
    CHECK(named(sf.links, "L1").queueLength == doctest::Approx(s.queue[1]).epsilon(1e-10));
    CHECK(named(sf.links, "L2").queueLength == doctest::Approx(s.queue[2]).epsilon(1e-10));
    CHECK(named(sf.messages, "D->B").responseTime ==
          doctest::Approx((s.queue[1] + s.queue[2]) / s.throughput).epsilon(1e-10));
  }
}

TEST_CASE("a bus shared by three senders is the machine-repairman network (MVA)") {
  // Each sender S_i thinks (demand 2 on its own workstation), then sends 3 units over the
  // bus (bandwidth 5: 0.6 per message) to its buffer D_i on R, which hands it straight
  // back (a read of size 0 over a bus without latency takes no time): a delay station and
  // a single server with three customers.
  const auto m = solveText(R"(
    system ethernet {
      hardware {
        processor W1; processor W2; processor W3; processor R;
        link Ether (W1, W2, W3, R) { kind: bus; bandwidth: 5; }
      }
      application {
        actor S1 { demand: 2; } actor S2 { demand: 2; } actor S3 { demand: 2; }
        data D1 { initial: 1; } data D2 { initial: 1; } data D3 { initial: 1; }
        S1 -> D1 { size: 3; } D1 -> S1;
        S2 -> D2 { size: 3; } D2 -> S2;
        S3 -> D3 { size: 3; } D3 -> S3;
      }
      mapping { S1 on W1; S2 on W2; S3 on W3; D1, D2, D3 on R; }
    })");
  const Mva truth = mva({2, 0.6}, {true, false}, 3);
  CHECK(named(m.links, "Ether").utilization ==
        doctest::Approx(0.6 * truth.throughput).epsilon(1e-10));
  CHECK(named(m.links, "Ether").throughput == doctest::Approx(truth.throughput).epsilon(1e-10));
  CHECK(named(m.links, "Ether").queueLength == doctest::Approx(truth.queue[1]).epsilon(1e-10));
  // A cyclic application: its throughput is the mean of its actors'.
  CHECK(m.application.throughput == doctest::Approx(truth.throughput / 3).epsilon(1e-10));
  CHECK(*m.application.responseTime == doctest::Approx(3 / truth.throughput).epsilon(1e-10));
}

TEST_CASE("a capacity-1 data node blocks its writer: the three-state chain by hand") {
  // stream: A (rate α = 1) always has input; D holds one item; B (rate β = 2) takes it.
  // s1 = A running, B idle; s2 = both running; s3 = A done and blocked, B running.
  // s1 →α s2, s2 →α s3, s2 →β s1, s3 →β s2: π ∝ (1, r, r²) with r = α/β.
  std::size_t states = 0;
  const auto m = solveText(R"(
    system blocking {
      hardware { processor P1; processor P2; link L (P1, P2); }
      application {
        actor A { demand: 1; } actor B { demand: 0.5; }
        data D { capacity: 1; }
        A -> D; D -> B;
      }
      mapping { A on P1; D, B on P2; }
      workload: stream;
    })",
                           &states);
  CHECK(states == 3);
  const double r = 0.5, norm = 1 + r + r * r;
  const double x = 2 * (r + r * r) / norm;
  CHECK(m.application.throughput == doctest::Approx(x).epsilon(1e-12));
  CHECK_FALSE(m.application.responseTime);
  CHECK(named(m.processors, "P1").utilization == doctest::Approx((1 + r) / norm).epsilon(1e-12));
}

TEST_CASE("open(rate, limit) on one server is M/M/1/K") {
  // λ = 1.5, service 1 / μ = 0.5, K = 3: loss = ρ^K (1 − ρ) / (1 − ρ^(K+1)).
  const double lambda = 1.5, mu = 2, rho = lambda / mu;
  const int K = 3;
  const auto m = solveText(R"(
    system mm1k {
      hardware { processor P; }
      application { actor A { demand: 0.5; } }
      mapping { A on P; }
      workload: open(1.5, 3);
    })");
  const double loss = std::pow(rho, K) * (1 - rho) / (1 - std::pow(rho, K + 1));
  double mean = 0, norm = 0;
  for (int n = 0; n <= K; ++n) {
    norm += std::pow(rho, n);
    mean += n * std::pow(rho, n);
  }
  mean /= norm;
  CHECK(*m.application.lossProbability == doctest::Approx(loss).epsilon(1e-12));
  CHECK(*m.application.arrivalRate == lambda);
  CHECK(m.application.throughput == doctest::Approx(lambda * (1 - loss)).epsilon(1e-12));
  CHECK(*m.application.responseTime ==
        doctest::Approx(mean / (lambda * (1 - loss))).epsilon(1e-12));
}

TEST_CASE("initial items in a two-actor ring: the cyclic network of two queues") {
  // A (P1, mean 1) and B (P2, mean 3) pass 3 items around; reads and writes carry nothing.
  for (int items : {1, 3}) {
    CAPTURE(items);
    const auto m = solveText(with(R"(
      system ring {
        hardware { processor P1; processor P2; link L (P1, P2); }
        application {
          actor A { demand: 1; } actor B { demand: 3; }
          data D1; data D2 { initial: {N}; }
          A -> D1; D1 -> B; B -> D2; D2 -> A;
        }
        mapping { A, D1 on P1; B, D2 on P2; }
      })",
                                  "N", std::to_string(items)));
    const Mva truth = mva({1, 3}, {false, false}, items);
    CHECK(named(m.actors, "A").throughput == doctest::Approx(truth.throughput).epsilon(1e-10));
    CHECK(named(m.processors, "P2").queueLength == doctest::Approx(truth.queue[1]).epsilon(1e-10));
  }
}

TEST_CASE("mistakes in the new constructs are reported at their place") {
  const std::string base = R"(
    system s {
      hardware { processor P1; processor P2; processor P3; {HW} }
      application { actor A; actor B; data D {DATA} A -> D; D -> B; {APP} }
      mapping { A, D on P1; B on P2; }
      {SYS}
    })";
  auto errors = [&](const char* hw, const char* data, const char* app, const char* sys) {
    return compileErrors(
        with(with(with(with(base, "HW", hw), "DATA", data), "APP", app), "SYS", sys));
  };
  CHECK(errors("link L (P1, P2, P3);", ";", "", "")
            .find("a link joining more than two is a bus; add 'kind: bus;'") != std::string::npos);
  CHECK(errors("link L (P1, P2) { kind: bus; }", "{ capacity: 1; initial: 2; }", "", "")
            .find("more than its capacity of 1") != std::string::npos);
  CHECK(errors("link L (P1, P2); processor Q { policy: static; servers: 2; }", ";", "", "")
            .find("'servers' does not apply") != std::string::npos);
  CHECK(errors("link L (P1, P2);", ";", "", "workload: open(1);").find("open(rate, limit) takes") !=
        std::string::npos);
  CHECK(errors("link L (P1, P2);", ";", "", "workload: stream(2);")
            .find("stream takes no arguments") != std::string::npos);
  for (const char* batch : {"workload: batch(0);", "workload: batch(4, 5);", "workload: batch;",
                            "workload: batch(2.5);", "workload: batch(4, 1, 1);"})
    CHECK(errors("link L (P1, P2);", ";", "", batch)
              .find("batch(n, k) takes a whole number n >= 1 of iterations in all") !=
          std::string::npos);
  CHECK(errors("link L (P1, P2);", ";", "", "workload: sometimes;")
            .find("closed(k), open(rate, limit), stream or batch(n, k)") != std::string::npos);
  CHECK(errors("link L (P1, P2);", ";", "actor C; data E; data F; B -> E; E -> C; C -> F; F -> B;",
               "")
            .find("the actors B, C form a dataflow cycle") != std::string::npos);
}

TEST_CASE("routes over a bus") {
  const std::string text = R"(
    system s {
      hardware {
        processor P1; processor P2; processor P3; processor P4;
        link Ether (P1, P2, P3) { kind: bus; }
        link L34 (P3, P4);
      }
      application { actor A; actor B; data D; A -> D; D -> B { size: 1; } }
      mapping { A, D on P1; B on {AT}; {ROUTE} }
    })";
  // Automatic routing treats the bus as a clique: P1 to P4 is Ether then L34.
  auto model = testing::compileText(with(with(text, "AT", "P4"), "ROUTE", ""));
  const compiler::System& s = model->compiled.system;
  const compiler::MessageRoute& route = model->compiled.routing.messages[1];
  REQUIRE(route.links.size() == 2);
  CHECK(s.links[route.links[0]].name == "Ether");
  CHECK(s.links[route.links[1]].name == "L34");
  CHECK(route.hops.size() == 1);  // circuit and bus links: acquired together
  // An explicit route must reach the receiver.
  CHECK(compileErrors(with(with(text, "AT", "P4"), "ROUTE", "D -> B via Ether;"))
            .find("bus 'Ether' does not reach 'P4', where the receiver is") != std::string::npos);
  CHECK(compileErrors(with(with(text, "AT", "P4"), "ROUTE", "D -> B via L34, Ether;"))
            .find("link 'L34' does not touch 'P1'") != std::string::npos);
  testing::compileText(with(with(text, "AT", "P3"), "ROUTE", "D -> B via Ether;"));
}

TEST_CASE("simulated with constant delays, processor sharing keeps each actor's remaining work") {
  // S (0.5) forks to A (work 1) and B (work 2) on one processor, M (0.25) joins. Constant
  // delays make every run the same. ps, one server: both at half speed until A ends at 2,
  // then B's remaining 1 at full speed: 3. ps, two servers: max(1, 2) = 2. static: A and B
  // at half speed whatever the other does: max(2, 4) = 4.
  const std::string text = kShare;
  struct Case {
    const char* policy;
    const char* servers;
    double cycle;
  };
  for (const Case& c :
       {Case{"ps", "", 3.75}, Case{"ps", "servers: 2;", 2.75}, Case{"static", "", 4.75}}) {
    CAPTURE(c.policy);
    CAPTURE(c.servers);
    auto model = testing::compileText(with(with(text, "POLICY", c.policy), "SERVERS", c.servers));
    sim::ReplicationSettings settings;
    settings.delays = sim::Delays::Constant;
    settings.events = 5'000;
    settings.warmupEvents = 10;
    auto runs = sim::runReplications<double>(
        model->compiled.net, settings, 0, 2, 1, [&](const sim::Replication& r) {
          return compiler::computeMetrics(model->compiled, r).application.throughput;
        });
    for (double x : runs) CHECK(1 / x == doctest::Approx(c.cycle).epsilon(1e-3));
  }
}
