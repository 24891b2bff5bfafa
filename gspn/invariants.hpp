#pragma once
/// \file
/// Structural boundedness: P-semiflows (place invariants) by the Farkas algorithm, and the
/// places they, or inhibitor arcs, bound. A place that some semiflow y ≥ 0 covers
/// (y_p > 0) is bounded, since y·m = y·m0 in every reachable marking m
/// ([GSPN95] §2.5.1; J. Martínez, M. Silva, "A simple and fast algorithm to obtain all
/// invariants of a generalised Petri net", Application and Theory of Petri Nets, 1982,
/// the algorithm GreatSPN uses).

#include <cstdint>
#include <string>
#include <vector>

#include "gspn/net.hpp"

namespace mmt::gspn {

/// The minimal-support P-semiflows of a net, each a vector of place weights ≥ 0.
/// The incidence matrix has one column per transition for its constant arcs and one per
/// distinct marking-dependent multiplicity expression of that transition (its arcs with
/// that expression move e(m) tokens times their coefficient), so a semiflow is invariant
/// whatever e(m) is. Inhibitor arcs do not enter.
struct PSemiflows {
  std::vector<std::vector<std::uint64_t>> flows;  ///< each of size placeCount()
  /// False when the algorithm stopped early (more than `maxRows` intermediate rows, or a
  /// coefficient overflow): `flows` then holds none, and nothing is proven.
  bool complete = true;
};

/// Farkas' algorithm on [C | I], one column of C at a time, rows combined pairwise and
/// divided by their gcd, non-minimal supports dropped. Stops (complete = false) past
/// `maxRows` rows: the number of semiflows can grow exponentially with the net.
PSemiflows computePSemiflows(const Net& net, std::size_t maxRows = 20'000);

/// Which places are structurally bounded, and why.
struct Boundedness {
  /// Per place: covered by a P-semiflow, or every transition that adds tokens to it
  /// (constant arcs) is inhibited by it, or neither.
  enum class Reason { Semiflow, Inhibitor, Unproven };
  std::vector<Reason> places;
  /// Per place: the most tokens it holds in any reachable marking by that reason, or
  /// kNoBound (Unproven, or a bound past 2^32 − 1). A semiflow y gives
  /// m(p) ≤ ⌊y·m0 / y_p⌋, the least over the semiflows that cover p.
  static constexpr std::uint64_t kNoBound = ~std::uint64_t(0);
  std::vector<std::uint64_t> bound;
  bool allBounded() const;
  /// The names of the places not proven bounded, in the net's order (empty when all are).
  std::vector<std::string> unproven(const Net& net) const;
};

/// A place is bounded when a semiflow covers it, or when every transition t that raises
/// it (outputs minus inputs c_t > 0, constant arcs) has an inhibitor arc from it of
/// multiplicity h_t: then m(p) ≤ max(m0(p), max_t h_t − 1 + c_t) (the bound recorded,
/// unless a semiflow gives a smaller one).
Boundedness analyzeBoundedness(const Net& net, const PSemiflows& semiflows);

/// "2·A + B = 3" for a semiflow with its weighted initial token count.
std::string formatSemiflow(const Net& net, const std::vector<std::uint64_t>& flow);

}  // namespace mmt::gspn
