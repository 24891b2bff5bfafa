#pragma once
/// \file
/// From a tangible reachability graph to an irreducible CTMC: structural analysis (bottom
/// strongly connected components, dead markings) and the infinitesimal generator Q.

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Sparse>

#include "gspn/net.hpp"
#include "gspn/reachability.hpp"

namespace mmt::solver {

/// Where the steady state lives (docs/modelling.md, "Exploration"; [GSPN95] §6). A chain is solvable when it has exactly
/// one bottom strongly connected component (BSCC) and no dead marking; transient states
/// (outside the BSCC) have probability 0 in steady state and are dropped.
struct ChainStructure {
  enum class Kind {
    Ergodic,                  ///< one BSCC (possibly with transient states before it)
    Deadlock,                 ///< a reachable tangible marking enables no transition
    MultipleBottomComponents  ///< the long-run behaviour depends on the initial choices
  };
  Kind kind = Kind::Ergodic;
  /// States of the BSCC, ascending (Ergodic only).
  std::vector<std::uint32_t> recurrent;
  std::size_t transientCount = 0;
  std::size_t bottomComponentCount = 0;
  /// Why the chain cannot be solved, naming a dead marking or two markings from different
  /// bottom components. Empty when Ergodic.
  std::string message;
};

/// Classifies the chain: strongly connected components by Tarjan's algorithm (iterative,
/// on the stored edges, so no copy of the graph), then the components no edge leaves.
ChainStructure analyzeStructure(const gspn::Net& net, const gspn::TangibleReachabilityGraph& g);

/// The generator Q restricted to a set of states, relabelled 0..n-1 in the given order.
/// Off-diagonal entries q_ij (rate from i to j, per time unit) are stored column-major so
/// that column j lists the transitions *into* j, which is what Gauss–Seidel on πQ = 0 and
/// the transposed systems of the other methods need. The diagonal is q_ii = −exitRate[i].
struct Generator {
  std::vector<int> offset;  // n + 1 column starts
  gspn::EdgeSources index;  // source state of each entry
  gspn::EdgeRates value;    // rate of each entry (compact where few are distinct)
  Eigen::VectorXd exitRate;  // n, Σ_{j≠i} q_ij
  std::size_t size() const { return static_cast<std::size_t>(exitRate.size()); }
  /// Σ_i x_i q_ij over the entries of column j: the probability flow into j under x.
  double inflow(std::size_t j, const double* x) const {
    return columnSum(j, [x](int i) { return x[i]; });
  }
  /// As inflow, but x_i read from `inside` for sources i in [lo, hi) and from `outside`
  /// for the others: the flow into j seen by a block of a block Gauss–Seidel sweep
  /// (solver/steady_state.cpp) that holds its own states' new values and the others' old.
  double inflowSplit(std::size_t j, const double* inside, const double* outside, int lo,
                     int hi) const {
    const auto width = static_cast<unsigned>(hi - lo);
    return columnSum(j, [=](int i) {
      return (static_cast<unsigned>(i - lo) < width ? inside : outside)[i];
    });
  }

 private:
  /// Σ_i read(i) q_ij over the entries of column j, one loop per storage form.
  template <typename Read>
  double columnSum(std::size_t j, Read read) const {
    double sum = 0;
    const int end = offset[j + 1];
    if (value.compact()) {
      const double* table = value.table().data();
      const gspn::EdgeRates::Number* number = value.numbers();
      for (int k = offset[j]; k < end; ++k) sum += read(index[k]) * table[number[k]];
    } else {
      const double* rate = value.wide();
      for (int k = offset[j]; k < end; ++k) sum += read(index[k]) * rate[k];
    }
    return sum;
  }
};

/// Builds Q over `states` (indices into g, ascending). Edges leaving the set are dropped,
/// which is exact for a bottom component (none leave it).
Generator buildGenerator(const gspn::TangibleReachabilityGraph& g,
                         const std::vector<std::uint32_t>& states);

/// As buildGenerator, but when `states` is every state of g the edge arrays are moved out
/// of g instead of copied (g keeps its markings; its edges are empty afterwards).
Generator takeGenerator(gspn::TangibleReachabilityGraph& g,
                        const std::vector<std::uint32_t>& states);

}  // namespace mmt::solver
