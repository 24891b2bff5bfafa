#pragma once
/// \file
/// Steady-state distribution π of an irreducible CTMC: π Q = 0, Σ π = 1.
/// Methods from W. J. Stewart, "Introduction to the Numerical Solution of Markov Chains",
/// Princeton 1994: direct solution with one equation replaced by the normalisation
/// (§2.3); the subtraction-free GTH elimination (§2.7, solver/gth.hpp); the power method on the
/// uniformised chain (§3.1); Gauss–Seidel and SOR (§3.2, §3.3); and Krylov subspace methods, GMRES
/// and BiCGSTAB, with an incomplete LU preconditioner (§4.2–4.4), on the non-singular system
/// obtained by fixing the probability of the last state (§2.3.1.2); and Gauss–Seidel accelerated by
/// iterative aggregation–disaggregation over the levels of one place (Koury, McAllister and Stewart
/// 1984; Stewart §6.3), for chains whose slow modes run along one place's token count.

#include <Eigen/Core>
#include <atomic>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "gspn/run_control.hpp"
#include "solver/accuracy.hpp"
#include "solver/ctmc.hpp"

namespace mmt::solver {

enum class Method { Auto, GTH, LU, GaussSeidel, SOR, Power, BiCGSTAB, GMRES, IAD };

std::string toString(Method m);
/// Every method's name, Auto first, in the order of the enum (for command lines).
std::vector<std::string> methodNames();
/// The method named by toString(m); throws std::invalid_argument for other names.
Method parseMethod(const std::string& name);

/// The states of a chain grouped by the token count of one place of its net: the
/// partitions Method::IAD aggregates over. Implemented over a reachability graph by
/// solver/pipeline.cpp; a bare generator has none.
class LevelSource {
 public:
  virtual ~LevelSource() = default;
  virtual std::string placeName(std::size_t place) const = 0;
  /// Per place, max − min + 1 of its token count over the states (one pass over them).
  virtual std::vector<std::uint64_t> spans() const = 0;
  /// Block of each state (generator order): the rank of its token count in `place`
  /// among the distinct counts, so block 0 holds the fewest tokens.
  virtual BlockPartition levels(std::size_t place) const = 0;
};

struct SteadyStateSettings {
  /// Auto: GTH up to `directLimit` states; above, Gauss–Seidel; where it stalls,
  /// aggregation–disaggregation over the levels of a place (IAD, when `levels` is given),
  /// then GMRES with ILU, then BiCGSTAB, then sparse LU on a chain of at most 10,000
  /// states; each fallback is recorded in the result's note.
  Method method = Method::Auto;
  /// Convergence: the relative residual ‖πQ‖∞ / max_i |q_ii| ≤ tolerance (default 1e-10),
  /// with π normalised to Σπ = 1. Checked on the final vector for every method. Gauss–Seidel,
  /// SOR and IAD also go on until their estimate of ‖π − π*‖₁ (SteadyStateResult::
  /// errorEstimate) is at most 10 times the tolerance, or their residual stops falling. Then the
  /// accuracy check of solver/accuracy.hpp must hold too: the weighted flow imbalance of
  /// every state and every nearly-decomposable block at most the tolerance, reached by
  /// aggregation–disaggregation where the method alone misses it.
  double tolerance = 1e-10;
  /// Iterations (sweeps, products) before giving up with NoConvergence (default 100000).
  std::size_t maxIterations = 100'000;
  /// SOR relaxation factor ω in (0, 2); 0 picks one adaptively.
  double relaxation = 0;
  /// Gauss–Seidel and SOR extrapolate along the slowest mode where the residual falls at
  /// a steady rate (docs/modelling.md, "Solution"); false sweeps without it.
  bool extrapolate = true;
  /// Gauss–Seidel, SOR and IAD sweep chains of at least this many states as two blocks
  /// at once, on two cores (Gauss–Seidel within each block, the other block's values from
  /// the previous sweep); 0: never. The result does not depend on the thread count.
  std::size_t blockSweepStates = 100'000;
  /// Iterative methods print their residual to `run.progress` about once a second, and stop
  /// with Interrupted soon after `run.interrupt` becomes true (checked at every sweep, step
  /// or restart).
  RunControl run;
  /// Largest chain solved by GTH under Auto, and solved again by GTH when another
  /// method's result fails the accuracy check (default 1000 states: GTH is dense, 8 MB
  /// and about 0.1 s there; beyond, Gauss–Seidel is faster on every benchmark net).
  std::size_t directLimit = 1'000;
  /// The place levels IAD may aggregate over (not owned; null: IAD is not available).
  const LevelSource* levels = nullptr;
  /// The number a note gives the generator's state i, e.g. its id in the reachability
  /// graph (not owned; null: i itself).
  const StateNumber* stateNumber = nullptr;
};

enum class Status {
  Converged,       ///< the residual and the accuracy check both hold
  NoConvergence,   ///< the residual missed the tolerance within the iterations allowed
  NumericalIssue,  ///< the method broke down (not a probability vector, a failed factorisation)
  Inaccurate,      ///< the residual holds but the accuracy check fails and could not be corrected
  Interrupted      ///< SteadyStateSettings::interrupt was set
};

struct SteadyStateResult {
  Status status = Status::NumericalIssue;
  Method method = Method::LU;  ///< the method that produced `pi`
  std::size_t iterations = 0;  ///< sweeps or Krylov iterations; 1 for LU
  /// NoConvergence because the iterations allowed (SteadyStateSettings::maxIterations)
  /// ran out, where more might converge; false when the method stopped on its own (no
  /// progress, a stall, a breakdown).
  bool iterationLimit = false;
  double residual = 0;  ///< ‖πQ‖∞ / max_i |q_ii| of the returned π
  /// Gauss–Seidel and SOR: the estimate of ‖π − π*‖₁ they stopped on (0 where none).
  double errorEstimate = 0;
  /// Worst weighted flow imbalance of the returned π over single states and blocks
  /// (solver/accuracy.hpp); at most the tolerance when Converged.
  double imbalance = 0;
  /// Aggregation–disaggregation steps the accuracy check needed (0 for most chains).
  std::size_t aggregations = 0;
  /// The relaxation factor SOR ended with (1 for the other methods): the accuracy check's
  /// correction sweeps use it too.
  double relaxation = 1;
  double seconds = 0;
  Eigen::VectorXd pi;  ///< n probabilities summing to 1
  std::string note;    ///< e.g. why Auto fell back to another method
};

/// Relative residual ‖πQ‖∞ / max_i |q_ii| (0 for a one-state chain).
double relativeResidual(const Generator& q, const Eigen::VectorXd& pi);

/// Solves π Q = 0 with the method chosen in `settings`. Never throws for numerical
/// trouble: the status says what happened and `residual` how far π is from a solution.
SteadyStateResult solveSteadyState(const Generator& q, const SteadyStateSettings& settings);

}  // namespace mmt::solver
