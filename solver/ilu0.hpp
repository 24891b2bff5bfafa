#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <atomic>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace mmt::solver {

/// The incomplete LU factorisation with no fill, ILU(0), of a square sparse matrix A:
/// A ≈ L U with L unit lower triangular and U upper triangular, both on A's own pattern
/// (Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed., 2003, §10.3.2,
/// Algorithm 10.4, the IKJ variant row by row). It exists and is stable for a non-singular
/// M-matrix (Meijerink, van der Vorst, Math. Comp. 31, 1977), which is what the balance
/// equations with one state's probability fixed are (the negated transposed generator of
/// an irreducible chain without one state's row and column, Stewart §2.3.1.2).
///
/// Its cost is bounded by the pattern: Σ over the entries a_ik below the diagonal of the
/// entries of row k right of its diagonal, and its memory is one copy of A. Eigen's ILUT
/// has neither bound: on the Model Checking Contest's ParamProductionCell-PT-5 (1,657,242
/// states) its factorisation ran for more than five minutes.
///
/// An Eigen preconditioner (the interface of Eigen::IncompleteLUT: compute, info, solve),
/// for Eigen::BiCGSTAB and, through its solve, solver/gmres.hpp. The factorisation reports its
/// progress to `setProgress`'s stream and stops, with info() NumericalIssue and interrupted() true,
/// when `setInterrupt`'s flag is set.
class IncompleteLU0 {
 public:
  using Matrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

  IncompleteLU0() = default;

  /// Where the factorisation prints its progress (null: nowhere).
  void setProgress(std::ostream* progress) { progress_ = progress; }
  /// A flag polled while factorising; when set, the factorisation stops.
  void setInterrupt(const std::atomic<bool>* interrupt) { interrupt_ = interrupt; }

  template <typename MatrixType>
  IncompleteLU0& analyzePattern(const MatrixType&) {
    return *this;
  }
  /// Factorises A (square; entries of each row in increasing column order, as a
  /// compressed Eigen matrix holds them). info() is NumericalIssue when a pivot is zero or
  /// not finite (note() says which row), or when interrupted.
  template <typename MatrixType>
  IncompleteLU0& factorize(const MatrixType& a) {
    lu_ = a;
    lu_.makeCompressed();
    factorizeInPlace();
    return *this;
  }
  template <typename MatrixType>
  IncompleteLU0& compute(const MatrixType& a) {
    return factorize(a);
  }

  /// (L U)⁻¹ b by a forward and a backward substitution; b has A's size.
  template <typename Rhs>
  Eigen::VectorXd solve(const Rhs& b) const {
    Eigen::VectorXd x = b;
    substitute(x);
    return x;
  }

  Eigen::ComputationInfo info() const { return info_; }
  bool interrupted() const { return interrupted_; }
  /// Why the factorisation failed ("" when it did not).
  const std::string& note() const { return note_; }

 private:
  void factorizeInPlace();
  void substitute(Eigen::VectorXd& x) const;

  Matrix lu_;                  ///< L below the diagonal (unit diagonal implied), U on and above
  std::vector<int> diagonal_;  ///< each row's position of its diagonal entry in lu_
  std::ostream* progress_ = nullptr;
  const std::atomic<bool>* interrupt_ = nullptr;
  Eigen::ComputationInfo info_ = Eigen::Success;
  bool interrupted_ = false;
  std::string note_;
};

}  // namespace mmt::solver
