// Nets read from PNML and GreatSPN files are solved to closed-form answers: the readers
// must give the net its author meant, not only a net that writes back the same.
#include "io/formats.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "gspn/measure_source.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

gspn::Net pnml(const std::string& text, const grammar::ParameterOverrides& d = {}) {
  grammar::SourceFile source{"test.pnml", text};
  grammar::Diagnostics diagnostics(source);
  auto net = io::loadPnml(source, diagnostics, d);
  REQUIRE_MESSAGE(net, diagnostics.str());
  return *net;
}

gspn::Net greatSpn(const std::string& netText, const std::string& defText,
                   const grammar::ParameterOverrides& d = {}) {
  grammar::SourceFile source{"test.net", netText}, definitions{"test.def", defText};
  grammar::Diagnostics diagnostics(source), definitionDiagnostics(definitions);
  auto net = io::loadGreatSpn(source, diagnostics, definitions, definitionDiagnostics, d);
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

/// A closed cycle of n tokens: `go` moves one from `here` to `there`, `back` returns it.
/// `goLine` and `backLine` are their transition records, with whatever rate lines follow.
std::string cycle(int n, const std::string& goLine, const std::string& backLine) {
  return "|0|\n|\nf 0 2 0 2 0 0 0\nhere " + std::to_string(n) + " 1.0 1.0 0\nthere 0 2.0 1.0 0\n" +
         goLine + "   1   1   0 0\n   1\n   1   2   0 0\n   0\n" + backLine +
         "   1   2   0 0\n   1\n   1   1   0 0\n   0\n";
}

/// Every marking of `a`'s chain has the probability it has in `b`'s (the same places).
void checkSameDistribution(const gspn::Net& a, const gspn::Net& b, int n) {
  const auto sa = testing::solve(a, solver::Method::LU);
  const auto sb = testing::solve(b, solver::Method::LU);
  for (int k = 0; k <= n; ++k) {
    const std::vector<gspn::Tokens> m{static_cast<gspn::Tokens>(n - k),
                                      static_cast<gspn::Tokens>(k)};
    CHECK(sa.probability(m) == doctest::Approx(sb.probability(m)).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE(
    "GreatSPN: Min[], Max[] and If[] rates in the .def agree with the same rates written "
    "explicitly") {
  // Five tokens. `go` runs at Min[#here, 3] * 0.5: a 3-server station of rate 0.5. `back`
  // runs at Max[#there, 2]: the load-dependent rates 2, 2, 3, 4, 5 at enabling degree 1..5.
  const int n = 5;
  const gspn::Net expressions =
      greatSpn(cycle(n, "go -1 1 0 1 0 1.0 2.0 0\n", "back -2 1 0 1 0 2.0 2.0 0\n"),
               "|256\nMin[#here, 3] * 0.5\n|\nMax[#there, 2]\n|\n%\n|\n");
  const gspn::Net explicitRates = greatSpn(
      cycle(n, "go 0.5 3 0 1 0 1.0 2.0 0\n", "back 2 -5 0 1 0 2.0 2.0 0\n2\n3\n4\n5\n"), "");
  checkSameDistribution(expressions, explicitRates, n);
  // The closed form of a two-station cycle: P(k at `there`) ∝ Π_{i=1..k} μ1(n - i + 1) /
  // μ2(i), with μ1(m) = 0.5 min(m, 3) and μ2(m) = max(m, 2).
  std::vector<double> weight{1};
  for (int k = 1; k <= n; ++k)
    weight.push_back(weight.back() * 0.5 * std::min(n - k + 1, 3) / std::max(k, 2));
  double total = 0;
  for (double w : weight) total += w;
  const auto s = testing::solve(expressions, solver::Method::LU);
  for (int k = 0; k <= n; ++k)
    CHECK(s.probability({static_cast<gspn::Tokens>(n - k), static_cast<gspn::Tokens>(k)}) ==
          doctest::Approx(weight[static_cast<std::size_t>(k)] / total).epsilon(1e-12));

  // GreatSPN's conditionals, in each spelling, and its boolean operators: `back` at 1.5 while
  // more than two tokens are there but not exactly four, 0.5 otherwise.
  const std::string rates[] = {
      "If[#there > 2 & #there /= 4, 1.5, 0.5]",
      "when #there > 2 && !(#there = 4): 1.5; ever 0.5;",
      "when [#there <= 2] : 0.5 ; when [#there <> 4] : 1.5 ; ever : 0.5 ;",
      "If[(#there > 2) -> (#there = 4), 0.5, 1.5]",
      "If[(#there > 2) <-> (#there /= 4), 1.5, 0.5]",
      "If[~(#there < 3) & (#there > 4 | #there == 3), 1.5, 0.5]",
      "Fract[Mod[#there, 2] + 1, 2] * If[#there > 2, 2, 1] + If[#there = 4, -0.5, 0] * 0 + "
      "If[#there > 2 & #there /= 4, 1.5, 0.5] - Fract[Mod[#there, 2] + 1, 2] * "
      "If[#there > 2, 2, 1]"};
  const gspn::Net loadDependent = greatSpn(
      cycle(n, "go 1 1 0 1 0 1.0 2.0 0\n", "back 0.5 -5 0 1 0 2.0 2.0 0\n0.5\n1.5\n0.5\n1.5\n"),
      "");
  for (const std::string& rate : rates) {
    CAPTURE(rate);
    checkSameDistribution(
        greatSpn(cycle(n, "go 1 1 0 1 0 1.0 2.0 0\n", "back -1 1 0 1 0 2.0 2.0 0\n"),
                 "|256\n" + rate + "\n|\n%\n|\n"),
        loadDependent, n);
  }
}

TEST_CASE("GreatSPN: the .def measures E{}, P{}, X{} and E{value / condition}") {
  // Three tokens cycling at rates 1 and 2 (single servers): P(k there) ∝ (1/2)^k, k = 0..3.
  const std::string def =
      "|256\n%\n"
      "|mean_there 0 0 : E{#there}\n"
      "|empty 0 0 : P{#there = 0}\n"
      "|busy_mean 0 0 : E{#there / #there > 1}\n"
      "|flow 0 0 : X{go}\n"
      "|scaled 0 0 : 2 E{#here} + 0.5 P{True}\n"
      "|\n";
  const gspn::Net net =
      greatSpn(cycle(3, "go 1 1 0 1 0 1.0 2.0 0\n", "back 2 1 0 1 0 2.0 2.0 0\n"), def);
  const auto s = testing::solve(net, solver::Method::LU);
  const double w[] = {1, 0.5, 0.25, 0.125};
  const double total = w[0] + w[1] + w[2] + w[3];
  const double meanThere = (w[1] + 2 * w[2] + 3 * w[3]) / total;
  const auto values = gspn::evaluateMeasures(net, *s.measures);
  REQUIRE(values.size() == 5);
  CHECK(values[0] == doctest::Approx(meanThere).epsilon(1e-12));
  CHECK(values[1] == doctest::Approx(w[0] / total).epsilon(1e-12));
  CHECK(values[2] == doctest::Approx((2 * w[2] + 3 * w[3]) / total).epsilon(1e-12));
  CHECK(values[3] == doctest::Approx(1 - w[3] / total).epsilon(1e-12));
  CHECK(values[4] == doctest::Approx(2 * (3 - meanThere) + 0.5).epsilon(1e-12));
}

TEST_CASE("GreatSPN: what its language has and mmt does not is an error at its position") {
  const std::string text = cycle(2, "go -1 1 0 1 0 1.0 2.0 0\n", "back 1 1 0 1 0 2.0 2.0 0\n");
  auto errors = [&](const std::string& rate) {
    grammar::SourceFile source{"test.net", text},
        definitions{"test.def", "|256\n" + rate + "\n|\n%\n|\n"};
    grammar::Diagnostics d(source), dd(definitions);
    CHECK_FALSE(io::loadGreatSpn(source, d, definitions, dd).has_value());
    return dd.str();
  };
  const std::string fromList = errors("FromList[\"rates.txt\", 2]");
  CHECK_MESSAGE(fromList.find("test.def:2:1: error: GreatSPN's function 'FromList' is not "
                              "supported") != std::string::npos,
                fromList);
  const std::string open = errors("Min[#here, 3");
  CHECK_MESSAGE(open.find("test.def:2:13: error: expected ']'") != std::string::npos, open);
  const std::string typo = errors("Min[#hre, 3]");
  CHECK_MESSAGE(typo.find("test.def:2:6: error: unknown place 'hre'; did you mean 'here'?") !=
                    std::string::npos,
                typo);
  const std::string condition = errors("E{#here > 1}");
  CHECK_MESSAGE(condition.find("test.def:2:1: error: E{…} takes a value") != std::string::npos,
                condition);
  const std::string two = errors("E(#here, 2)");
  CHECK_MESSAGE(
      two.find("test.def:2:1: error: 'E{…}' takes one expression, not 2") != std::string::npos,
      two);
  const std::string rate = errors("E{#here}");
  CHECK_MESSAGE(rate.find("is a measure") != std::string::npos, rate);
}

namespace {
gspn::Net pnpro(const std::string& text, const grammar::ParameterOverrides& d = {}) {
  grammar::SourceFile source{"test.PNPRO", text};
  grammar::Diagnostics diagnostics(source);
  auto net = io::loadPnpro(source, diagnostics, d);
  REQUIRE_MESSAGE(net, diagnostics.str());
  return *net;
}
}  // namespace

TEST_CASE(
    "PNPRO: GreatSPN's defaults (delay is the rate, servers Infinite) give the product form") {
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
  CHECK(s.measures->meanTokens(*net.findPlace("Queue")) ==
        doctest::Approx(mean / norm).epsilon(1e-12));
  // X(serve) = P(Queue > 0) · 1.
  CHECK(s.measures->throughput(*net.findTransition("serve")) ==
        doctest::Approx(1 - std::pow(0.5, 3) / 6 / norm).epsilon(1e-12));
}

TEST_CASE("PNPRO: templates take their last binding, -D overrides, none is an error") {
  const std::string path =
      std::string(MMT_SOURCE_DIR) + "/tests/grammar/greatspn_ReaderWriter.PNPRO";
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
  CHECK_FALSE(io::loadPnpro(source, diagnostics).has_value());
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

TEST_CASE("PNPRO: a project of two pages reads the first, with a warning, or the one named") {
  // GreatSPN's ReaderWriter page and its coloured Multiprocessor page in one project.
  auto page = [](const char* file) {
    const std::string text =
        grammar::readSourceFile(std::string(MMT_SOURCE_DIR) + "/tests/grammar/" + file).text;
    const auto from = text.find("<gspn "), to = text.find("</gspn>") + 7;
    REQUIRE(from != std::string::npos);
    return text.substr(from, to - from);
  };
  const std::string project = "<?xml version=\"1.0\"?>\n<project name=\"two\" version=\"121\">\n" +
                              page("greatspn_ReaderWriter.PNPRO") + "\n" +
                              page("greatspn_Multiprocessor.PNPRO") + "\n</project>\n";
  grammar::SourceFile source{"two.PNPRO", project};
  auto load = [&](const std::string& name, std::string& messages) {
    grammar::Diagnostics diagnostics(source);
    auto net = io::loadPnpro(source, diagnostics, {}, {}, name);
    messages = diagnostics.str();
    return net;
  };
  std::string messages;
  const auto first = load("", messages);
  REQUIRE_MESSAGE(first, messages);
  CHECK(first->name() == "ReaderWriter");
  CHECK_MESSAGE(messages.find("two.PNPRO:3:1: warning: the project holds 2 GSPN pages "
                              "('ReaderWriter', 'multiproc'); reading the first, 'ReaderWriter' "
                              "(--page NAME reads another)") != std::string::npos,
                messages);
  const auto second = load("multiproc", messages);
  REQUIRE_MESSAGE(second, messages);
  CHECK(second->name() == "multiproc");
  CHECK(second->places().size() == 33);
  CHECK(messages.empty());
  CHECK_FALSE(load("Multiproc", messages));
  CHECK_MESSAGE(
      messages.find("two.PNPRO:2:1: error: the project has no GSPN page named "
                    "'Multiproc'; its pages are 'ReaderWriter', 'multiproc'") != std::string::npos,
      messages);
}
