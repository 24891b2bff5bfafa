#pragma once
/// \file
/// Restarted GMRES with right preconditioning, for the balance equations of large chains.

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <cstddef>
#include <functional>

namespace mmt::solver {

/// GMRES(m) with right preconditioning: A M⁻¹ u = b, x = M⁻¹ u (Saad, "Iterative Methods
/// for Sparse Linear Systems", 2nd ed., 2003, §9.3.2, Algorithm 9.5), the Arnoldi basis
/// orthogonalised by classical Gram–Schmidt applied twice (Giraud, Langou, Rozložník,
/// "The loss of orthogonality in the Gram–Schmidt orthogonalization process", Comput. Math.
/// Appl. 50, 2005: twice is enough), the least-squares problem by Givens rotations
/// (Saad §6.5.3). Right preconditioning makes the rotations' running estimate |γ_{k+1}| the
/// residual ‖b − A x_k‖₂ of the unpreconditioned system, the quantity a caller can relate
/// to its own measure of error.
///
/// Memory: m + 1 vectors of A's size (the basis) besides A and M. Each iteration costs a
/// product with A, a solve with M and four passes over the basis so far; the passes run on
/// every core in 64 fixed row blocks whose partial sums are added in block order, so the
/// result does not depend on the number of threads.
///
/// Eigen::GMRES, which this replaces, orthogonalises by Householder reflections on one
/// core (twice the passes) and keeps an n × (m + 1) dense Hessenberg matrix; on the
/// Model Checking Contest's EisenbergMcGuire-PT-04 (1,762,378 states) 50 of its iterations
/// took 27 s.
class RestartedGmres {
 public:
  using Matrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

  /// z = M⁻¹ v for the preconditioner M ≈ A (v and z have A's size).
  using Preconditioner = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;

  /// A (square, compressed) and its preconditioner; A must outlive the object. `restart`
  /// is m, the iterations of one cycle.
  RestartedGmres(const Matrix& a, Preconditioner m, std::size_t restart);

  /// What one cycle ended with: its iterations, and ‖b − A x‖₂ at its end as the rotations
  /// estimate it (exact in exact arithmetic).
  struct Cycle {
    std::size_t iterations = 0;
    double residualEstimate = 0;
    bool brokeDown = false;  ///< a non-finite value appeared (x is left unchanged)
  };

  /// One cycle from x (updated in place) on A x = b: at most min(m, limit) iterations;
  /// `stop(k, estimate)` is called after the k-th with the estimate of ‖b − A x_k‖₂ and
  /// ends the cycle when it returns true (for a tolerance, progress and interrupts).
  Cycle cycle(const Eigen::VectorXd& b, Eigen::VectorXd& x, std::size_t limit,
              const std::function<bool(std::size_t, double)>& stop);

  /// ‖b − A x‖₂, computed.
  double residualNorm(const Eigen::VectorXd& b, const Eigen::VectorXd& x) const;

 private:
  void multiply(const double* x, double* y) const;  // y = A x, on every core

  const Matrix& a_;
  const Preconditioner m_;
  const std::size_t restart_;
  Eigen::MatrixXd basis_;  ///< n × (m + 1): v_1 … v_{m+1}, column-major
};

}  // namespace mmt::solver
