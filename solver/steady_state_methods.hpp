#pragma once
/// \file
/// The methods of solveSteadyState (solver/steady_state.hpp) by family, and what they share:
/// the direct methods (steady_state_direct.cpp: GTH, sparse LU), the relaxations
/// (steady_state_relaxation.cpp: Gauss–Seidel, SOR, IAD, the power method and the accuracy
/// check's correction), the Krylov methods (steady_state_krylov.cpp: GMRES, BiCGSTAB), and
/// auto with the interface (steady_state.cpp). Internal to those files: the solver's
/// interface is steady_state.hpp.

#include <Eigen/Core>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "solver/accuracy.hpp"
#include "solver/ctmc.hpp"
#include "solver/steady_state.hpp"

namespace mmt::solver::methods {

using Vector = Eigen::VectorXd;
using Index = Eigen::Index;
using Clock = std::chrono::steady_clock;

/// Loops over fewer states run on one thread: a parallel region costs a barrier, and
/// when the cores are busy (sweeps and tests solving in parallel, another process)
/// OpenMP's spinning threads wait for descheduled ones. Measured: the differential test
/// of tests/solver/accuracy.cpp (chains of a few hundred states) took 4 min instead of
/// 2 s beside one busy core.
constexpr Index kParallelStates = 50'000;

/// `r` as an interrupted result: status Interrupted, note "interrupted".
SteadyStateResult interruptedResult(SteadyStateResult r);
/// A residual in a note: six significant digits ("3.2e-12", where std::to_string would
/// print "0.000000").
std::string show(double x);
/// "solving: METHOD iteration N, residual R", the line of an iterative method's progress.
inline auto solvingLine(const std::string& method, std::size_t iteration, double residual) {
  return [=](double) {
    std::ostringstream line;
    line << "solving: " << method << " iteration " << iteration << ", residual " << residual;
    return line.str();
  };
}
/// x rounded to tenths: the relaxation factor moves in steps of 0.1, and a note should say
/// 1.2, not 1.2000000000000002.
inline double tenths(double x) { return std::round(10 * x) / 10; }
/// Normalises x to a probability vector; false when it cannot be one (non-finite values,
/// a zero sum, or negative entries beyond round-off, below −1e-9 of the sum). Two passes
/// over x where no entry is negative (the iterates of the sweeps), each on every core;
/// negative entries within round-off are set to 0 and the rest normalised again.
bool normalise(Vector& x);

/// Watches an iterative method's residual checks: no lower residual than its lowest in
/// kPatience checks in a row means the method does not converge on this chain (iterates
/// that cycle keep one residual for ever: SOR at 1.5 on Kanban) or has reached the floor
/// that rounding sets, and the rest of --max-iterations would change nothing.
class ProgressWatch {
 public:
  static constexpr std::size_t kPatience = 50;
  /// Counts one check; true once kPatience checks in a row have not lowered the residual.
  bool stuck(double residual) {
    if (residual < lowest_) {
      lowest_ = residual;
      since_ = 0;
      return false;
    }
    return ++since_ >= kPatience;
  }
  /// "METHOD made no progress: ..." for a result's note; `every` steps (UNIT) a check.
  std::string note(const std::string& method, std::size_t every, const std::string& unit) const {
    return method + " made no progress: its residual has not fallen below " + show(lowest_) +
           " in the last " + std::to_string(kPatience * every) + " " + unit;
  }

 private:
  double lowest_ = INFINITY;
  std::size_t since_ = 0;
};

// ---- the direct methods (steady_state_direct.cpp)

/// Sparse LU on Qᵀ πᵀ = 0 with its last equation replaced by Σ π = 1 (Stewart §2.3.1).
SteadyStateResult solveLU(const Generator& q);
/// GTH (solver/gth.hpp) on chains of at most 10,000 states; NumericalIssue beyond.
SteadyStateResult solveGTH(const Generator& q);

// ---- the relaxations (steady_state_relaxation.cpp)

/// Gauss–Seidel, SOR or IAD sweeps (the Relaxation class there says each option).
SteadyStateResult solveRelaxation(const Generator& q, const SteadyStateSettings& s, Method method,
                                  bool stallCheck, Vector start = {},
                                  const BlockPartition* levels = nullptr,
                                  double trialRelaxation = 0, double startResidual = 0);
/// Power method on the uniformised chain (Stewart §3.1).
SteadyStateResult solvePower(const Generator& q, const SteadyStateSettings& s);

/// A partition of the states by the levels of one place, for IAD.
struct LevelCandidate {
  std::string place;
  BlockPartition partition;
  double crossFraction = 0;  ///< share of the chain's total rate between levels
};
/// The places whose levels IAD tries, best first, at most `limit`.
std::vector<LevelCandidate> levelCandidates(const Generator& q, const LevelSource& source,
                                            std::size_t limit = 3);
/// "over the levels of place sm (1024 levels)"
std::string levelsNote(const LevelCandidate& c);
/// Method::IAD on its own: the best candidate place, or NumericalIssue saying why none.
SteadyStateResult solveIAD(const Generator& q, const SteadyStateSettings& s);

/// The accuracy check of solver/accuracy.hpp on a converged result, with its correction
/// (aggregation–disaggregation where a block is out of balance, then Gauss–Seidel sweeps);
/// a small chain that still fails is solved again by GTH, a larger one becomes Inaccurate.
void checkAccuracy(const Generator& q, const SteadyStateSettings& s, SteadyStateResult& r);

/// The checks Auto's IAD has to lower the residual of its start tenfold. Where the levels
/// carry the slow modes it does so at once (the tandem queue, c = 1023: from Gauss–Seidel's
/// stall to the tolerance in 50 sweeps); where they do not, it sweeps no faster than
/// Gauss–Seidel (EisenbergMcGuire-PT-04: 1.6e-6 to 1.4e-6 in 60 sweeps, three places).
constexpr std::size_t kAggregationTrialChecks = 2;

// ---- the Krylov methods (steady_state_krylov.cpp)

/// GMRES or BiCGSTAB with an incomplete-LU preconditioner, from `start` when given.
SteadyStateResult solveKrylov(const Generator& q, const SteadyStateSettings& s, Method method,
                              const Vector& start = {});

}  // namespace mmt::solver::methods
