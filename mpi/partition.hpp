#pragma once
/// \file
/// Which rank owns a tangible marking (docs/distributed.md, "The partition"). The first
/// pass of a distributed exploration owns markings by hash, the only rule that needs no
/// knowledge of the state space (Knottenbelt & Harrison 1999 §3). Hashing whole markings
/// spreads the successors of a marking evenly over the ranks, so a fraction 1 − 1/P of
/// the edges cross between ranks: every Gauss–Seidel sweep exchanges them, and block
/// Jacobi between the ranks converges the more slowly the more the blocks are coupled
/// (Stewart 1994 §3.5). Once the markings are known, they are owned instead by the token
/// counts of a few places, in lexicographic order, each rank holding one contiguous range
/// of these keys: a firing changes only the places it touches, so an edge crosses only
/// when it changes a chosen place across a range's end. The places and the ranges are
/// chosen from a sample of the markings and their edges (choosePartition), the cost being
/// the sample's cross edges plus its load imbalance; the hash stays when no key does
/// better. Ciardo, Gluckman & Nicol ("Distributed state-space generation of
/// discrete-state stochastic models", INFORMS J. Computing 10(1), 1998) discuss
/// partitioning functions of part of the state for the same reason.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gspn/marking_store.hpp"
#include "gspn/net.hpp"

namespace mmt::mpi {

class Partition {
 public:
  /// By hash over `ranks` (hashMarking modulo the number of ranks).
  explicit Partition(int ranks = 1) : ranks_(ranks) {}
  /// By the token counts of `places`: rank r ≥ 1 owns the markings whose key (their
  /// counts at `places`, compared lexicographically) is at least starts[r − 1] and below
  /// starts[r] (rank 0 those below starts[0]); `starts` holds ranks − 1 keys of
  /// places.size() counts, back to back, non-decreasing.
  Partition(int ranks, std::vector<gspn::PlaceId> places, std::vector<gspn::Tokens> starts);

  int owner(gspn::MarkingView m) const;
  int ranks() const { return ranks_; }
  bool byPlaces() const { return !places_.empty(); }
  const std::vector<gspn::PlaceId>& places() const { return places_; }
  /// "hash" or "places P1, P2".
  std::string describe(const gspn::Net& net) const;

 private:
  int ranks_ = 1;
  std::vector<gspn::PlaceId> places_;
  std::vector<gspn::Tokens> starts_;
};

/// Markings and their edges, a sample of a state space, to choose a partition by. Each
/// edge is a change of its source: the places whose counts differ in its target, with the
/// target's counts.
struct PartitionSample {
  struct Change {
    gspn::PlaceId place;
    gspn::Tokens tokens;
  };
  std::size_t places = 0;
  std::vector<gspn::Tokens> states;      ///< places() counts per sampled marking
  std::vector<std::uint32_t> source;     ///< per edge, its source's index in `states`
  std::vector<std::uint32_t> changesAt;  ///< per edge, its first change; one more at the end
  std::vector<Change> changes;

  explicit PartitionSample(std::size_t placeCount = 0) : places(placeCount), changesAt{0} {}
  std::size_t stateCount() const { return places ? states.size() / places : 0; }
  std::size_t edgeCount() const { return source.size(); }
  /// Adds a marking; returns its index.
  std::uint32_t addState(gspn::MarkingView m);
  /// Adds an edge from state `from` to `target`.
  void addEdge(std::uint32_t from, gspn::MarkingView target);
  /// Flat form for an all-gather, and the union of several ranks' flat forms (their
  /// states in order, the edges' sources renumbered).
  std::vector<std::uint32_t> flatten() const;
  static PartitionSample merge(std::size_t placeCount, const std::vector<std::uint32_t>& flat);
};

/// A partition and what it costs on a sample.
struct PartitionChoice {
  Partition partition;
  double crossFraction = 0;  ///< of the sample's edges, between ranks
  double largestShare = 0;   ///< of the sample's markings, on the fullest rank
};

/// The partition over `ranks` with the least cost on `sample`: the fraction of its edges
/// that cross between ranks plus the load imbalance P · (largest share) − 1. Keys of up
/// to three places are grown greedily, one place at a time (the place that lowers the
/// cost most, of those whose count varies); each key's ranges are cut where the sample's
/// markings, sorted by key, reach r / P of them. The hash partition (cost 1 − 1/P, no
/// imbalance) is kept unless a key costs at most three quarters of it. Deterministic: the
/// same sample gives the same partition on every rank.
PartitionChoice choosePartition(const PartitionSample& sample, int ranks);

}  // namespace mmt::mpi
