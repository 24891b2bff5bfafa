#pragma once
/// \file
/// The Grassmann–Taksar–Heyman (GTH) algorithm for the steady state of a small CTMC:
/// W. K. Grassmann, M. I. Taksar, D. P. Heyman, "Regenerative analysis and steady state
/// distributions for Markov chains", Operations Research 33(5), 1985; Stewart 1994 §2.7.
///
/// GTH eliminates states one at a time (state reduction, or censoring) and never
/// subtracts: the rate out of the state being eliminated is the sum of its off-diagonal
/// rates, not the diagonal. Every operation combines non-negative numbers, so each
/// probability comes out with a small *relative* error whatever the chain's conditioning
/// (C. A. O'Cinneide, "Entrywise perturbation theory and error analysis for Markov
/// chains", Numer. Math. 65, 1993). That is what nearly completely decomposable chains
/// need, where a solver that subtracts (LU) or stops on a residual (iterative methods)
/// loses the slow flow between blocks. The cost is dense: n² numbers and n³/3
/// multiply-adds, so mmt uses it for chains of up to a few thousand states (the coarse
/// chains of aggregation, the reference solutions of the tests).
///
/// The scalar type is a template parameter so that the tests can run the same algorithm
/// in 50-digit arithmetic (Boost.Multiprecision) as an independent reference.

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace mmt::solver {

/// Steady state of the CTMC whose off-diagonal rates are `rates` (n × n, row-major:
/// rates[i·n + j] = q_ij ≥ 0 for i ≠ j; the diagonal is ignored). The matrix is destroyed.
/// Returns π (n entries summing to 1). Throws std::domain_error when the chain is not
/// irreducible (a state that cannot reach the states eliminated after it).
template <class Scalar>
std::vector<Scalar> gthSteadyState(std::vector<Scalar>& rates, std::size_t n) {
  if (rates.size() != n * n) throw std::invalid_argument("gthSteadyState: not an n × n matrix");
  if (n == 0) return {};
  Scalar* q = rates.data();
  // Eliminate states n−1, …, 1; after eliminating k, rows and columns 0..k−1 hold the
  // chain censored to those states: q'_ij = q_ij + q_ik q_kj / s_k, s_k = Σ_{j<k} q_kj.
  for (std::size_t k = n - 1; k >= 1; --k) {
    Scalar s = 0;
    const Scalar* rowK = q + k * n;
    for (std::size_t j = 0; j < k; ++j) s += rowK[j];
    if (!(s > 0)) throw std::domain_error("gthSteadyState: the chain is not irreducible");
    for (std::size_t i = 0; i < k; ++i) {
      Scalar* rowI = q + i * n;
      if (rowI[k] == 0) continue;
      rowI[k] /= s;  // kept for the back substitution
      const Scalar f = rowI[k];
      for (std::size_t j = 0; j < k; ++j)
        if (j != i) rowI[j] += f * rowK[j];
    }
  }
  // Back substitution: π_k s_k = Σ_{i<k} π_i q_ik in the chain censored to 0..k.
  std::vector<Scalar> pi(n, Scalar(0));
  pi[0] = 1;
  Scalar total = 1;
  for (std::size_t k = 1; k < n; ++k) {
    Scalar sum = 0;
    for (std::size_t i = 0; i < k; ++i) sum += pi[i] * q[i * n + k];
    pi[k] = sum;
    total += sum;
    if (total > Scalar(1e200)) {  // rates over many decades: keep the partial sums finite
      for (std::size_t i = 0; i <= k; ++i) pi[i] /= total;
      total = 1;
    }
  }
  for (Scalar& p : pi) p /= total;
  return pi;
}

}  // namespace mmt::solver
