// GreatSPN's coloured PNPRO pages (io/greatspn_colours.hpp), unfolded: the stochastic
// well-formed nets of GreatSPN's own examples against the results its solver stored in the
// same file, and the colour language on small pages by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <regex>

#include "api/results.hpp"
#include "io/formats.hpp"
#include "solve_helpers.hpp"

namespace {

using namespace mmt;

std::optional<gspn::Net> loadPnproText(const std::string& text, std::string* errors = nullptr) {
  grammar::SourceFile source{"test.PNPRO", text};
  grammar::Diagnostics diagnostics(source);
  auto net = io::loadPnpro(source, diagnostics);
  if (errors) *errors = diagnostics.str();
  return net;
}

std::string slurp(const std::string& path) { return grammar::readSourceFile(path).text; }

/// Sums of the unfolded places' mean tokens and transitions' throughputs by coloured
/// element (each unfolded element's group).
struct Totals {
  std::map<std::string, double> places, transitions;
};

Totals totals(const gspn::Net& net, const solver::SteadyStateMeasures& m) {
  Totals t;
  for (std::size_t p = 0; p < net.places().size(); ++p)
    t.places[net.places()[p].group] += m.meanTokens(static_cast<gspn::PlaceId>(p));
  for (std::size_t i = 0; i < net.transitions().size(); ++i)
    t.transitions[net.transitions()[i].group] += m.throughput(static_cast<gspn::TransitionId>(i));
  return t;
}

}  // namespace

TEST_CASE("PNPRO: GreatSPN's Multiprocessor SWN gives the results GreatSPN stored in it") {
  // Four processors in one class P (a static subclass `proc`), a product P × P of external
  // accesses, an uncoloured bus, a coloured constant S = <All>, the guard x != y. GreatSPN
  // solved it (its <measures> section: 340 tangible and 54 vanishing markings, mean tokens
  // per coloured place, throughputs per coloured transition) by Gauss–Seidel to an error of
  // 7.7e-8 (its log), so its figures hold to about 2e-7.
  const std::string text =
      slurp(std::string(MMT_SOURCE_DIR) + "/tests/grammar/greatspn_Multiprocessor.PNPRO");
  std::string errors;
  const auto net = loadPnproText(text, &errors);
  REQUIRE_MESSAGE(net, errors);
  CHECK(net->places().size() == 4 * 4 + 4 * 4 + 1);  // four places of P, one of P × P, ExtBus
  const auto s = testing::solve(*net, solver::Method::GTH);
  CHECK(s.graph.stateCount() == 340);
  CHECK(s.graph.vanishingCount == 54);
  const Totals got = totals(*net, *s.measures);
  std::smatch m;
  std::size_t places = 0, transitions = 0;
  static const std::regex mean(R"re(<mean place="([^"]+)" value="([^"]+)"/>)re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), mean); it != std::sregex_iterator();
       ++it, ++places) {
    const std::string place = (*it)[1];
    CAPTURE(place);
    REQUIRE(got.places.count(place));
    CHECK(got.places.at(place) == doctest::Approx(std::stod((*it)[2])).epsilon(3e-7));
  }
  static const std::regex throughput(R"re(<throughput transition="([^"]+)" value="([^"]+)"/>)re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), throughput);
       it != std::sregex_iterator(); ++it, ++transitions) {
    const std::string transition = (*it)[1];
    CAPTURE(transition);
    REQUIRE(got.transitions.count(transition));
    CHECK(got.transitions.at(transition) == doctest::Approx(std::stod((*it)[2])).epsilon(3e-7));
  }
  CHECK(places == 6);
  CHECK(transitions == 5);
  // The results' coloured totals are those sums, in the order the page names its nodes.
  const api::NetMeasures values = api::netMeasures(*net, *s.measures);
  REQUIRE(values.colouredMeanTokens.size() == 6);
  CHECK(values.colouredMeanTokens.front().first == "OwnMemAcc");
  for (const auto& [place, v] : values.colouredMeanTokens)
    CHECK(v == doctest::Approx(got.places.at(place)).epsilon(1e-14));
  REQUIRE(values.colouredThroughput.size() == 5);
  for (const auto& [transition, v] : values.colouredThroughput)
    CHECK(v == doctest::Approx(got.transitions.at(transition)).epsilon(1e-14));
}

TEST_CASE("PNPRO: GreatSPN's Database SWN unfolds <All-s,r> to every other server") {
  // 4 servers in a circular class, 3 resources under a mutex. Change sends a message to every
  // other server (<All-s,r>: 3 tokens); Release collects their 3 acknowledgements. (Its
  // unfolded chain has more than 2,000,000 tangible markings: it is solved by its
  // symmetry, not here.)
  const auto net = loadPnproText(
      slurp(std::string(MMT_SOURCE_DIR) + "/tests/grammar/greatspn_DatabaseCPN.PNPRO"));
  REQUIRE(net);
  CHECK(net->places().size() == 4 + 4 + 3 + 8 * 12);
  auto arcs = [&](std::span<const gspn::Arc> list) {
    std::map<std::string, gspn::Tokens> out;
    for (const auto& a : list) out[net->place(a.place).name] = a.multiplicity;
    return out;
  };
  const gspn::TransitionId change = *net->findTransition("Change_s2_r1");
  CHECK(arcs(net->outputs(change)) == std::map<std::string, gspn::Tokens>{{"wait_ack_s2_r1", 1},
                                                                          {"message_s1_r1", 1},
                                                                          {"message_s3_r1", 1},
                                                                          {"message_s4_r1", 1}});
  const gspn::TransitionId release = *net->findTransition("Release_s4_r3");
  CHECK(arcs(net->inputs(release)) ==
        std::map<std::string, gspn::Tokens>{{"wait_ack_s4_r3", 1},
                                            {"acknowledge_s1_r3", 1},
                                            {"acknowledge_s2_r3", 1},
                                            {"acknowledge_s3_r3", 1}});
  // Start has a free variable r: one transition per server and resource.
  for (const char* t : {"Start_s1_r1", "Start_s4_r3"}) CHECK(net->findTransition(t));
  CHECK(net->transitions().size() == 8 * 12);
}

TEST_CASE("PNPRO colours: classes, subclasses, successor, guards and the errors") {
  const std::string page = R"xml(<project name="p" version="121"><gspn name="ring"><nodes>
    <color-class name="C" definition="circular c{1..3} is first + {d4} is rest"/>
    <color-var name="x" domain="C"/><color-var name="y" domain="C"/>
    <place name="P" domain="C" marking="2&lt;All&gt; - &lt;c1&gt;"/>
    <place name="Q" domain="C"/>
    <place name="Bus" marking="N"/>
    <constant name="N" consttype="INTEGER" value="2"/>
    <transition name="move" type="EXP" delay="3" guard="[x++ == y &amp;&amp; d(x) == first]"/>
    <transition name="back" type="IMM" guard="!(x == d4)"/>
  </nodes><edges>
    <arc head="move" tail="P" kind="INPUT" mult="&lt;x&gt;"/>
    <arc head="move" tail="Bus" kind="INPUT"/>
    <arc head="Q" tail="move" kind="OUTPUT" mult="2&lt;y&gt;"/>
    <arc head="Bus" tail="move" kind="OUTPUT" mult="1"/>
    <arc head="back" tail="Q" kind="INPUT" mult="&lt;x&gt;"/>
    <arc head="P" tail="back" kind="OUTPUT" mult="&lt;x&gt;"/>
  </edges></gspn></project>)xml";
  std::string errors;
  const auto net = loadPnproText(page, &errors);
  REQUIRE_MESSAGE(net, errors);
  // 2<All> - <c1>: one c1, two of the others; the bus holds N.
  CHECK(net->place(*net->findPlace("P_c1")).initial == 1);
  CHECK(net->place(*net->findPlace("P_d4")).initial == 2);
  CHECK(net->place(*net->findPlace("Bus")).initial == 2);
  // x in the subclass `first` (c1..c3) and y its successor: c3's successor wraps to d4.
  for (const char* t : {"move_c1_c2", "move_c2_c3", "move_c3_d4"}) CHECK(net->findTransition(t));
  CHECK_FALSE(net->findTransition("move_d4_c1"));
  CHECK_FALSE(net->findTransition("back_d4"));
  const auto& move = net->transition(*net->findTransition("move_c3_d4"));
  CHECK(move.rate == 3);
  CHECK(move.group == "move");

  SUBCASE("errors at the character, entities counted as the file has them") {
    std::string bad = page;
    bad.replace(bad.find("mult=\"2&lt;y&gt;\""), 17, "mult=\"2&lt;z&gt;\"");
    bad.replace(bad.find("guard=\"!(x == d4)\""), 18, "guard=\"x ~ d4\"");
    CHECK_FALSE(loadPnproText(bad, &errors));
    CHECK(errors.find("test.PNPRO:13:56: error: 'z' is no colour variable, colour or static "
                      "subclass of the page") != std::string::npos);
    CHECK(errors.find("test.PNPRO:9:49: error: unexpected character '~'") != std::string::npos);
  }
}
