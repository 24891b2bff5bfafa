// The functions of expressions, GreatSPN's among them, against values worked by hand; and
// GreatSPN's notation, written and read back.
#include "gspn/expression.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "io/formats.hpp"
#include "io/load_gspn.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

double value(const std::string& expression) {
  const gspn::Net net = testing::loadGspnText("place p; measure m = " + expression + ";");
  return net.measures().at(0).expression.evaluateConstant();
}

double apply(gspn::Expression::Op op, std::vector<double> arguments) {
  gspn::Expression e;
  for (double a : arguments) e.push({gspn::Expression::Op::Constant, 0, a});
  e.push({op, static_cast<std::uint32_t>(arguments.size()), 0});
  return e.evaluateConstant();
}

}  // namespace

TEST_CASE("expression functions: mod, round, factorial, binomial, pow and the trigonometric ones") {
  using Op = gspn::Expression::Op;
  CHECK(value("mod(7, 3)") == 1);
  CHECK(value("mod(-7, 3)") == -1);  // the sign of the dividend, as C's % and fmod
  CHECK(value("mod(7.5, 2)") == 1.5);
  CHECK(value("round(2.5)") == 3);
  CHECK(value("round(-2.5)") == -3);
  CHECK(value("round(2.49)") == 2);
  CHECK(value("factorial(0)") == 1);
  CHECK(value("factorial(10)") == 3628800);
  CHECK(value("binomial(5, 2)") == 10);
  CHECK(value("binomial(5, 0)") == 1);
  CHECK(value("binomial(5, 7)") == 0);
  CHECK(value("binomial(50, 25)") == 126410606437752.0);  // exact below 2^53
  CHECK(value("pow(2, 10)") == 1024);
  CHECK(value("pow(2, 3) == 2 ^ 3") == 1);
  CHECK(value("sin(0) + cos(0) + tan(0) + asin(1) * 2 + acos(1) + atan(0)") ==
        doctest::Approx(1 + M_PI).epsilon(1e-15));
  CHECK(std::isnan(apply(Op::Factorial, {2.5})));
  CHECK(std::isnan(apply(Op::Factorial, {-1})));
  CHECK(std::isinf(apply(Op::Factorial, {171})));
  CHECK(std::isnan(apply(Op::Binomial, {5.5, 2})));
  CHECK(std::isnan(apply(Op::Binomial, {-3, 2})));
}

TEST_CASE("sums of token counts evaluate as the instructions they fuse, in every grouping") {
  // Markings of four places; each expression against its value worked by hand.
  const std::vector<std::uint32_t> m = {3, 5, 7, 11};
  using Op = gspn::Expression::Op;
  auto program = [](std::initializer_list<gspn::Expression::Instruction> code) {
    gspn::Expression e;
    for (const auto& in : code) e.push(in);
    return e;
  };
  const gspn::Expression::Instruction a{Op::Tokens, 0}, b{Op::Tokens, 1}, c{Op::Tokens, 2},
      d{Op::Tokens, 3}, add{Op::Add}, times{Op::Multiply}, two{Op::Constant, 0, 2};
  CHECK(program({a, b, add, c, add, d, add}).evaluate(m) == 26);              // #a + #b + #c + #d
  CHECK(program({a, b, c, add, add}).evaluate(m) == 15);                      // #a + (#b + #c)
  CHECK(program({a, b, add, c, two, times, add, d, add}).evaluate(m) == 33);  // a + b + 2c + d
  CHECK(program({a, b, add, c, d, add, times}).evaluate(m) == 144);           // (#a + #b)(#c + #d)
  CHECK(program({two, a, add, b, add}).evaluate(m) == 10);                    // 2 + #a + #b
  // 1 / (#a · Σ), a farm's shared rate: the code keeps every instruction for the writers.
  const gspn::Expression shared =
      program({{Op::Constant, 0, 1}, a, b, c, add, d, add, times, {Op::Divide}});
  CHECK(shared.code().size() == 9);
  CHECK(shared.evaluate(m) == doctest::Approx(1.0 / (3 * 23)).epsilon(1e-15));
  CHECK_THROWS_AS(program({a, b, add}).evaluate(std::vector<std::uint32_t>{1}), std::logic_error);
}

TEST_CASE("GreatSPN notation: what mmt writes in a .def and a PNPRO reads back to the same net") {
  const gspn::Net net = testing::loadGspnText(R"(
    place a = 2; place b = 1;
    timed t rate min(#a, #b, 3) ^ 2 + if(#a != 1 && !(#b > 4), floor(#b / 2), mod(#a, 2)) + 1
      in a out b;
    timed u rate max(#b, 1) * round(0.5 + binomial(3, 1)) in b out a * factorial(1);
    measure m = mean(#a) / throughput(t) + prob(#b == 0);
  )");
  std::ostringstream netOut, defOut, pnproOut;
  io::writeGreatSpn(net, netOut, defOut);
  const std::string def = defOut.str();
  CHECK_MESSAGE(def.find("Pow[Min[Min[#a, #b], 3], 2] + If[#a /= 1 && !(#b > 4), Floor[#b / 2], "
                         "Mod[#a, 2]] + 1") != std::string::npos,
                def);
  CHECK_MESSAGE(def.find("E{#a} / X{t} + P{#b == 0}") != std::string::npos, def);
  grammar::SourceFile netFile{"w.net", netOut.str()}, defFile{"w.def", def};
  grammar::Diagnostics d(netFile), dd(defFile);
  const auto back = io::loadGreatSpn(netFile, d, defFile, dd);
  REQUIRE_MESSAGE(back, std::string(d.str() + dd.str()));
  for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t)
    CHECK(back->transition(t).rateExpression == net.transition(t).rateExpression);
  CHECK(back->measures().at(0).expression == net.measures().at(0).expression);

  io::writePnpro(net, pnproOut);
  CHECK(pnproOut.str().find("If[#a != 1 &amp;&amp; !(#b > 4)") != std::string::npos);
  grammar::SourceFile pnpro{"w.PNPRO", pnproOut.str()};
  grammar::Diagnostics pd(pnpro);
  const auto fromPnpro = io::loadPnpro(pnpro, pd);
  REQUIRE_MESSAGE(fromPnpro, pd.str());
  for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t)
    CHECK(fromPnpro->transition(t).rateExpression == net.transition(t).rateExpression);
}

TEST_CASE("guards: an M/M/1/K bounded by a guard is the one bounded by an inhibitor arc") {
  // P(n) = rho^n (1 - rho) / (1 - rho^(K+1)), rho = 1/2, K = 4 ([Kleinrock75] §3.6).
  const gspn::Net guarded = testing::loadGspnText(
      "param K = 4; place q; timed arrive rate 1 guard #q < K out q; timed serve rate 2 in q;");
  const gspn::Net inhibited = testing::loadGspnText(
      "place q; timed arrive rate 1 out q inhibit q * 4; timed serve rate 2 in q;");
  REQUIRE_FALSE(guarded.transition(0).guard.empty());
  const auto a = testing::solve(guarded, solver::Method::LU);
  const auto b = testing::solve(inhibited, solver::Method::LU);
  const double rho = 0.5, norm = (1 - rho) / (1 - std::pow(rho, 5));
  for (gspn::Tokens n = 0; n <= 4; ++n) {
    CHECK(a.probability({n}) == doctest::Approx(std::pow(rho, n) * norm).epsilon(1e-12));
    CHECK(b.probability({n}) == doctest::Approx(std::pow(rho, n) * norm).epsilon(1e-12));
  }
  CHECK(a.graph.stateCount() == 5);
}

TEST_CASE("guards: always true is dropped, always false warns, a measure is refused") {
  auto load = [](const std::string& text) {
    grammar::SourceFile source{"g.gspn", text};
    grammar::Diagnostics diagnostics(source);
    auto net = io::loadGspn(source, diagnostics);
    return std::make_pair(std::move(net), diagnostics.str());
  };
  auto [always, none] = load("place p = 1; timed t rate 1 guard 2 > 1 in p out p;");
  REQUIRE(always);
  CHECK(always->transition(0).guard.empty());
  CHECK(none.empty());
  auto [never, warning] =
      load("place p = 1; timed t rate 1 guard 0 in p out p; timed u rate 1 in p out p;");
  REQUIRE(never);
  CHECK(warning.find("g.gspn:1:35: warning: this guard is always false") == 0);
  auto [measure, error] = load("place p = 1; timed t rate 1 guard mean(#p) > 0 in p out p;");
  CHECK_FALSE(measure);
  CHECK(error.find("is a measure") != std::string::npos);
}
