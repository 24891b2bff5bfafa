#pragma once
/// \file
/// Phase-type expansion of declared delays (docs/modelling.md, "Delays as phases"), so that
/// the numerical solver, which sees only exponential delays, sees low- or high-variance
/// ones too. A delay of mean m and squared coefficient of variation c² = Var / m² becomes
///   - c² < 1: Erlang-k, k = min(K, ⌈1 / c²⌉) phases of mean m / k (c² reached: 1 / k);
///   - c² > 1: a two-phase hyperexponential with balanced means, p₁ = (1 + √((c² − 1) /
///     (c² + 1))) / 2, rates 2p₁ / m and 2p₂ / m (matches c² exactly);
///   - c² = 1: one exponential phase (unchanged).
/// Sources: W. Whitt, "Approximating a point process by a renewal process", Management
/// Science 28(4), 1982 (balanced-means H2); Ajmone Marsan et al. 1995, §7 (phases in GSPNs).
///
/// Construction, for a timed transition t whose only input is one place p (multiplicity 1,
/// no inhibitor) that no other transition takes from, so that an execution once started
/// always completes (every `A.exec` and message transfer of a description is so):
///   - immediate `t.start[j]` (weight pⱼ) assigns a phase to each token of p that has none
///     (its input arc has multiplicity #assigned + 1 and puts the token back);
///   - timed `t.step[i]` moves an execution from phase place `t.phase[i]` to the next (one server
///     per execution for infinite-server t, one in all for single-server t);
///   - t itself becomes immediate, with its original arcs plus one from `t.done`: its
///     throughput, and every metric built on it, keeps its meaning.
/// Other transitions with a declared delay (several inputs, k servers, shared places) keep
/// their exponential rate, and the report says why.

#include <cstdint>
#include <string>
#include <vector>

#include "gspn/net.hpp"

namespace mmt::gspn {

struct PhaseExpansion {
  std::string transition;
  std::string declared;    ///< the declared distribution, as written
  std::string phases;      ///< "erlang(4)", "hyperexp(2)", "exponential", or why not
  double declaredCv2 = 1;  ///< squared coefficient of variation of the declared delay
  double reachedCv2 = 1;   ///< of the expansion (equal for hyperexp)
  bool expanded = false;
};

struct PhasedNet {
  Net net;
  std::vector<PhaseExpansion> expansions;
};

/// The net with every declared delay expanded (at most `maxPhases` phases, >= 1). Place and
/// transition ids of `net` keep their meaning; new elements come after them.
PhasedNet expandPhases(const Net& net, std::uint32_t maxPhases);

}  // namespace mmt::gspn
