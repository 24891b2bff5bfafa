// The Krylov methods of the steady state: GMRES and BiCGSTAB with incomplete-LU
// preconditioners (steady_state_methods.hpp).
#include <Eigen/IterativeLinearSolvers>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>
#include <sstream>
#include <type_traits>
#include <utility>

#include "gspn/progress.hpp"
#include "solver/gmres.hpp"
#include "solver/ilu0.hpp"
#include "solver/steady_state_methods.hpp"

namespace mmt::solver::methods {
namespace {

/// BiCGSTAB's iterations between two residual checks (Eigen's solver reports nothing
/// inside a call, and a restart loses its recurrence: restarted every 50 iterations, its
/// answer on the lumped farm of 512 workers misses the accuracy check at 1e-13); GMRES's restart
/// (its iterations between two), on a chain of at most kIncompleteLutStates states and above, where
/// the basis is memory (31 vectors of 14 MB on EisenbergMcGuire-PT-04, which GMRES(50) also takes
/// longer to solve); and the checks in a row that may pass without halving the residual before each
/// method is given up (1,000 iterations of GMRES(50) and of BiCGSTAB, 600 of GMRES(30)).
constexpr std::size_t kKrylovRound = 1000;
constexpr std::size_t kGmresRestart = 50;
constexpr std::size_t kLargeGmresRestart = 30;
constexpr std::size_t kGmresPatience = 20;
constexpr std::size_t kBicgstabPatience = 1;
constexpr Index kIncompleteLutStates = 1'000'000;

/// The end of a Krylov method's checks: `patience` checks in a row that have not halved
/// the residual, where a check whose iterate is no probability vector (residual infinite)
/// counts as one that has not.
class KrylovWatch {
 public:
  explicit KrylovWatch(std::size_t patience) : patience_(patience) {}
  /// Counts one check; true when the method should stop.
  bool stuck(double residual) {
    if (std::isfinite(residual)) last_ = residual;
    if (std::isfinite(residual) && residual <= 0.5 * mark_) {
      mark_ = residual;
      since_ = 0;
      return false;
    }
    return ++since_ >= patience_;
  }
  /// "METHOD stopped at residual R after N iterations", or that it found no probability
  /// vector.
  std::string note(const std::string& method, std::size_t iterations) const {
    return (std::isfinite(last_) ? method + " stopped at residual " + show(last_)
                                 : method + " found no probability vector") +
           " after " + std::to_string(iterations) + " iterations";
  }

 private:
  const std::size_t patience_;
  double last_ = INFINITY, mark_ = INFINITY;
  std::size_t since_ = 0;
};

/// GMRES or BiCGSTAB with an incomplete-LU preconditioner (ILU(0), solver/ilu0.hpp), through
/// Eigen, on
/// A x = b where A is Qᵀ without the last state's row and column and b_j = −q_{n−1,j}:
/// the balance equations with π_{n−1} fixed to 1 (Stewart §2.3.1.2), non-singular for an
/// irreducible chain. Restarted from its own result while our residual misses the
/// tolerance and the Krylov method still makes progress.

}  // namespace

SteadyStateResult solveKrylov(const Generator& q, const SteadyStateSettings& s, Method method,
                              const Vector& start) {
  const Index n = static_cast<Index>(q.size());
  const Index m = n - 1;
  SteadyStateResult r;
  r.method = method;
  Eigen::SparseMatrix<double, Eigen::RowMajor> a(m, m);
  a.reserve(Eigen::VectorXi::Constant(m, 1) +
            Eigen::Map<const Eigen::VectorXi>(q.offset.data() + 1, m) -
            Eigen::Map<const Eigen::VectorXi>(q.offset.data(), m));
  Vector b = Vector::Zero(m);
  for (Index j = 0; j < m; ++j) {
    bool diagonal = false;
    for (int k = q.offset[j]; k < q.offset[j + 1]; ++k) {
      const Index i = q.source(k);
      if (i == m) {
        b[j] = -q.rate(k);
        continue;
      }
      if (!diagonal && i > j) {
        a.insert(j, j) = -q.exitRate[j];
        diagonal = true;
      }
      a.insert(j, i) = q.rate(k);
    }
    if (!diagonal) a.insert(j, j) = -q.exitRate[j];
  }
  a.makeCompressed();

  Vector x = start.size() == n && start[m] > 0 ? Vector(start.head(m) / start[m]) : Vector::Ones(m);
  auto expand = [&](const Vector& x) {  // (π_0 … π_{n−2}) → (π_0 … π_{n−2}, 1)
    Vector pi(n);
    pi.head(m) = x;
    pi[m] = 1.0;
    return pi;
  };
  auto finish = [&](Status status, std::string note) {
    r.status = status;
    r.note = std::move(note);
    r.pi = expand(x);
    if (!normalise(r.pi)) {
      r.status = Status::NumericalIssue;
      r.note = toString(method) + " produced values that are not probabilities";
      r.pi = Vector();
      return r;
    }
    r.residual = relativeResidual(q, r.pi);
    if (r.status == Status::Converged && r.residual > s.tolerance) r.status = Status::NoConvergence;
    return r;
  };

  // GMRES(restart) of solver/gmres.hpp. Each cycle ends early once our residual,
  // predicted from the rotations' estimate of ‖b − A x‖ times the ratio of the two measured
  // at the end of the previous cycle, is a tenth of the tolerance; every cycle's end is
  // checked with our residual.
  auto gmresWith = [&](const RestartedGmres::Preconditioner& precondition, std::size_t restart) {
    RestartedGmres solver(a, precondition, restart);
    gspn::ProgressLine progress(s.run.progress);
    const double bNorm = b.norm();
    double ratio = NAN;
    KrylovWatch watch(kGmresPatience);
    auto stop = [&](std::size_t k, double estimate) {
      if (s.run.interrupted()) return true;
      const double predicted = ratio * estimate;
      progress.report([&](double) {
        std::ostringstream line;
        line << "solving: GMRES iteration " << r.iterations + k;
        if (std::isfinite(predicted))
          line << ", residual about " << predicted;
        else
          line << ", linear residual " << estimate / bNorm;
        return line.str();
      });
      return predicted <= 0.1 * s.tolerance;
    };
    while (r.iterations < s.maxIterations) {
      if (s.run.interrupted()) return finish(Status::Interrupted, "interrupted");
      const RestartedGmres::Cycle cycle = solver.cycle(b, x, s.maxIterations - r.iterations, stop);
      r.iterations += cycle.iterations;
      if (s.run.interrupted()) return finish(Status::Interrupted, "interrupted");
      if (cycle.brokeDown) return finish(Status::NumericalIssue, "GMRES broke down");
      Vector pi = expand(x);
      double residual = INFINITY;
      if (normalise(pi)) {
        residual = relativeResidual(q, pi);
        progress.report(solvingLine("GMRES", r.iterations, residual));
        if (residual <= s.tolerance) return finish(Status::Converged, "");
        if (cycle.residualEstimate > 0) ratio = residual / cycle.residualEstimate;
      }
      if (watch.stuck(residual) || cycle.iterations == 0) break;
    }
    r.iterationLimit = r.iterations >= s.maxIterations;
    return finish(Status::NoConvergence, watch.note("GMRES", r.iterations));
  };
  // The preconditioner: on a chain of at most kIncompleteLutStates states, Eigen's ILUT
  // (drop tolerance 1e-6, fill factor 8), stronger than ILU(0): with ILU(0) GMRES finds no
  // probability vector on the lumped farm of 512 workers (527,364 states) or on
  // tests/mpi/wide_rates.gspn, and converges with ILUT. Its time is bounded by nothing but
  // the size: on the 1,657,242 states of ParamProductionCell-PT-5 it ran for more than
  // five minutes. Above, and where GMRES fails with ILUT, ILU(0), whose time and memory
  // the nonzeros bound (a second there).
  auto gmres = [&]() {
    const Vector x0 = x;
    SteadyStateResult first;
    if (m <= kIncompleteLutStates) {
      Eigen::IncompleteLUT<double> ilut;
      ilut.setDroptol(1e-6);
      ilut.setFillfactor(8);
      ilut.compute(a);
      if (ilut.info() == Eigen::Success) {
        first =
            gmresWith([&ilut](const Vector& v) { return Vector(ilut.solve(v)); }, kGmresRestart);
        if (first.status == Status::Converged || first.status == Status::Interrupted) return first;
        x = x0;
      }
    }
    IncompleteLU0 ilu;
    ilu.setProgress(s.run.progress);
    ilu.setInterrupt(s.run.interrupt);
    ilu.compute(a);
    if (ilu.interrupted()) return finish(Status::Interrupted, "interrupted");
    if (ilu.info() != Eigen::Success)
      return first.pi.size() == n ? first : finish(Status::NumericalIssue, ilu.note());
    SteadyStateResult second =
        gmresWith([&ilu](const Vector& v) { return ilu.solve(v); }, kLargeGmresRestart);
    if (first.pi.size() == n || !first.note.empty())
      second.note = "with ILUT " + (first.note.empty() ? "GMRES failed" : first.note) +
                    ", switched to ILU(0)" + (second.note.empty() ? "" : "; " + second.note);
    return second;
  };

  auto run = [&](auto& solver) {
    solver.setTolerance(std::max(1e-15, s.tolerance * 1e-3));
    constexpr bool ilu0 =
        std::is_same_v<std::decay_t<decltype(solver.preconditioner())>, IncompleteLU0>;
    if constexpr (ilu0) {
      solver.preconditioner().setProgress(s.run.progress);
      solver.preconditioner().setInterrupt(s.run.interrupt);
    } else {
      solver.preconditioner().setDroptol(1e-6);
      solver.preconditioner().setFillfactor(8);
    }
    solver.compute(a);
    if constexpr (ilu0) {
      if (solver.preconditioner().interrupted()) return finish(Status::Interrupted, "interrupted");
      if (solver.info() != Eigen::Success)
        return finish(Status::NumericalIssue, solver.preconditioner().note());
    } else if (solver.info() != Eigen::Success) {
      return finish(Status::NumericalIssue, "the incomplete LU factorisation (ILUT) failed");
    }
    gspn::ProgressLine progress(s.run.progress);
    // Rounds of kKrylovRound iterations, each checked, reported and followed by the
    // interrupt's poll.
    KrylovWatch watch(kBicgstabPatience);
    while (r.iterations < s.maxIterations) {
      if (s.run.interrupted()) return finish(Status::Interrupted, "interrupted");
      solver.setMaxIterations(
          static_cast<Index>(std::min<std::size_t>(kKrylovRound, s.maxIterations - r.iterations)));
      x = solver.solveWithGuess(b, x);
      r.iterations += static_cast<std::size_t>(solver.iterations());
      if (!x.allFinite()) return finish(Status::NumericalIssue, toString(method) + " broke down");
      Vector pi = expand(x);
      const double residual = normalise(pi) ? relativeResidual(q, pi) : INFINITY;
      if (std::isfinite(residual)) {
        progress.report(solvingLine(toString(method), r.iterations, residual));
        if (residual <= s.tolerance) return finish(Status::Converged, "");
      }
      if (watch.stuck(residual) || solver.iterations() == 0) break;
    }
    r.iterationLimit = r.iterations >= s.maxIterations;
    return finish(Status::NoConvergence, watch.note(toString(method), r.iterations));
  };
  if (method == Method::GMRES) return gmres();
  if (m <= kIncompleteLutStates) {
    Eigen::BiCGSTAB<Eigen::SparseMatrix<double, Eigen::RowMajor>, Eigen::IncompleteLUT<double>>
        bicg;
    return run(bicg);
  }
  Eigen::BiCGSTAB<Eigen::SparseMatrix<double, Eigen::RowMajor>, IncompleteLU0> bicg;
  return run(bicg);
}

}  // namespace mmt::solver::methods
