#pragma once
/// \file
/// Steady-state distribution π of an irreducible CTMC: π Q = 0, Σ π = 1.
/// Methods from W. J. Stewart, "Introduction to the Numerical Solution of Markov Chains",
/// Princeton 1994: direct solution with one equation replaced by the normalisation
/// (§2.3); the power method on the uniformised chain (§3.1); Gauss–Seidel and SOR (§3.2,
/// §3.3); and Krylov subspace methods, GMRES and BiCGSTAB, with an incomplete LU
/// preconditioner (§4.2–4.4), on the non-singular system obtained by fixing the
/// probability of the last state (§2.3.1.2).

#include <cstddef>
#include <iosfwd>
#include <string>

#include <Eigen/Core>

#include "solver/ctmc.hpp"

namespace mmt::solver {

enum class Method { Auto, LU, GaussSeidel, SOR, Power, BiCGSTAB, GMRES };

std::string toString(Method m);
/// The method named by toString(m); throws std::invalid_argument for other names.
Method parseMethod(const std::string& name);

struct SteadyStateSettings {
  /// Auto: LU up to `directLimit` states; above, Gauss–Seidel, then GMRES with ILU if
  /// Gauss–Seidel stalls, then BiCGSTAB; each fallback is recorded in the result's note.
  Method method = Method::Auto;
  /// Convergence: the relative residual ‖πQ‖∞ / max_i |q_ii| ≤ tolerance (default 1e-10),
  /// with π normalised to Σπ = 1. Checked on the final vector for every method.
  double tolerance = 1e-10;
  /// Iterations (sweeps, products) before giving up with NoConvergence (default 100000).
  std::size_t maxIterations = 100'000;
  /// SOR relaxation factor ω in (0, 2); 0 picks one adaptively.
  double relaxation = 0;
  /// When set, iterative methods print their residual here about once a second.
  std::ostream* progress = nullptr;
  /// Largest chain solved by LU under Auto (default 1000 states: beyond, LU's fill-in
  /// costs more than Gauss–Seidel on every benchmark net; FMS N = 3 with 6,520 states
  /// takes 6.6 s and 273 MB by LU, 4 ms by Gauss–Seidel).
  std::size_t directLimit = 1'000;
};

enum class Status { Converged, NoConvergence, NumericalIssue };

struct SteadyStateResult {
  Status status = Status::NumericalIssue;
  Method method = Method::LU;  ///< the method that produced `pi`
  std::size_t iterations = 0;  ///< sweeps or Krylov iterations; 1 for LU
  double residual = 0;         ///< ‖πQ‖∞ / max_i |q_ii| of the returned π
  double seconds = 0;
  Eigen::VectorXd pi;          ///< n probabilities summing to 1
  std::string note;            ///< e.g. why Auto fell back to another method
};

/// Relative residual ‖πQ‖∞ / max_i |q_ii| (0 for a one-state chain).
double relativeResidual(const Generator& q, const Eigen::VectorXd& pi);

/// Solves π Q = 0 with the method chosen in `settings`. Never throws for numerical
/// trouble: the status says what happened and `residual` how far π is from a solution.
SteadyStateResult solveSteadyState(const Generator& q, const SteadyStateSettings& settings);

}  // namespace mmt::solver
