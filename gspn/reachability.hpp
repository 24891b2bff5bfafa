#pragma once
/// \file
/// The tangible reachability graph of a GSPN, built breadth-first with vanishing markings
/// eliminated on the fly (see vanishing.hpp). Its edges carry the rates of the CTMC over
/// tangible markings ([GSPN95] §6.2): from tangible m, timed transition t with rate λ(m)
/// leads, through the immediate firings, to tangible m' with rate λ(m) · P(m' | m, t).
///
/// The edges are stored once, already in the form the solvers read: by *target* state
/// (compressed sparse columns of the generator Q, so column j lists the rates into j).
/// To get there without holding the edges twice, exploration makes two passes: the first
/// finds the states and counts the edges into each, the second recomputes every state's
/// successors and writes the edges into their columns. Recomputing is cheaper than the
/// memory of a second copy of the edges on large chains (Kanban N = 6: 116 M edges).

#include <atomic>
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "gspn/edge_rates.hpp"
#include "gspn/marking_store.hpp"
#include "gspn/net.hpp"
#include "gspn/run_control.hpp"

namespace mmt::gspn {

class Symmetry;

struct TangibleReachabilityGraph {
  /// Tangible markings, ids 0..n-1 in breadth-first order (the hash index is freed).
  PackedMarkingStore markings{0};
  /// The first id of each breadth-first level, ascending, from 0 (empty for a graph that
  /// was not explored level by level).
  std::vector<std::uint32_t> levelStarts;
  /// CTMC off-diagonal rates by target, in CSC form: the edges into state j are
  /// [inOffset[j], inOffset[j+1]), read with sourceOf and rateOf, sources ascending, no
  /// self-loops, parallel edges merged. Rates are per model time unit, held compactly where
  /// at most 65,536 are distinct (see edge_rates.hpp). 32-bit signed indices, as the
  /// solvers index them (at most 2^31 - 1 edges).
  std::vector<std::int32_t> inOffset;
  /// Per edge its source, or with sourceBits > 0 one PackedEdge word: source | rate
  /// number << sourceBits (4 bytes an edge; `rate` then holds only the table).
  EdgeSources source;
  EdgeRates rate;
  unsigned sourceBits = 0;
  /// The source state of edge k.
  std::uint32_t sourceOf(std::size_t k) const {
    return PackedEdge::sourceOf(source, sourceBits, k);
  }
  /// The rate of edge k, per model time unit.
  double rateOf(std::size_t k) const { return PackedEdge::rateOf(source, rate, sourceBits, k); }
  /// The rate number of edge k in `rate.table()` (compact rates only).
  EdgeRates::Number rateNumberOf(std::size_t k) const {
    return PackedEdge::numberOf(source, rate, sourceBits, k);
  }
  /// Total rate out of each state, Σ_{j≠i} q_ij (= −q_ii).
  std::vector<double> exitRate;
  /// Initial distribution over tangible states (one entry when the initial marking is
  /// tangible; the resolution of the vanishing initial marking otherwise).
  std::vector<std::pair<std::uint32_t, double>> initial;
  /// Firing rate of immediate transition `transition` caused by the timed firings out of
  /// `state`: Σ_t λ_t(m) · E[firings of the transition | m, t]. Its throughput is
  /// Σ_s π_s · rate over these entries.
  struct ImmediateFlow {
    std::uint32_t state;
    TransitionId transition;
    double rate;
  };
  /// In order of state. A deque: exploration appends a level's flows at a time, and the
  /// earlier ones are neither copied nor moved as it grows (FMS N = 6: 2.4 million flows,
  /// 39 MB).
  std::deque<ImmediateFlow> immediateFlows;
  /// Distinct vanishing markings met during exploration.
  std::uint64_t vanishingCount = 0;

  std::size_t stateCount() const { return markings.size(); }
  /// CTMC edges found (kept when the solver takes the edge arrays).
  std::uint64_t edges = 0;
  std::size_t edgeCount() const { return edges; }
  /// Bytes each stored edge takes, its source and its rate: 4 packed, 6 with compact
  /// rates, 12 wide (kept when the solver takes the edge arrays).
  std::size_t bytesPerEdge = 0;
  std::vector<Tokens> marking(std::size_t s) const {
    return markings.decode(static_cast<std::uint32_t>(s));
  }
  /// Bytes held by markings and edges.
  std::size_t memoryBytes() const;
};

struct ExplorationSettings {
  /// Exploration stops with StateLimit once more tangible markings than this are found.
  std::uint64_t maxStates = 50'000'000;
  /// Exploration stops with MemoryLimit when the process's resident memory passes this
  /// many bytes, or when building the generator would (0: no limit).
  std::uint64_t maxMemoryBytes = 0;
  /// Most vanishing markings a single timed firing may lead through.
  std::uint64_t maxVanishingPerFiring = 1'000'000;
  /// Fire commuting immediate transitions in every order (the full interleaving) rather
  /// than in one (gspn/commuting.hpp). The tangible graph and its rates are the same; only
  /// the vanishing markings met are more (the tests compare the two ways).
  bool everyOrder = false;
  /// Breadth-first levels with fewer states than this are explored on one thread (below
  /// it, starting the threads costs more than they save; the tests set 1 to run every
  /// level in parallel).
  std::uint32_t parallelLevelSize = 2048;
  /// Keep pass 1's rows and transpose them into the generator (docs/modelling.md,
  /// "Exploration"); false: always recompute them in pass 2, as happens anyway when they
  /// would not fit under the memory limit (the tests compare the two ways).
  bool transposeRows = true;
  /// Progress lines (states, edges, states/s, memory); the interrupt, which stops
  /// exploration with Interrupted (checked at every breadth-first level and every 65,536
  /// states of the generator's construction); the threads that explore. The result does
  /// not depend on the thread count: the states are numbered as a single thread numbers
  /// them.
  RunControl run;
  /// Per place, the most tokens it holds in a reachable marking, or
  /// Boundedness::kNoBound (Boundedness::bound, gspn/invariants.hpp); empty: none known.
  /// Without a symmetry, exploration stores each marking as a MarkingLayout key: the
  /// places some transition changes, in the bits these bounds allow.
  std::vector<std::uint64_t> placeBounds;
  /// When set, a symmetry group of the net (gspn/symmetry.hpp): exploration keeps one
  /// canonical marking per orbit, the tangible markings are the orbits' representatives and
  /// the edges the lumped chain's (rates into one orbit added; docs/symmetry.md).
  const Symmetry* symmetry = nullptr;
};

struct ExplorationResult {
  enum class Status {
    Ok,
    StateLimit,        ///< more tangible markings than ExplorationSettings::maxStates
    EdgeLimit,         ///< more than 2^31 − 1 CTMC edges, beyond what the solvers index
    MemoryLimit,       ///< the resident memory would pass ExplorationSettings::maxMemoryBytes
    TimelessTrap,      ///< vanishing markings that can be entered but never left
    TooManyVanishing,  ///< a firing leads through more than maxVanishingPerFiring of them
    InvalidModel,      ///< a marking-dependent rate or multiplicity out of its domain
    Interrupted        ///< ExplorationSettings::interrupt was set
  };
  Status status = Status::Ok;
  /// Human-readable reason when status != Ok.
  std::string message;
  /// StateLimit: the place with the most tokens over the markings found, and that count
  /// (the likely unbounded place); empty when the net has no places.
  std::optional<PlaceId> fullestPlace;
  Tokens fullestTokens = 0;
  /// The markings found, complete when Ok; when exploration stopped, those stored by then.
  TangibleReachabilityGraph graph;
};

/// Explores the tangible reachability graph of `net` from its initial marking.
/// InvalidModel reports a marking-dependent rate or multiplicity that evaluates to a value
/// it may not take (negative, not a number, not an integer).
ExplorationResult exploreTangible(const Net& net, const ExplorationSettings& settings = {});

}  // namespace mmt::gspn
