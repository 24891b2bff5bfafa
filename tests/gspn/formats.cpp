// Nets read from PNML and GreatSPN files are solved to closed-form answers: the readers
// must give the net its author meant, not only a net that writes back the same.
#include <doctest/doctest.h>

#include <cmath>

#include "grammar/formats.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

gspn::Net pnml(const std::string& text, const grammar::ParameterOverrides& d = {}) {
  grammar::SourceFile source{"test.pnml", text};
  grammar::Diagnostics diagnostics(source);
  auto net = grammar::loadPnml(source, diagnostics, d);
  REQUIRE_MESSAGE(net, diagnostics.str());
  return *net;
}

gspn::Net greatSpn(const std::string& netText, const std::string& defText,
                   const grammar::ParameterOverrides& d = {}) {
  grammar::SourceFile source{"test.net", netText}, definitions{"test.def", defText};
  grammar::Diagnostics diagnostics(source), definitionDiagnostics(definitions);
  auto net = grammar::loadGreatSpn(source, diagnostics, definitions, definitionDiagnostics, d);
  REQUIRE_MESSAGE(net, std::string(diagnostics.str() + definitionDiagnostics.str()));
  return *net;
}

}  // namespace

TEST_CASE("PIPE PNML: M/M/1/K with an inhibitor arc has the closed-form blocking probability") {
  // Arrivals (rate 1) are inhibited when the queue holds K tokens; service at rate 2.
  // P(block) = rho^K (1 - rho) / (1 - rho^(K+1)), rho = 1/2 ([Kleinrock75] §3.6).
  const std::string text = R"(<?xml version="1.0"?>
<pnml><net id="mm1k" type="P/T net">
  <token id="Default" enabled="true"/>
  <place id="queue"><initialMarking><value>Default,0</value></initialMarking></place>
  <transition id="arrive"><rate><value>1.0</value></rate><timed><value>true</value></timed></transition>
  <transition id="serve"><rate><value>2.0</value></rate><timed><value>true</value></timed></transition>
  <arc id="a" source="arrive" target="queue"><inscription><value>Default,1</value></inscription></arc>
  <arc id="b" source="queue" target="arrive"><inscription><value>Default,5</value></inscription><type value="inhibitor"/></arc>
  <arc id="c" source="queue" target="serve"><inscription><value>Default,1</value></inscription></arc>
</net></pnml>)";
  const gspn::Net net = pnml(text);
  const auto s = testing::solve(net, solver::Method::LU);
  const double rho = 0.5;
  const int k = 5;
  const double block = std::pow(rho, k) * (1 - rho) / (1 - std::pow(rho, k + 1));
  CHECK(s.probability({5}) == doctest::Approx(block).epsilon(1e-12));
  CHECK(s.measures->throughput(*net.findTransition("arrive")) ==
        doctest::Approx(1 - block).epsilon(1e-12));
}

TEST_CASE("PNML as PIPE writes it: capacity, rate definition, empty inhibitor inscriptions") {
  // tests/grammar/pipe_wild.pnml: arrivals at 1 into a queue of capacity 3, served at
  // 2 * #Queue (a PIPE 5 rate definition): M/M/inf truncated at 3, P(n) ∝ 0.5^n / n!
  // ([Kleinrock75] §3.8). Beside it, Idle -> (immediate wake, inhibited by Busy) -> Busy
  // -> (rest, rate 5, inhibited by Queue) -> Idle: an inhibitor arc with an empty
  // inscription and one with none both mean "while the place is empty".
  const std::string path = std::string(MMT_SOURCE_DIR) + "/tests/grammar/pipe_wild.pnml";
  const gspn::Net net = pnml(grammar::readSourceFile(path).text);
  const auto s = testing::solve(net, solver::Method::GTH);
  double norm = 0, mean = 0;
  for (int n = 0, fact = 1; n <= 3; ++n, fact *= std::max(n, 1)) {
    norm += std::pow(0.5, n) / fact;
    mean += n * std::pow(0.5, n) / fact;
  }
  const gspn::PlaceId queue = *net.findPlace("Queue"), busy = *net.findPlace("Busy");
  CHECK(s.measures->meanTokens(queue) == doctest::Approx(mean / norm).epsilon(1e-12));
  // Arrivals blocked at capacity: X(arrive) = 1 - P(3).
  CHECK(s.measures->throughput(*net.findTransition("arrive")) ==
        doctest::Approx(1 - std::pow(0.5, 3) / 6 / norm).epsilon(1e-12));
  // rest fires only while the queue is empty (rate 5 · P(Queue = 0, Busy = 1)); wake
  // refills Busy at once, so Busy is always 1.
  CHECK(s.measures->meanTokens(busy) == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(s.measures->throughput(*net.findTransition("rest")) ==
        doctest::Approx(5 / norm).epsilon(1e-12));
}

TEST_CASE("GreatSPN: load-dependent rates r*min(e,3) over 3 tokens equal an infinite server") {
  // Three customers think (rate 0.5 each, infinite server) and are served by a station
  // whose rate at enabling degree e is 1, 2, 3: with 3 customers, an infinite server of
  // rate 1. The same machine-repair model with `servers 0` must give the same answer, and
  // both the closed form of the M/M/inf//3 finite source: P(n busy) ∝ C(3,n) (0.5/1)^n.
  const std::string loadDependent = R"(|0|
|
f 0 2 0 2 0 0 0
think 3 1.0 1.0 0
busy 0 2.0 1.0 0
request 0.5 0 0 1 0 1.0 2.0 0
   1   1   0 0
   1
   1   2   0 0
   0
serve 1 -3 0 1 0 2.0 2.0 0
2
3
   1   2   0 0
   1
   1   1   0 0
   0
)";
  const gspn::Net net = greatSpn(loadDependent, "");
  const auto s = testing::solve(net, solver::Method::LU);
  const double weights[] = {1, 3 * 0.5, 3 * 0.25, 0.125};
  const double total = weights[0] + weights[1] + weights[2] + weights[3];
  for (unsigned n = 0; n <= 3; ++n)
    CHECK(s.probability({3 - n, n}) == doctest::Approx(weights[n] / total).epsilon(1e-12));
}

TEST_CASE("GreatSPN: marking and rate parameters are set with -D, and .def rates are read") {
  // One token cycles between two places; `go` has rate parameter lambda (overridden to 3),
  // `back` a marking-dependent rate from the .def file (2 * tokens in `there` = 2).
  // P(here) = 2 / (2 + 3).
  const std::string text = R"(|0|
|
f 1 2 1 2 0 0 0
N 1 0.0 0.0 0
here -1 1.0 1.0 0
there 0 2.0 1.0 0
lambda 1.0 0.0 1.0 0
go -1 1 0 1 0 1.0 2.0 0
   1   1   0 0
   1
   1   2   0 0
   0
back -2 1 0 1 0 2.0 2.0 0
   1   2   0 0
   1
   1   1   0 0
   0
)";
  const std::string def = "|256\n2 * #there\n|\n%\n|p_here 0 0 : P{#here == 1}\n|\n";
  const gspn::Net net = greatSpn(text, def, {{"lambda", 3.0}});
  const auto s = testing::solve(net, solver::Method::LU);
  CHECK(s.probability({1, 0}) == doctest::Approx(2.0 / 5.0).epsilon(1e-12));
  REQUIRE(net.measures().size() == 1);
  // Two tokens (N = 2): the marking parameter sets the initial marking.
  const gspn::Net two = greatSpn(text, def, {{"N", 2.0}});
  CHECK(two.place(*two.findPlace("here")).initial == 2);
}

namespace {
gspn::Net pnpro(const std::string& text, const grammar::ParameterOverrides& d = {}) {
  grammar::SourceFile source{"test.PNPRO", text};
  grammar::Diagnostics diagnostics(source);
  auto net = grammar::loadPnpro(source, diagnostics, d);
  REQUIRE_MESSAGE(net, diagnostics.str());
  return *net;
}
}  // namespace

TEST_CASE("PNPRO: GreatSPN's defaults (delay is the rate, servers Infinite) give the product form") {
  // Three jobs cycle between an infinite-server station (EXP `think`, no nservers: GreatSPN
  // defaults to Infinite; delay 2 is the rate of each server) and a single server (EXP
  // `serve`, nservers 1, no delay: rate 1.0). Product form ([GSPN95] §8.2; Gordon–Newell):
  // P(n at the server) ∝ (1/1)^n · (1/2)^(3−n) / (3−n)!.
  const std::string text = R"(<project name="p" version="121"><gspn name="cycle"><nodes>
    <place name="Thinking" marking="N"/><place name="Queue"/>
    <constant consttype="INTEGER" name="N" value="3"/>
    <transition name="think" type="EXP" delay="2"/>
    <transition name="serve" type="EXP" nservers="1"/>
  </nodes><edges>
    <arc head="think" tail="Thinking" kind="INPUT"/><arc head="Queue" tail="think" kind="OUTPUT"/>
    <arc head="serve" tail="Queue" kind="INPUT"/><arc head="Thinking" tail="serve" kind="OUTPUT"/>
  </edges></gspn></project>)";
  const gspn::Net net = pnpro(text);
  const auto s = testing::solve(net, solver::Method::GTH);
  double norm = 0, mean = 0;
  const double fact[] = {1, 1, 2, 6};
  for (int n = 0; n <= 3; ++n) {
    const double w = std::pow(0.5, 3 - n) / fact[3 - n];
    norm += w;
    mean += n * w;
  }
  CHECK(s.measures->meanTokens(*net.findPlace("Queue")) == doctest::Approx(mean / norm).epsilon(1e-12));
  // X(serve) = P(Queue > 0) · 1.
  CHECK(s.measures->throughput(*net.findTransition("serve")) ==
        doctest::Approx(1 - std::pow(0.5, 3) / 6 / norm).epsilon(1e-12));
}

TEST_CASE("PNPRO: templates take their last binding, -D overrides, none is an error") {
  const std::string path = std::string(MMT_SOURCE_DIR) + "/tests/grammar/greatspn_ReaderWriter.PNPRO";
  const std::string text = grammar::readSourceFile(path).text;
  // K (a template, last binding 1) is the multiplicity of the arcs out of Choice.
  auto choiceArc = [](const gspn::Net& net) {
    return net.inputs(*net.findTransition("is_read"))[0].multiplicity;
  };
  CHECK(choiceArc(pnpro(text)) == 1);
  CHECK(choiceArc(pnpro(text, {{"K", 2}})) == 2);
  const std::string unbound = R"(<project><gspn name="g"><nodes>
    <template name="M" type="INTEGER"/><place name="P" marking="M"/></nodes><edges/></gspn></project>)";
  grammar::SourceFile source{"t.PNPRO", unbound};
  grammar::Diagnostics diagnostics(source);
  CHECK_FALSE(grammar::loadPnpro(source, diagnostics).has_value());
  CHECK(diagnostics.str().find("the template 'M' has no value: give it one with -D M=VALUE") !=
        std::string::npos);
  CHECK(pnpro(unbound, {{"M", 4}}).place(0).initial == 4);
}

TEST_CASE("PNPRO: Storm's gspn_simple is unbounded, and exploration says which place grows") {
  const std::string path = std::string(MMT_SOURCE_DIR) + "/tests/grammar/storm_gspn_simple.pnpro";
  const gspn::Net net = pnpro(grammar::readSourceFile(path).text);
  gspn::ExplorationSettings settings;
  settings.maxStates = 1000;
  const auto explored = gspn::exploreTangible(net, settings);
  CHECK(explored.status == gspn::ExplorationResult::Status::StateLimit);
  CHECK(explored.message.find("place 'place_2'") != std::string::npos);
}
