#pragma once
/// \file
/// The tangible reachability graph of a GSPN explored by the ranks of an MPI run
/// (docs/distributed.md, "One state space over the ranks"): each tangible marking is owned
/// by one rank, while exploring the one its hash names (hashMarking modulo the number of
/// ranks), then the one a partition by places names (mpi/partition.hpp); each rank
/// computes the rows of the markings it owns, vanishing markings eliminated where they are
/// met (gspn/row_builder.hpp), and sends each successor, with its rate and its source, to
/// its owner. The work goes in rounds: each rank expands at most a batch of its
/// unexpanded markings, the successors go out in one all-to-all exchange, and exploration
/// ends after the first round in which no rank has a marking left to expand (an
/// allreduce), so termination needs no further detection and the messages of a round are
/// bounded by the batch. A successor owned by another rank goes to it as its tokens alone;
/// the owner stores it, counts the edge into it and answers with its local id, so the
/// source keeps its rows with every target named (gspn/kept_rows.hpp). Then the partition
/// is chosen and the markings move to their owners once, each rank learning where its
/// own went; last, the kept rows are sent on to the targets' new owners, through the
/// ranks that explored the targets (who know where they went), and each edge is put
/// straight into its row of Qᵀ (mpi/steady_state.hpp). No row is computed twice. Global
/// state ids follow by a prefix sum of the ranks' counts (rank r's markings are
/// [first, first + count)).
/// Knottenbelt & Harrison, "Distributed disk-based solution techniques for large Markov
/// models" (1999) §3: hash partitioning of states; Bell & Haverkort, "Distributed
/// disk-based algorithms for model checking very large Markov chains" (2006).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gspn/kept_rows.hpp"
#include "gspn/marking_store.hpp"
#include "gspn/net.hpp"
#include "gspn/reachability.hpp"
#include "gspn/row_builder.hpp"
#include "mpi/partition.hpp"
#include "mpi/session.hpp"

namespace mmt::mpi {

/// The time and traffic of one phase of a distributed run on one rank.
struct PhaseFigures {
  double seconds = 0;
  std::uint64_t bytesSent = 0;  ///< to other ranks
};

/// One rank's part of the chain.
struct LocalChain {
  gspn::PackedMarkingStore markings{0};  ///< owned tangible markings, local ids
  /// Edges into each owned state (self-loops dropped, parallel edges merged): the length
  /// of its row of Qᵀ.
  std::vector<std::uint32_t> in;
  std::vector<double> exitRate;  ///< per owned state, Σ_{j≠i} q_ij
  /// Immediate firings caused from each owned state (local ids), as on one machine.
  std::vector<gspn::TangibleReachabilityGraph::ImmediateFlow> immediateFlows;
  /// The initial distribution's entries this rank owns (local id, probability).
  std::vector<std::pair<std::uint32_t, double>> initial;
  /// Who owns which marking: by hash while exploring, then as choosePartition found
  /// (the markings migrated to their owners after the first pass).
  Partition partition;
  /// The first pass's merged rows of the markings this rank explored, a run per round, by
  /// their ids then (the hash's owners): each target coded as id × ranks + owner, each rate
  /// its number in `rateTable` or, in a run with `wide` rates (this rank met more distinct
  /// rates than the numbers hold), the double there. Sent on and freed by deliverEdges.
  struct ExploredRows {
    gspn::KeptRows rows;
    std::vector<double> wide;
  };
  std::vector<ExploredRows> explored;
  std::vector<double> rateTable;
  /// Per marking this rank explored (its id then), where it went: owner << 32 | local id.
  std::vector<std::uint64_t> movedTo;
  std::uint64_t first = 0;   ///< global id of local state 0
  std::uint64_t states = 0;  ///< tangible markings over all ranks
  std::uint64_t edges = 0;   ///< CTMC edges over all ranks
  /// This rank's count of markings at the end of each round of the first pass: the ids
  /// found up to round r (from 0) are those below found[r]; after the move, the ids given
  /// this rank by the move's exchanges up to that of round r (it moves the markings a
  /// round at a time), so that local ids still follow the rounds.
  std::vector<std::uint32_t> found;
  PhaseFigures exploration;  ///< this rank's: the first pass, the move and the delivery
  std::size_t size() const { return markings.size(); }
  /// Rounds of the first pass (exchanges of markings), the same on every rank.
  std::uint64_t rounds() const { return found.size(); }
  std::uint64_t edgesIn() const;  ///< into this rank's states
};

/// Markings each rank expands per round (the bound of a round's messages: about
/// batch × edges per marking × (4 × places + 16) bytes, held three times during the
/// exchange: 13 MB on Kanban, where 16,384 took 38 MB of a rank's memory).
constexpr std::size_t kBatch = 4096;

/// Markings sampled over all ranks to choose the partition by (with their edges: about
/// ten times as many on Kanban).
constexpr std::uint64_t kSample = 16384;

/// The first pass over the ranks of `session` (every rank calls it), then the choice of
/// the partition and the move of the markings to their owners under it. Throws
/// gspn::ExplorationFailure on every rank alike when a rank meets a failure (state limit,
/// timeless trap, invalid rate), with that rank's message; and for a tangible marking
/// without successors (a deadlock: the distributed solve needs an ergodic chain).
LocalChain exploreDistributed(const Session& session, const gspn::Net& net,
                              const gspn::ExplorationSettings& settings);

/// After exploreDistributed (collective): every edge the first pass kept is delivered to
/// its target's owner as `edge(target local id, source global id, rate)`, in two hops
/// (the source's explorer to the target's, which knows where the target went, then on to
/// that owner; an edge whose ranks coincide skips a hop); exactly the edges the first pass
/// counted. The kept rows are freed as they go.
void deliverEdges(const Session& session, LocalChain& chain,
                  const std::function<void(std::uint32_t, std::uint64_t, double)>& edge);

/// Collective: when any rank met a failure, throws on every rank the failure of the lowest
/// such rank (its status and message broadcast to the others); returns otherwise.
void agreeOnFailure(const Session& session, const std::optional<gspn::ExplorationFailure>& mine);

}  // namespace mmt::mpi
