// Parameters, loops, conditions and indexed names (docs/language.md, "Parameters and
// loops"): the fork-join example written with loops must give exactly the numbers of the
// hand-written one, and -D must change what the loops build.
#include <doctest/doctest.h>

#include <map>
#include <regex>

#include "compile_helpers.hpp"

using namespace mmt;

namespace {

/// Fork-join (E1) with n branches, written once for every n.
const char* kForkJoinLoops = R"(
system forkjoin {
  param n = 2;                      // branches
  param unit = 10;                  // data units per branch message
  hardware {
    for p in 1..n + 2 { processor P[p] { policy: fcfs; speed: 1; } }
    for l in 1..n + 1 { link L[l] (P[l], P[l + 1]) { kind: circuit; bandwidth: 1; latency: 0; } }
  }
  application {
    actor A[1] { demand: 4; }
    for i in 2..n + 1 { actor A[i] { demand: 1; } data D[i]; }
    actor A[n + 2] { demand: 2 ^ 3; }
    data D[1];
    A[1] -> D[1] { size: n * unit; }
    for i in 2..n + 1 {
      D[1] -> A[i] { size: unit; }
      A[i] -> D[i] { size: unit; }
      D[i] -> A[n + 2] { size: max(unit, 1); }
    }
  }
  mapping {
    A[1], D[1] on P[1];
    for i in 2..n + 1 {
      A[i], D[i] on P[i];
      D[1] -> A[i] via L[1..i - 1];
      if i < n + 1 { D[i] -> A[n + 2] via L[i..n + 1]; } else { D[i] -> A[n + 2] via L[n + 1]; }
    }
    A[n + 2] on P[n + 2];
  }
  workload: closed(1);
}
)";

/// The hand-written example's name for an element of the loop version.
std::string handWritten(std::string name) {
  static const std::map<std::string, std::string> links{
      {"L[1]", "L12"}, {"L[2]", "L23"}, {"L[3]", "L34"}};
  for (const auto& [from, to] : links)
    for (std::size_t at; (at = name.find(from)) != std::string::npos;)
      name.replace(at, from.size(), to);
  return std::regex_replace(name, std::regex(R"(([APD])\[(\d+)\])"), "$1$2");
}

template <typename T, typename F>
void sameNumbers(const std::vector<T>& loops, const std::vector<T>& hand, F&& numbers) {
  REQUIRE(loops.size() == hand.size());
  for (const T& x : loops) {
    CAPTURE(x.name);
    const T& y = testing::named(hand, handWritten(x.name));
    const auto a = numbers(x), b = numbers(y);
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("fork-join written with loops gives exactly the numbers of the hand-written one") {
  std::size_t loopStates = 0, handStates = 0;
  const auto loops = testing::solveText(kForkJoinLoops, &loopStates);
  const auto hand = testing::solveText(testing::readExample("forkjoin.hdl"), &handStates);
  CHECK(loopStates == 18);
  CHECK(loopStates == handStates);
  CHECK(loops.application.throughput ==
        doctest::Approx(hand.application.throughput).epsilon(1e-12));
  auto station = [](const compiler::StationMetrics& s) {
    return std::vector<double>{s.utilization, s.throughput, s.queueLength, s.responseTime};
  };
  sameNumbers(loops.processors, hand.processors, station);
  sameNumbers(loops.links, hand.links, station);
  sameNumbers(loops.actors, hand.actors, [](const compiler::ActorMetrics& a) {
    return std::vector<double>{a.throughput, a.responseTime, a.synchronizationDelay};
  });
  sameNumbers(loops.messages, hand.messages, [](const compiler::MessageMetrics& m) {
    return std::vector<double>{m.throughput, m.responseTime};
  });
}

TEST_CASE("-D changes what the loops build") {
  grammar::SourceFile source{"forkjoin.hdl", kForkJoinLoops};
  grammar::Diagnostics diagnostics(source);
  auto parsed = grammar::parseSystem(source, diagnostics);
  REQUIRE(parsed);
  auto three = compiler::compile(*parsed, diagnostics, nullptr, {{"n", 3}});
  REQUIRE_MESSAGE(three, diagnostics.str());
  CHECK(three->system.processors.size() == 5);
  CHECK(three->system.links.size() == 4);
  CHECK(three->system.actors.size() == 5);
  CHECK(three->system.messages.size() == 10);
  // The route of D[1] -> A[4] is L[1..3].
  for (std::size_t i = 0; i < three->system.messages.size(); ++i)
    if (three->system.messages[i].name == "D[1]->A[4]")
      CHECK(three->routing.messages[i].links.size() == 3);
  // A[1] writes n · unit = 30 units at bandwidth 1, but locally: no time.
  auto unknown = compiler::compile(*parsed, diagnostics, nullptr, {{"branches", 3}});
  CHECK_FALSE(unknown);
  CHECK(diagnostics.str().find("-D branches: the description declares no parameter 'branches' "
                               "(its parameters: n, unit)") != std::string::npos);
}
