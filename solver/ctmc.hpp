#pragma once
/// \file
/// From a tangible reachability graph to an irreducible CTMC: structural analysis (bottom
/// strongly connected components, dead markings) and the infinitesimal generator Q.

#include <Eigen/Sparse>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "gspn/net.hpp"
#include "gspn/reachability.hpp"

namespace mmt::solver {

/// Where the steady state lives (docs/modelling.md, "Exploration"; [GSPN95] §6). A chain is
/// solvable when it has exactly one bottom strongly connected component (BSCC) and no dead marking;
/// transient states (outside the BSCC) have probability 0 in steady state and are dropped.
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

/// Every bottom strongly connected component (BSCC) of a tangible reachability graph: the
/// sets of markings the chain, once in, never leaves ([GSPN95] §6; Kwiatkowska, Norman and
/// Parker, "Stochastic Model Checking", SFM 2007, §3.3). A dead marking (no transition
/// enabled with a positive rate) is a BSCC of one marking; a marking whose only firings
/// loop back to it is a BSCC of one marking too, but not dead.
struct BottomComponents {
  struct Component {
    std::uint32_t witness = 0;  ///< its lowest state
    std::uint64_t states = 0;   ///< how many states it holds
    bool dead = false;          ///< one state that enables no transition
  };
  /// In the order of their witnesses.
  std::vector<Component> components;
  /// The component of each state, or kTransient for a state in none.
  std::vector<std::uint32_t> componentOf;
  static constexpr std::uint32_t kTransient = UINT32_MAX;
  /// States in no bottom component.
  std::uint64_t transientStates = 0;
  /// Dead states, ascending.
  std::vector<std::uint32_t> dead;
};

/// The BSCCs of `g` (its edges must still be in it), by the strong components of
/// analyzeStructure. Time and memory linear in states and edges.
BottomComponents bottomComponents(const gspn::Net& net, const gspn::TangibleReachabilityGraph& g);

/// Whether state s of `g` is dead: no edge leaves it and no timed transition is enabled in
/// its marking with a positive rate. `zeroRate`, when not null, receives the name of an
/// enabled transition whose rate is 0 there, if any.
bool isDead(const gspn::Net& net, const gspn::TangibleReachabilityGraph& g, std::uint32_t s,
            std::string* zeroRate = nullptr);

/// The generator Q restricted to a set of states, relabelled 0..n-1 in the given order.
/// Off-diagonal entries q_ij (rate from i to j, per time unit) are stored column-major so
/// that column j lists the transitions *into* j, which is what Gauss–Seidel on πQ = 0 and
/// the transposed systems of the other methods need. The diagonal is q_ii = −exitRate[i].
///
/// Where the chain's states and distinct rates fit in 32 bits together (Kanban N = 8:
/// 28 bits of state, 4 of rate number), pack() stores each entry as one gspn::PackedEdge
/// word with the source as its state: 4 bytes an entry instead of 6. That is memory, not
/// speed: a Gauss–Seidel sweep waits on its reads of x, and took as long with either
/// layout on Kanban N = 5 and 5–20 % longer, for the unpacking, on the nested skeletons
/// example (docs/benchmarks.md). Read the entries through source(k) and rate(k).
struct Generator {
  std::vector<int> offset;  // n + 1 column starts
  gspn::EdgeSources index;  // source state of each entry; packed: source | number << sourceBits
  gspn::EdgeRates value;  // rate of each entry (compact where few are distinct); packed: the table
  /// n, Σ_{j≠i} q_ij: 2 bytes a state where few are distinct (EdgeRates::compacted).
  gspn::EdgeRates exitRate;
  unsigned sourceBits = 0;  // bits of the source in a packed entry; 0 when not packed
  std::size_t size() const { return exitRate.size(); }
  /// Off-diagonal entries stored.
  std::size_t entries() const { return index.size(); }
  bool packed() const { return sourceBits != 0; }
  /// The source state i of entry k (in column j: q_ij).
  int source(std::size_t k) const {
    return static_cast<int>(gspn::PackedEdge::sourceOf(index, sourceBits, k));
  }
  /// The rate q_ij of entry k, per model time unit.
  double rate(std::size_t k) const { return gspn::PackedEdge::rateOf(index, value, sourceBits, k); }
  /// Bytes an entry takes: 4 packed, 6 compact, 12 wide.
  std::size_t bytesPerEntry() const {
    return packed() ? sizeof(std::int32_t) : sizeof(std::int32_t) + value.bytesPerEntry();
  }
  /// The same chain with state order[k] renumbered k: column k is column order[k] with its
  /// sources renumbered (in the old column's order, not ascending), in the same storage.
  Generator renumbered(const std::vector<std::uint32_t>& order) const;
  /// Packs each entry's source and rate number into its index word, in place, and frees
  /// the numbers, where the rates are compact and both fit in 32 bits; else does nothing.
  /// The sources are below `sources` (size() when 0: a generator whose sources are its
  /// own states; more for a rank's rows, whose sources include other ranks' states).
  void pack(std::size_t sources = 0);
  /// Σ_i x_i q_ij over the entries of column j: the probability flow into j under x.
  double inflow(std::size_t j, const double* x) const {
    return columnSum(j, [x](int i) { return x[i]; });
  }
  /// As inflow, but x_i read from `inside` for sources i in [lo, hi) and from `outside`
  /// for the others: the flow into j seen by a block of a block Gauss–Seidel sweep
  /// (solver/steady_state_relaxation.cpp) that holds its own states' new values and the others'
  /// old.
  double inflowSplit(std::size_t j, const double* inside, const double* outside, int lo,
                     int hi) const {
    const auto width = static_cast<unsigned>(hi - lo);
    return columnSum(
        j, [=](int i) { return (static_cast<unsigned>(i - lo) < width ? inside : outside)[i]; });
  }
  /// Σ_i read(i) q_ij over the entries of column j, x_i given by `read` (for sources whose
  /// values are held in more than one array: a rank's own states and its ghosts).
  template <typename Read>
  double inflowWith(std::size_t j, Read read) const {
    return columnSum(j, read);
  }

 private:
  /// Entries ahead of the column being summed whose line is fetched with the non-temporal
  /// hint: a pass reads the entries once and x, at random, again, so the entries should
  /// not push x out of the caches: on Kanban N = 5 on an AMD EPYC (32 MB of L3) this takes
  /// about an eighth off a Gauss–Seidel sweep.
  static constexpr std::size_t kStreamAhead = 512;
  /// Σ_i read(i) q_ij over the entries of column j, one loop per storage form.
  template <typename Read>
  double columnSum(std::size_t j, Read read) const {
    double sum = 0;
    const int end = offset[j + 1];
    if (packed()) {
      const double* table = value.table().data();
      const auto* words = reinterpret_cast<const std::uint32_t*>(index.data());
      if (const auto ahead = std::size_t(offset[j]) + kStreamAhead; ahead < index.size())
        __builtin_prefetch(words + ahead, 0, 0);
      const unsigned shift = sourceBits;
      for (int k = offset[j]; k < end; ++k)
        sum += read(static_cast<int>(gspn::PackedEdge::state(words[k], shift))) *
               table[gspn::PackedEdge::number(words[k], shift)];
    } else if (value.compact()) {
      const double* table = value.table().data();
      const gspn::EdgeRates::Number* number = value.numbers();
      if (const auto ahead = std::size_t(offset[j]) + kStreamAhead; ahead < index.size()) {
        __builtin_prefetch(index.data() + ahead, 0, 0);
        __builtin_prefetch(number + ahead, 0, 0);
      }
      for (int k = offset[j]; k < end; ++k) sum += read(index[k]) * table[number[k]];
    } else {
      const double* rate = value.wide();
      for (int k = offset[j]; k < end; ++k) sum += read(index[k]) * rate[k];
    }
    return sum;
  }
};

/// 0, 1, ..., n − 1: every state of `g`, for the generator of the whole chain.
std::vector<std::uint32_t> everyState(const gspn::TangibleReachabilityGraph& g);

/// A distribution over `states` (π[i] the probability of states[i]) spread over all `n`
/// states, 0 on the others.
Eigen::VectorXd onEveryState(std::size_t n, const std::vector<std::uint32_t>& states,
                             const Eigen::VectorXd& pi);

/// By state of `g`: its position in `states`, or −1 for the states not in it.
std::vector<std::int64_t> positionsIn(const gspn::TangibleReachabilityGraph& g,
                                      const std::vector<std::uint32_t>& states);

/// The states from which some state of `seeds` can be reached (the seeds included), in
/// ascending order: a search backwards along the stored incoming edges, by passes over a
/// bit a state. Each pass, in ascending and descending order in turn, reads the column of
/// every state reached and not yet read (once in all), marking its sources reached. In
/// the breadth-first numbering most sources lie on one side of their column, so a few
/// passes read every column in nearly the order it is stored, where a queue reads them
/// at random (Kanban N = 5: 8 passes; the tandem queue, c = 1023: 4). After `mostPasses`
/// passes the rest is read from a list (each column once), so that a chain whose paths
/// turn many times costs at most that many reads of the bits. One core; n / 8 bytes
/// beside the result.
std::vector<std::uint32_t> reachingAny(const gspn::TangibleReachabilityGraph& g,
                                       const std::vector<std::uint32_t>& seeds,
                                       std::size_t mostPasses = 64);

/// Builds Q over `states` (indices into g, ascending). Edges leaving the set are dropped,
/// which is exact for a bottom component (none leave it). With `killing` (by edge of g, in
/// its incoming order), the chain is killed instead: the edges it marks and those leaving
/// the set are left out of Q but keep their rates in their sources' exit rates, so the
/// probability they carry leaves the chain (a passage that has ended; solver/passage.hpp).
Generator buildGenerator(const gspn::TangibleReachabilityGraph& g,
                         const std::vector<std::uint32_t>& states,
                         const std::vector<char>* killing = nullptr);

/// A Generator over n states from its off-diagonal entries (source i, target j, rate) and
/// its exit rates (which may exceed the entries' sums: the rest leaves the chain), for
/// chains that are no graph's (the DSPN's embedded chain, a passage's renewal chain).
Generator generatorFromEntries(std::size_t n, std::vector<std::tuple<int, int, double>> entries,
                               std::vector<double> exitRate);

/// As buildGenerator, but when `states` is every state of g the edge arrays are moved out
/// of g instead of copied (g keeps its markings; its edges and exit rates are empty
/// afterwards). Either way g.bytesPerEdge becomes the generator's bytes per entry.
Generator takeGenerator(gspn::TangibleReachabilityGraph& g,
                        const std::vector<std::uint32_t>& states);
/// takeGenerator over every state of g, without a list of them.
Generator takeGenerator(gspn::TangibleReachabilityGraph& g);

}  // namespace mmt::solver
