// Coloured nets lumped by the symmetry their colour classes declare (coloured/symmetry.hpp):
// the rotations of a circular class, every permutation of an unordered one or of each of
// its static subclasses, and the subgroup left where a guard or the initial marking tells
// colours apart. Each is checked against the same net solved whole (symmetry off): the
// orbits weighed by their sizes count its markings, and every number agrees to 1e-9.
#include <doctest/doctest.h>

#include <string>

#include "api/solve.hpp"
#include "grammar/diagnostics.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

api::Solution solveWith(const api::Model& model, bool symmetry) {
  api::Settings settings;
  settings.symmetry = symmetry;
  settings.method = solver::Method::LU;
  settings.tolerance = 1e-13;
  return api::solve(model, settings);
}

/// Solves `model` lumped and whole; checks that the lumping used the colour classes, that
/// the orbits' sizes add up to the whole chain's markings and that every result agrees.
/// Returns the lumped solution.
api::Solution checkAgainstWhole(const api::Model& model) {
  api::Solution lumped = solveWith(model, true);
  const api::Solution whole = solveWith(model, false);
  REQUIRE(lumped.symmetry.colours);
  REQUIRE(lumped.symmetry.unlumpedTangible);
  CHECK(*lumped.symmetry.unlumpedTangible == double(whole.chain.explored.graph.stateCount()));
  CHECK(lumped.chain.explored.graph.stateCount() < whole.chain.explored.graph.stateCount());
  CHECK(testing::checkSameResults(lumped.results(), whole.results()) > 8);
  return lumped;
}

/// A PNPRO page of one colour class C (its definition `classDefinition`): tokens move from
/// P to Q (go, rate 1, under `guard`; into the successor's Q when `successor` is set) and
/// back (rate 2) through a shared Bus of two; skip, rate 3, moves them from P to Q through the
/// Bus for the colours of subclass A only when `subclass` is set.
std::string page(const std::string& classDefinition, const std::string& marking,
                 const std::string& guard = "", bool subclass = false, bool successor = false) {
  std::string out = R"xml(<project name="p" version="121"><gspn name="net"><nodes>
    <color-class name="C" definition=")xml" +
                    classDefinition + R"xml("/>
    <color-var name="x" domain="C"/>
    <place name="P" domain="C" marking=")xml" +
                    marking + R"xml("/>
    <place name="Q" domain="C"/>
    <place name="Bus" marking="2"/>
    <transition name="go" type="EXP" delay="1")xml" +
                    (guard.empty() ? "" : " guard=\"" + guard + "\"") + R"xml(/>
    <transition name="back" type="EXP" delay="2"/>)xml";
  if (subclass)
    out += R"xml(<transition name="skip" type="EXP" delay="3" guard="[d(x) == A]"/>)xml";
  out += R"xml(</nodes><edges>
    <arc head="go" tail="P" kind="INPUT" mult="&lt;x&gt;"/>
    <arc head="go" tail="Bus" kind="INPUT"/>
    <arc head="Q" tail="go" kind="OUTPUT" mult="&lt;x)xml" +
         std::string(successor ? "++" : "") + R"xml(&gt;"/>
    <arc head="back" tail="Q" kind="INPUT" mult="&lt;x&gt;"/>
    <arc head="P" tail="back" kind="OUTPUT" mult="&lt;x&gt;"/>
    <arc head="Bus" tail="back" kind="OUTPUT"/>)xml";
  if (subclass)
    out += R"xml(<arc head="skip" tail="P" kind="INPUT" mult="&lt;x&gt;"/>
    <arc head="skip" tail="Bus" kind="INPUT"/>
    <arc head="Q" tail="skip" kind="OUTPUT" mult="&lt;x&gt;"/>)xml";
  return out + "</edges></gspn></project>";
}

}  // namespace

TEST_CASE("GreatSPN's Database SWN at 3 servers and 2 resources: lumped by its classes") {
  // The example's classes, smaller, so that the whole chain can be solved beside it: Srv
  // circular (its rotations), R unordered (every permutation), 3 × 2 permutations.
  std::string text = grammar::readSourceFile(std::string(MMT_SOURCE_DIR) +
                                             "/tests/grammar/greatspn_DatabaseCPN.PNPRO")
                         .text;
  for (auto [from, to] : {std::pair{"circular s{1 .. 4} ", "circular s{1 .. 3} "},
                          std::pair{"enum r{1 .. 3}", "enum r{1 .. 2}"}}) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string(from).size(), to);
  }
  const api::Solution lumped = checkAgainstWhole(testing::loadModelText(text, ".PNPRO"));
  CHECK(lumped.symmetry.describe() ==
        "the colour classes Srv (its 3 rotations) and R (every permutation of 2), 6 permutations");
  CHECK(lumped.symmetry.colours->order == 6);
}

TEST_CASE("a circular class is lumped by its rotations") {
  // go moves a token into the successor's Q: only the rotations map the net onto itself.
  const api::Solution lumped = checkAgainstWhole(
      testing::loadModelText(page("circular c{1..4}", "2&lt;All&gt;", "", false, true), ".PNPRO"));
  CHECK(lumped.symmetry.describe() == "the colour class C (its 4 rotations), 4 permutations");
}

TEST_CASE("an unordered class with static subclasses: every permutation within each") {
  const api::Solution lumped = checkAgainstWhole(testing::loadModelText(
      page("c{1..2} is A + d{1..3} is B", "2&lt;All&gt;", "", true), ".PNPRO"));
  CHECK(lumped.symmetry.describe() ==
        "the colour class C (every permutation of 5 within each static subclass), 12 "
        "permutations");
  CHECK(lumped.symmetry.colours->order == 2 * 6);
}

TEST_CASE("a guard or an initial marking that names a colour leaves the subgroup fixing it") {
  SUBCASE("a guard") {
    const api::Solution lumped = checkAgainstWhole(
        testing::loadModelText(page("c{1..3}", "2&lt;All&gt;", "[x != c1]"), ".PNPRO"));
    CHECK(lumped.symmetry.describe() ==
          "the colour class C (every permutation of 3), the 2 of its 6 permutations that map "
          "the net onto itself");
    REQUIRE_MESSAGE(lumped.symmetry.notes.size() == 1, lumped.symmetry.notes.back());
    CHECK(lumped.symmetry.notes[0] ==
          "the net's guards, constants or initial marking tell colours apart: a guard keeps a "
          "binding and not its image");
  }
  SUBCASE("an initial marking") {
    const api::Solution lumped = checkAgainstWhole(
        testing::loadModelText(page("c{1..3}", "2&lt;c1&gt; + &lt;c2&gt; + &lt;c3&gt;"), ".PNPRO"));
    CHECK(lumped.symmetry.colours->order == 2);
    REQUIRE(lumped.symmetry.notes.size() == 1);
    CHECK(lumped.symmetry.notes[0].find("differ in initial marking") != std::string::npos);
  }
}

TEST_CASE("a class past the enumeration limit is said, and the automorphism search lumps") {
  // 8! = 40,320 permutations, more than the 5,040 enumerated; each colour's P, Q, go and
  // back form a block that the search finds.
  const api::Model model = testing::loadModelText(page("c{1..8}", "&lt;All&gt;"), ".PNPRO");
  const api::Solution lumped = solveWith(model, true);
  CHECK_FALSE(lumped.symmetry.colours);
  REQUIRE(lumped.symmetry.lumped.size() == 1);
  CHECK(lumped.symmetry.lumped[0].blocks == 8);
  REQUIRE_FALSE(lumped.symmetry.notes.empty());
  CHECK(lumped.symmetry.notes[0] ==
        "the colour classes are not used (their group has more than 5040 elements, more than "
        "mmt enumerates); the net's automorphisms are searched");
  const api::Solution whole = solveWith(model, false);
  CHECK(*lumped.symmetry.unlumpedTangible == double(whole.chain.explored.graph.stateCount()));
  CHECK(testing::checkSameResults(lumped.results(), whole.results()) > 8);
}
