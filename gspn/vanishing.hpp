#pragma once
/// \file
/// Elimination of vanishing markings, one timed firing at a time ("on the fly").
///
/// From a vanishing marking v0 the enabled immediate transitions of the highest priority
/// level fire with probability weight / Σ weights ([GSPN95] §6.2). They form a discrete-time
/// chain over vanishing markings, absorbed in tangible markings. With P the vanishing-to-
/// vanishing and E the vanishing-to-tangible transition probabilities, the expected number
/// of visits n to each vanishing marking solves n (I − P) = e_{v0}, the probability of
/// ending in tangible marking m is (n E)_m, and the expected number of firings of immediate
/// transition u is Σ_v n_v · P(v fires u) ([GSPN95] §6.2, eq. 6.17–6.20; Kemeny & Snell's
/// fundamental matrix). Acyclic vanishing graphs, the common case, are solved by one pass
/// in topological order; cyclic ones by sparse LU.
///
/// A set of vanishing markings that can be entered but never left (a *timeless trap*) makes
/// the model ill-defined: it is reported with the immediate transitions that form it.
///
/// Immediate transitions that do not interact are fired in one order, not in all of them
/// (gspn/commuting.hpp): the same exits, probabilities and firing counts through fewer
/// vanishing markings. A resolution so reduced that meets a cycle is done again in every
/// order.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gspn/commuting.hpp"
#include "gspn/marking_store.hpp"
#include "gspn/net.hpp"

namespace mmt::gspn {

class VanishingEliminator {
 public:
  enum class Status { Ok, TimelessTrap, TooManyVanishing, Interrupted };

  /// \param limit most vanishing markings one resolution may visit before giving up
  ///        (guards against immediate transitions that create tokens without bound).
  /// \param interrupt when set, a resolution stops with Status::Interrupted soon after it
  ///        becomes true (one resolution may visit millions of markings).
  /// \param everyOrder fire commuting immediate transitions in every order (the full
  ///        interleaving) rather than in one; the results are the same.
  VanishingEliminator(const Net& net, std::uint64_t limit,
                      const std::atomic<bool>* interrupt = nullptr, bool everyOrder = false);

  /// True when an immediate transition is enabled in m.
  bool isVanishing(MarkingView m) const;
  /// The same for the marking m that firing t leads to from a tangible marking: only the
  /// immediate transitions whose enabling reads a place t's arcs touch, or evaluates an
  /// expression, can have become enabled (mayEnable), so only they are tested.
  bool isVanishingAfter(TransitionId t, MarkingView m) const {
    for (TransitionId u : mayEnable(t))
      if (net_.isEnabled(u, m)) return true;
    return false;
  }
  /// Whether firing t leads from a tangible marking to a tangible one whatever the
  /// markings: no immediate transition's enabling can change by it.
  bool tangibleAfter(TransitionId t) const { return mayEnable(t).empty(); }

  /// Resolves vanishing marking v0. On Ok, `exits()` holds the distinct tangible markings
  /// reached, `exitProbability()[i]` the probability of ending in exit i (they sum to 1),
  /// and `firings()` the expected number of firings of each immediate transition.
  /// On failure `error()` describes the trap or the limit.
  Status resolve(MarkingView v0);

  const MarkingStore& exits() const { return exits_; }
  const std::vector<double>& exitProbability() const { return exitProbability_; }
  const std::vector<std::pair<TransitionId, double>>& firings() const { return firings_; }
  const std::string& error() const { return error_; }

  /// Distinct vanishing markings met by several eliminators together (exploration on
  /// several threads, one eliminator each), counted by 64-bit fingerprint: each
  /// eliminator's fingerprints sorted and made unique, then the sorted lists merged.
  static std::uint64_t distinctVanishing(const std::vector<VanishingEliminator*>& all);
  /// Stops counting and frees the count (exploration's second pass meets the same
  /// markings again).
  void stopCounting() {
    counting_ = false;
    fingerprints_ = std::vector<std::uint64_t>();  // `= {}` would keep the capacity
    sorted_ = 0;
  }

 private:
  struct Edge {
    std::uint32_t from;
    std::uint32_t to;  // index into local_ or exits_
    bool toExit;
    double probability;
    TransitionId transition;
  };
  /// The common case done without the search: one immediate transition enabled in v0,
  /// leading to a tangible marking, its one exit with probability 1. Otherwise returns
  /// false with enabled_ holding v0's enabled transitions and `totalWeight` their sum
  /// (the search's first step), nothing else changed but scratch_.
  bool resolveAtOnce(MarkingView v0, double& totalWeight);
  /// Fills enabled_ with the immediate transitions enabled in m at its highest enabled
  /// priority, each with its weight relative to the largest; returns their sum.
  double enableTopPriority(MarkingView m);
  /// Explores and solves the resolution from v0, firing commuting transitions in one order
  /// when `commuting` is set. Sets `cyclic` (and gives up) when such a reduced resolution
  /// meets a cycle.
  Status resolveFrom(MarkingView v0, CommutingImmediates* commuting, bool& cyclic);
  enum class Visits { Solved, Trap, Cyclic };
  /// \param cyclicFails report Cyclic for a cyclic graph rather than solve it.
  Visits solveVisits(bool cyclicFails);
  void reportTrap(const std::vector<char>& reachesExit);

  /// The immediate transitions whose enabling firing t may change, in id order.
  std::span<const TransitionId> mayEnable(TransitionId t) const {
    return {mayEnable_.data() + mayEnableStart_[t], mayEnableStart_[t + 1] - mayEnableStart_[t]};
  }

  const Net& net_;
  std::uint64_t limit_;
  const std::atomic<bool>* interrupt_;
  std::vector<TransitionId> byPriority_;          // immediate transitions, highest priority first
  std::optional<CommutingImmediates> commuting_;  // empty: every order
  std::vector<std::uint32_t> mayEnableStart_;     // mayEnable(t): its slice of mayEnable_
  std::vector<TransitionId> mayEnable_;
  MarkingStore local_;
  MarkingStore exits_;
  std::vector<Edge> edges_;
  std::vector<double> visits_;
  std::vector<double> exitProbability_;
  std::vector<double> firingAccumulator_;
  std::vector<TransitionId> firedTransitions_;
  std::vector<std::pair<TransitionId, double>> firings_;
  std::vector<Tokens> scratch_;
  // Scratch of resolve and solveVisits, kept between resolutions.
  std::vector<std::pair<TransitionId, double>> enabled_;
  std::vector<std::uint32_t> indegree_, start_, order_;
  std::string error_;
  /// The fingerprints of the vanishing markings met, appended as met: a sorted prefix
  /// without repeats (sorted_ of them), then those met since. Appending is sequential,
  /// where a hash set took a cache miss and, as it grew, a rehash per marking (the ring,
  /// K = 8, N = 22: 11.3 M visits of 9.5 M markings); the tail is merged into the prefix
  /// once it is as long (compact), so the list holds at most twice the distinct ones.
  std::vector<std::uint64_t> fingerprints_;
  std::size_t sorted_ = 0;
  bool counting_ = true;
  /// Records one vanishing marking met, by its hashMarking.
  void count(std::uint64_t fingerprint) {
    fingerprints_.push_back(fingerprint);
    if (fingerprints_.size() >= std::max<std::size_t>(kCompactFrom, 2 * sorted_)) compact();
  }
  /// Sorts the tail, merges it into the prefix and drops the repeats.
  void compact();
  static constexpr std::size_t kCompactFrom = 1 << 16;
};

}  // namespace mmt::gspn
