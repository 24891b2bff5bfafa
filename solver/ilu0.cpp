#include "solver/ilu0.hpp"

#include <cmath>

#include "gspn/progress.hpp"

namespace mmt::solver {

void IncompleteLU0::factorizeInPlace() {
  info_ = Eigen::Success;
  interrupted_ = false;
  note_.clear();
  const int n = static_cast<int>(lu_.rows());
  const int* offset = lu_.outerIndexPtr();
  const int* column = lu_.innerIndexPtr();
  double* value = lu_.valuePtr();
  diagonal_.assign(static_cast<std::size_t>(n), -1);
  // where[j]: the position of row i's entry in column j, or −1 (reset after each row).
  std::vector<int> where(static_cast<std::size_t>(n), -1);
  gspn::ProgressLine progress(progress_);
  for (int i = 0; i < n; ++i) {
    if ((i & 0xfff) == 0 && interrupt_ && interrupt_->load(std::memory_order_relaxed)) {
      info_ = Eigen::NumericalIssue;
      interrupted_ = true;
      note_ = "interrupted";
      return;
    }
    progress.tick(static_cast<std::uint64_t>(i), [&](double) {
      return "factorising the ILU(0) preconditioner: row " + std::to_string(i) + " of " +
             std::to_string(n);
    });
    for (int p = offset[i]; p < offset[i + 1]; ++p) where[static_cast<std::size_t>(column[p])] = p;
    int p = offset[i];
    for (; p < offset[i + 1] && column[p] < i; ++p) {
      const int k = column[p];
      const int kk = diagonal_[static_cast<std::size_t>(k)];
      value[p] /= value[kk];  // l_ik = a_ik / u_kk
      const double l = value[p];
      for (int q = kk + 1; q < offset[k + 1]; ++q) {
        const int at = where[static_cast<std::size_t>(column[q])];
        if (at >= 0) value[at] -= l * value[q];  // a_ij −= l_ik u_kj, on A's pattern only
      }
    }
    if (p == offset[i + 1] || column[p] != i || value[p] == 0 || !std::isfinite(value[p])) {
      info_ = Eigen::NumericalIssue;
      note_ = "the ILU(0) factorisation met a zero pivot in row " + std::to_string(i);
      return;
    }
    diagonal_[static_cast<std::size_t>(i)] = p;
    for (int q = offset[i]; q < offset[i + 1]; ++q) where[static_cast<std::size_t>(column[q])] = -1;
  }
}

void IncompleteLU0::substitute(Eigen::VectorXd& x) const {
  const int n = static_cast<int>(lu_.rows());
  const int* offset = lu_.outerIndexPtr();
  const int* column = lu_.innerIndexPtr();
  const double* value = lu_.valuePtr();
  for (int i = 0; i < n; ++i) {  // L y = b, L unit lower triangular
    double sum = x[i];
    for (int p = offset[i]; p < diagonal_[static_cast<std::size_t>(i)]; ++p)
      sum -= value[p] * x[column[p]];
    x[i] = sum;
  }
  for (int i = n - 1; i >= 0; --i) {  // U x = y
    const int d = diagonal_[static_cast<std::size_t>(i)];
    double sum = x[i];
    for (int p = d + 1; p < offset[i + 1]; ++p) sum -= value[p] * x[column[p]];
    x[i] = sum / value[d];
  }
}

}  // namespace mmt::solver
