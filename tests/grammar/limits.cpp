// Hostile input the readers must refuse with a positioned error instead of crashing or
// hanging (docs/hardening.md): nesting beyond kMaxNesting, a stray '}', counts a file cannot
// hold, and a net with no places.
#include <doctest/doctest.h>

#include <string>

#include "grammar/parse.hpp"
#include "gspn/reachability.hpp"
#include "io/formats.hpp"
#include "io/load_gspn.hpp"
#include "solver/ctmc.hpp"

using namespace mmt;

namespace {

/// Loads `text` as a .gspn file; returns the diagnostics (empty when it loaded).
std::string gspnErrors(const std::string& text) {
  grammar::SourceFile source{"t.gspn", text};
  grammar::Diagnostics diagnostics(source);
  const auto net = io::loadGspn(source, diagnostics);
  CHECK(net.has_value() == !diagnostics.hasErrors());
  return diagnostics.str();
}

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST_CASE("expressions nest up to kMaxNesting levels and no deeper") {
  const std::size_t limit = grammar::kMaxNesting;
  const std::string head = "place p = 1; timed t rate ";
  const std::string tail = " in p out p;";
  // At the limit: read.
  CHECK(gspnErrors(head + repeat("(", limit) + "1" + repeat(")", limit) + tail).empty());
  CHECK(gspnErrors(head + repeat("-", limit - 1) + "-1 + 2" + tail).empty());  // 1 + 2
  CHECK(gspnErrors(head + repeat("1^", limit) + "1" + tail).empty());
  // Beyond it: one error at the first level too many, however deep the input goes (3,000
  // parentheses and 100,000 minus signs or powers overflowed the stack before).
  const std::string column = std::to_string(head.size() + limit + 1);
  CHECK(gspnErrors(head + repeat("(", 3000) + "1" + repeat(")", 3000) + tail)
            .find("t.gspn:1:" + column + ": error: brackets nest deeper than 256 levels") == 0);
  CHECK(gspnErrors(head + repeat("-", 100'000) + "1" + tail)
            .find("t.gspn:1:" + column + ": error: prefix operators (- + ! ~) nest deeper") == 0);
  CHECK(gspnErrors(head + repeat("1^", 100'000) + "1" + tail).find("error: powers (^") !=
        std::string::npos);
  // Powers count per statement: many short ones are fine.
  CHECK(gspnErrors("place p = 1;" + repeat("param x = 2^2^2;", 200) + "timed t rate 1 in p out p;")
            .find("powers") == std::string::npos);
}

TEST_CASE("a .hdl file nests no deeper than kMaxNesting either") {
  grammar::SourceFile source{"t.hdl", "system s { hardware { processor P { speed: " +
                                          repeat("(", 3000) + "1" + repeat(")", 3000) + "; } } }"};
  grammar::Diagnostics diagnostics(source);
  CHECK_FALSE(grammar::parseSystem(source, diagnostics).has_value());
  CHECK(diagnostics.str().find("brackets nest deeper than 256 levels") != std::string::npos);
}

TEST_CASE("a stray '}' in a .gspn file is an error, not an endless loop") {
  const std::string errors = gspnErrors("place p = 1;\n}\n} }\ntimed t rate 1 in p out p;\n");
  CHECK(errors.find("t.gspn:2:1: error: expected 'net', 'param', 'place'") == 0);
  CHECK(errors.find("t.gspn:3:1:") != std::string::npos);
  CHECK(errors.find("t.gspn:3:3:") != std::string::npos);
}

TEST_CASE("PNML pages nest no deeper than kMaxNesting") {
  std::string text = "<pnml><net id=\"n\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\">";
  for (int i = 0; i < 30'000; ++i) text += "<page id=\"p" + std::to_string(i) + "\">";
  text += "<place id=\"a\"/>";
  for (int i = 0; i < 30'000; ++i) text += "</page>";
  text += "</net></pnml>";
  grammar::SourceFile source{"t.pnml", text};
  grammar::Diagnostics diagnostics(source);
  CHECK_FALSE(io::loadPnml(source, diagnostics).has_value());
  CHECK(diagnostics.str().find("pages nest deeper than 256 levels") != std::string::npos);
}

TEST_CASE("GreatSPN counts beyond what the file holds are refused before allocating") {
  auto errors = [](const std::string& netText) {
    grammar::SourceFile net{"t.net", netText}, def{"t.def", ""};
    grammar::Diagnostics d(net), dd(def);
    CHECK_FALSE(io::loadGreatSpn(net, d, def, dd).has_value());
    return d.str();
  };
  // 10^11 transitions declared in a 5-line file (this allocated gigabytes before).
  CHECK(errors("|0|\n|\nf 0 2 0 99999999999 0 0 0\na 1 1.0 1.0 0\nb 0 1.0 1.0 0\n")
            .find("t.net:3:9: error: the number of transitions is 99999999999, but only 2 "
                  "lines follow") == 0);
  // servers = INT_MIN: load-dependent rates for 2^31 enabling degrees (negating it
  // overflowed an int).
  CHECK(errors("|0|\n|\nf 0 1 0 1 0 0 0\na 1 1.0 1.0 0\nt 1.0 -2147483648 0 1 0 1.0 2.0 0\n"
               "   1   1   0 0\n   0\n   0\n")
            .find("'t' declares load-dependent rates for 2147483648 enabling degrees") !=
        std::string::npos);
}

TEST_CASE("a net with no places has one tangible marking") {
  grammar::SourceFile source{"t.gspn", "timed t rate 1;"};
  grammar::Diagnostics diagnostics(source);
  const auto net = io::loadGspn(source, diagnostics);
  REQUIRE_MESSAGE(net, diagnostics.str());
  const auto explored = gspn::exploreTangible(*net);
  REQUIRE(explored.status == gspn::ExplorationResult::Status::Ok);
  CHECK(explored.graph.stateCount() == 1);
}

TEST_CASE("GreatSPN expressions nest no deeper than kMaxNesting, whatever the spelling") {
  const std::string net =
      "|0|\n|\nf 0 1 0 1 0 0 0\na 1 1.0 1.0 0\nt -1 1 0 1 0 1.0 2.0 0\n   1   1   0 0\n"
      "   1\n   1   1   0 0\n   0\n";
  auto errors = [&](const std::string& rate) {
    grammar::SourceFile source{"t.net", net}, def{"t.def", "|256\n" + rate + "\n|\n%\n|\n"};
    grammar::Diagnostics d(source), dd(def);
    CHECK_FALSE(io::loadGreatSpn(source, d, def, dd).has_value());
    return dd.str();
  };
  // Each of these recursed once per level in the parser, with no bracket to count.
  std::string whens, tildes, brackets;
  for (int i = 0; i < 100'000; ++i) whens += "when #a > 0: ";
  for (int i = 0; i < 100'000; ++i) tildes += "~";
  for (int i = 0; i < 100'000; ++i) brackets += "Min[";
  CHECK(errors(whens + "1; ever 2;").find("more than 256 conditionals ('when')") !=
        std::string::npos);
  CHECK(errors(tildes + "(#a > 0)").find("prefix operators (- + ! ~) nest deeper than 256") !=
        std::string::npos);
  CHECK(errors(brackets + "1").find("brackets nest deeper than 256") != std::string::npos);
}
