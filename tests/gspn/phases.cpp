// Phase-type expansion of declared delays (gspn/phases.hpp) against the Pollaczek–Khinchine
// formula: the mean number in an M/G/1 queue depends on the service time's mean and
// variance only, L = ρ + ρ² (1 + c²) / (2 (1 − ρ)) (Kleinrock 1975 §5.6), so an expansion
// that matches both moments gives it exactly, and one that reaches a smaller c² gives that.
#include "gspn/phases.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "io/load_gspn.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

namespace {

using testing::loadGspnText;

/// An M/G/1 queue with arrival rate 0.5, service `delay` (mean 1), truncated at 80
/// customers (the mass beyond is about ρ^80, 1e-24): the exact mean number in system.
double meanInSystem(const std::string& delay, std::uint32_t maxPhases,
                    std::vector<gspn::PhaseExpansion>* report = nullptr) {
  const gspn::Net net = loadGspnText(
      "place q; timed arrive rate 0.5 out q inhibit q * 80;\n"
      "timed serve delay " +
      delay + " in q;\n");
  gspn::PhasedNet phased = gspn::expandPhases(net, maxPhases);
  if (report) *report = phased.expansions;
  auto solved = testing::solve(phased.net, solver::Method::GTH);
  return solved.measures->meanTokens(0);
}

double pollaczekKhinchine(double rho, double cv2) {
  return rho + rho * rho * (1 + cv2) / (2 * (1 - rho));
}

}  // namespace

TEST_CASE("phases: Erlang for low variance, exact when it fits in --max-phases") {
  std::vector<gspn::PhaseExpansion> report;
  // erlang(3, 1): c² = 1/3, three phases reach it exactly.
  CHECK(meanInSystem("erlang(3, 1)", 10, &report) ==
        doctest::Approx(pollaczekKhinchine(0.5, 1.0 / 3)).epsilon(1e-9));
  REQUIRE(report.size() == 1);
  CHECK(report[0].phases == "erlang(3)");
  CHECK(report[0].declaredCv2 == doctest::Approx(1.0 / 3));
  CHECK(report[0].reachedCv2 == doctest::Approx(1.0 / 3));
  // uniform(0, 2): mean 1, c² = 1/3 as well: the same three phases, the same L.
  CHECK(meanInSystem("uniform(0, 2)", 10) ==
        doctest::Approx(pollaczekKhinchine(0.5, 1.0 / 3)).epsilon(1e-9));
  // const(1): c² = 0 needs infinitely many phases; K = 4 reaches c² = 1/4.
  CHECK(meanInSystem("const(1)", 4, &report) ==
        doctest::Approx(pollaczekKhinchine(0.5, 0.25)).epsilon(1e-9));
  CHECK(report[0].phases == "erlang(4)");
  CHECK(report[0].reachedCv2 == doctest::Approx(0.25));
  // With one phase allowed, the delay stays exponential: L of M/M/1.
  CHECK(meanInSystem("const(1)", 1, &report) ==
        doctest::Approx(pollaczekKhinchine(0.5, 1)).epsilon(1e-9));
  CHECK_FALSE(report[0].expanded);
}

TEST_CASE("phases: a balanced two-phase hyperexponential matches high variance exactly") {
  std::vector<gspn::PhaseExpansion> report;
  // lognormal(1, 2): mean 1, c² = 4, not itself a hyperexponential. Its queue decays more
  // slowly, so the truncation at 80 customers costs more than 1e-9 here.
  CHECK(meanInSystem("lognormal(1, 2)", 10, &report) ==
        doctest::Approx(pollaczekKhinchine(0.5, 4)).epsilon(1e-6));
  CHECK(report[0].phases == "hyperexp(2)");
  CHECK(report[0].reachedCv2 == doctest::Approx(4));
}

TEST_CASE("phases: infinite-server executions each get their own phases") {
  // N tokens each hold an Erlang-4 delay of mean 2 at once (infinite server) and come back
  // after an exponential of mean 1 at a single server: the delay station is insensitive,
  // so the throughput is that of the exponential model (closed network with a delay
  // station, BCMP): the same as without phases, to solver accuracy.
  const std::string text =
      "place think = 3; place wait;\n"
      "timed go delay erlang(4, 2) servers infinite in think out wait;\n"
      "timed back rate 1 in wait out think;\n";
  const gspn::Net net = loadGspnText(text);
  gspn::PhasedNet phased = gspn::expandPhases(net, 10);
  REQUIRE(phased.expansions[0].expanded);
  auto plain = testing::solve(net, solver::Method::GTH);
  auto expanded = testing::solve(phased.net, solver::Method::GTH);
  CHECK(expanded.measures->throughput(1) ==
        doctest::Approx(plain.measures->throughput(1)).epsilon(1e-10));
  // The expanded `go` is immediate now, and still has the throughput of the executions.
  CHECK(phased.net.isImmediate(0));
  CHECK(expanded.measures->throughput(0) ==
        doctest::Approx(plain.measures->throughput(0)).epsilon(1e-10));
}

TEST_CASE("phases: a delay whose execution another transition can interrupt is not expanded") {
  const gspn::Net net =
      loadGspnText("place p = 1; timed a delay const(1) in p; timed b rate 1 in p;");
  gspn::PhasedNet phased = gspn::expandPhases(net, 10);
  REQUIRE(phased.expansions.size() == 1);
  CHECK_FALSE(phased.expansions[0].expanded);
  CHECK(phased.expansions[0].phases.find("another transition takes from its input place") !=
        std::string::npos);
}
