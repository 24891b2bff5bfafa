#include "solver/steady_state.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "solver/accuracy.hpp"
#include "solver/steady_state_methods.hpp"
#include "solver/subnormals.hpp"

namespace mmt::solver {
namespace methods {

SteadyStateResult interruptedResult(SteadyStateResult r) {
  r.status = Status::Interrupted;
  r.note = "interrupted";
  return r;
}

/// A residual in a note: six significant digits ("3.2e-12", where std::to_string would
/// print "0.000000").
std::string show(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

namespace {

/// The sum of a vector, its least entry and whether every entry is finite.
struct VectorTotals {
  double sum = 0;
  double least = INFINITY;
  bool finite = true;
};

/// The totals of x in one pass on every core: summed in 64 consecutive chunks whose sums
/// are added in chunk order, so the bits do not depend on the thread count.
VectorTotals totals(const Vector& x) {
  constexpr Index kChunks = 64;
  const Index n = x.size();
  VectorTotals chunk[kChunks];
#pragma omp parallel for schedule(static) if (n >= kParallelStates)
  for (Index c = 0; c < kChunks; ++c) {
    double sum = 0, least = INFINITY;
    bool finite = true;
    for (Index j = n * c / kChunks; j < n * (c + 1) / kChunks; ++j) {
      sum += x[j];
      least = std::min(least, x[j]);
      finite = finite && std::isfinite(x[j]);
    }
    chunk[c] = {sum, least, finite};
  }
  VectorTotals t;
  for (const VectorTotals& c : chunk) {
    t.sum += c.sum;
    t.least = std::min(t.least, c.least);
    t.finite = t.finite && c.finite;
  }
  return t;
}

/// x_j ← max(x_j, 0) / sum on every core.
void divideClamped(Vector& x, double sum) {
  const Index n = x.size();
  double* v = x.data();
#pragma omp parallel for schedule(static) if (n >= kParallelStates)
  for (Index j = 0; j < n; ++j) v[j] = std::max(v[j], 0.0) / sum;
}

}  // namespace

/// Normalises x to a probability vector; false when it cannot be one (non-finite values,
/// a zero sum, or negative entries beyond round-off, below −1e-9 of the sum). Two passes
/// over x where no entry is negative (the iterates of the sweeps), each on every core;
/// negative entries within round-off are set to 0 and the rest normalised again.
bool normalise(Vector& x) {
  const VectorTotals t = totals(x);
  if (!t.finite || !(t.sum > 0) || t.least / t.sum < -1e-9) return false;
  divideClamped(x, t.sum);
  if (t.least < 0) divideClamped(x, totals(x).sum);
  return true;
}

}  // namespace methods

namespace {

using namespace methods;

SteadyStateResult solveWith(Method method, const Generator& q, const SteadyStateSettings& s) {
  switch (method) {
    case Method::GTH:
      return solveGTH(q);
    case Method::LU:
      return solveLU(q);
    case Method::GaussSeidel:
      return solveRelaxation(q, s, Method::GaussSeidel, false);
    case Method::SOR:
      return solveRelaxation(q, s, Method::SOR, false);
    case Method::Power:
      return solvePower(q, s);
    case Method::BiCGSTAB:
      return solveKrylov(q, s, Method::BiCGSTAB);
    case Method::GMRES:
      return solveKrylov(q, s, Method::GMRES);
    case Method::IAD:
      return solveIAD(q, s);
    case Method::Auto:
      break;
  }
  throw std::logic_error("solveWith: Auto");
}

/// The relaxation factor Auto tries once Gauss–Seidel's rate has settled.
/// Kanban's generators converge fastest near it (N = 5: 200 sweeps at ω = 1, 140 at 1.1,
/// 80 at 1.2; N = 6: 260, 180, 100) and diverge at 1.3; FMS, the ring and the tandem
/// queue diverge or stall at 1.1 already, so it is a trial, not a default.
constexpr double kTrialRelaxation = 1.2;

/// The largest chain Auto factors by sparse LU when every iterative method has failed: the
/// fill of a two-dimensional chain grows fast (Kanban N = 3, 58,400 states, runs for minutes).
constexpr std::size_t kDirectFallbackStates = 10'000;

/// Auto: GTH for small chains (accurate whatever the conditioning); otherwise Gauss–Seidel
/// until it converges or stalls, then IAD over the levels of each candidate place (the
/// tandem queue, c = 1023: 2,350 Gauss–Seidel sweeps, 50 with IAD over queue 2's levels),
/// each dropped unless it lowers its start's residual tenfold in kAggregationTrialChecks
/// checks, then GMRES/ILU(0) from the best iterate so far (on the tandem queue, c = 255, GMRES
/// converges from there where BiCGSTAB breaks down), then BiCGSTAB/ILU, then on a chain of at most
/// kDirectFallbackStates states sparse LU. Every switch is noted. An
/// answer is taken once it has passed the accuracy check (checkAccuracy); one that converges but
/// fails it hands its iterate to the next method.
SteadyStateResult solveAuto(const Generator& q, const SteadyStateSettings& s) {
  // A method's answer is taken once it converges and passes the accuracy check (corrected
  // there where it can be); one that fails the check hands its iterate to the next method.
  auto accepted = [&](SteadyStateResult& r) {
    if (r.status == Status::Converged) checkAccuracy(q, s, r);
    return r.status == Status::Converged || r.status == Status::Interrupted;
  };
  std::string notes;
  auto note = [&](const SteadyStateResult& r, const std::string& next) {
    notes += (notes.empty() ? "" : "; ") +
             (r.note.empty() ? toString(r.method) + " failed" : r.note) + ", switched to " + next;
  };
  auto done = [&](SteadyStateResult r) {
    if (!notes.empty()) r.note = notes + (r.note.empty() ? "" : "; " + r.note);
    return r;
  };
  if (q.size() <= s.directLimit) {
    SteadyStateResult r = solveGTH(q);
    if (r.status == Status::Converged && r.residual > s.tolerance) {
      r.status = Status::NumericalIssue;
      r.note = "GTH result misses the tolerance (residual " + show(r.residual) + ")";
    }
    if (accepted(r)) return r;
    note(r, "Gauss-Seidel");
  }
  // Gauss–Seidel with one trial of SOR at kTrialRelaxation, not the adaptive SOR of
  // `sor`: the adaptive factor cuts Kanban N = 5 from 200 sweeps to 120 but takes N = 6
  // from 260 to 300 (it settles at 1.1), and its adaptation delays the stall rule on the
  // tandem queue (280 sweeps instead of 60 before switching to iad).
  SteadyStateResult last =
      solveRelaxation(q, s, Method::GaussSeidel, true, {}, nullptr, kTrialRelaxation);
  if (accepted(last)) return done(std::move(last));
  std::size_t spent = last.iterations;
  // The iterate the next method starts from: the one with the smallest residual so far.
  Vector start = last.pi;
  double startResidual = last.residual;
  if (s.levels) {
    for (const LevelCandidate& c : levelCandidates(q, *s.levels)) {
      note(last, "iad " + levelsNote(c));
      // A start within the tolerance is an answer the accuracy check refused: IAD's first
      // steps raise its residual while they restore the flows (the farm of 512 workers),
      // and it is not judged by the residual.
      last = solveRelaxation(q, s, Method::IAD, true, start, &c.partition, 0,
                             startResidual > s.tolerance ? startResidual : 0);
      spent = last.iterations += spent;
      if (accepted(last)) return done(std::move(last));
      if (last.pi.size() == start.size() && last.residual < startResidual) {
        start = last.pi;
        startResidual = last.residual;
      }
    }
  }
  note(last, "GMRES with ILU");
  SteadyStateResult gmres = solveKrylov(q, s, Method::GMRES, start);
  gmres.iterations += spent;
  if (accepted(gmres)) return done(std::move(gmres));
  note(gmres, "BiCGSTAB with ILU");
  SteadyStateResult bicg = solveKrylov(q, s, Method::BiCGSTAB, start);
  bicg.iterations += gmres.iterations;
  if (accepted(bicg) || q.size() > kDirectFallbackStates) return done(std::move(bicg));
  // The iterative methods fail where π spans more decades than a double holds (the
  // machine repairman at N = 3,072, a birth-death chain: some 540); a chain this small is
  // cheap to factor.
  note(bicg, "LU");
  SteadyStateResult lu = solveLU(q);
  lu.iterations += bicg.iterations;
  accepted(lu);
  return done(std::move(lu));
}

/// Every method with its command-line name, once, in the order --help lists them.
constexpr std::pair<Method, const char*> kMethods[] = {{Method::Auto, "auto"},
                                                       {Method::GTH, "gth"},
                                                       {Method::LU, "lu"},
                                                       {Method::GaussSeidel, "gauss-seidel"},
                                                       {Method::SOR, "sor"},
                                                       {Method::Power, "power"},
                                                       {Method::BiCGSTAB, "bicgstab"},
                                                       {Method::GMRES, "gmres"},
                                                       {Method::IAD, "iad"}};

}  // namespace

std::string toString(Method m) {
  for (const auto& [method, name] : kMethods)
    if (method == m) return name;
  return "?";
}

std::vector<std::string> methodNames() {
  std::vector<std::string> names;
  for (const auto& [method, name] : kMethods) names.push_back(name);
  return names;
}

Method parseMethod(const std::string& name) {
  for (const auto& [method, text] : kMethods)
    if (text == name) return method;
  throw std::invalid_argument("unknown steady-state method '" + name + "'");
}

double relativeResidual(const Generator& q, const Eigen::VectorXd& pi) {
  const double scale = q.exitRate.largest();
  if (scale == 0.0) return 0.0;
  const Index n = static_cast<Index>(q.size());
  const double* x = pi.data();
  double worst = 0;
#pragma omp parallel for reduction(max : worst) schedule(static) if (n >= kParallelStates)
  for (Index j = 0; j < n; ++j)
    worst = std::max(worst, std::abs(q.inflow(j, x) - x[j] * q.exitRate[j]));
  return worst / scale;
}

SteadyStateResult solveSteadyState(const Generator& q, const SteadyStateSettings& settings) {
  const auto start = Clock::now();
  const FlushSubnormals flush;
  SteadyStateResult r;
  if (q.size() == 1) {
    r.status = Status::Converged;
    r.method = settings.method == Method::Auto ? Method::GTH : settings.method;
    r.iterations = 1;
    r.pi = Vector::Ones(1);
  } else if (settings.method == Method::Auto) {
    r = solveAuto(q, settings);
  } else {
    r = solveWith(settings.method, q, settings);  // every method sets its residual
    if (r.status == Status::Converged && r.residual > settings.tolerance) {
      r.status = Status::NumericalIssue;
      r.note = toString(r.method) + " result misses the tolerance";
    }
  }
  // Auto has checked each answer it tried.
  if (settings.method != Method::Auto && r.status == Status::Converged && q.size() > 1)
    checkAccuracy(q, settings, r);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

}  // namespace mmt::solver
