#include "mpi/steady_state.hpp"

#include <mpi.h>
#include <petscksp.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "gspn/edge_rates.hpp"
#include "gspn/free_pages.hpp"
#include "solver/accuracy.hpp"
#include "solver/ctmc.hpp"
#include "solver/gth.hpp"

namespace mmt::mpi {

namespace {

using gspn::ExplorationFailure;
using Status = gspn::ExplorationResult::Status;

/// PETSc's error codes as exceptions (std::runtime_error with PETSc's code).
void check(PetscErrorCode code, const char* what) {
  if (code != 0)
    throw std::runtime_error(std::string("PETSc failed in ") + what + " (error " +
                             std::to_string(int(code)) + ")");
}

/// PETSc for the duration of one solve (MPI is already initialized and stays so).
struct PetscScope {
  PetscScope() { check(PetscInitializeNoArguments(), "PetscInitialize"); }
  ~PetscScope() { PetscFinalize(); }
};

/// One rank's rows of A = Qᵀ in the one-process solver's storage: q's column j lists the
/// edges into owned state j (solver::Generator, compact rates, packed where they fit: 4
/// to 6 bytes an edge instead of AIJ's 12), its exit rates are the owned states', and
/// its sources are numbered locally: [0, n) this rank's states, n + k the k-th ghost,
/// a state of another rank with global id ghosts[k] (ascending).
struct LocalRows {
  solver::Generator q;
  std::vector<PetscInt> ghosts;
  std::uint64_t crossEdges = 0;  ///< edges from other ranks' states
};

/// The columns' starts in q.offset from the first pass's counts of the edges into each
/// state, which it frees; returns the entries in all. Collective: a rank with more than
/// 2^31 − 1 fails every rank.
std::uint64_t columnStarts(const Session& session, LocalChain& chain, solver::Generator& q) {
  const std::size_t n = chain.size();
  q.offset.resize(n + 1);
  std::uint64_t total = 0;
  for (std::size_t t = 0; t < n; ++t) {
    q.offset[t] = int(std::min<std::uint64_t>(total, INT_MAX));
    total += chain.in[t];
  }
  agreeOnFailure(session, total <= std::uint64_t(INT_MAX)
                              ? std::nullopt
                              : std::optional<ExplorationFailure>(ExplorationFailure{
                                    Status::EdgeLimit,
                                    "more than 2^31 - 1 edges into one rank's states; run on "
                                    "more ranks"}));
  q.offset[n] = int(total);
  std::vector<std::uint32_t>().swap(chain.in);
  return total;
}

/// The edges from deliverEdges (collective) into q's columns, each at its column's next
/// free place, its source by global id, its rate numbered as on one machine
/// (gspn::RateNumbering; one double per edge past 65,536 distinct rates).
void receiveEdges(const Session& session, LocalChain& chain, solver::Generator& q,
                  std::uint64_t total) {
  const std::size_t n = chain.size();
  std::vector<int> next(q.offset.begin(), q.offset.end() - 1);
  q.index.resize(total);
  q.value.assignCompact(total);
  gspn::RateNumbering numbering;
  gspn::RateNumbering::Cache cache;
  bool compact = true;
  // Past the compact form's distinct rates: the rates written so far as doubles, and the
  // rest written so.
  auto widen = [&] {
    const std::vector<double> table = numbering.table();
    std::vector<double> wide(total);
    for (std::size_t t = 0; t < n; ++t)
      for (int k = q.offset[t]; k < next[t]; ++k) wide[k] = table[q.value.numbers()[k]];
    q.value.assignWide(total);
    for (std::size_t t = 0; t < n; ++t)
      for (int k = q.offset[t]; k < next[t]; ++k) q.value.setWide(k, wide[k]);
    compact = false;
  };
  deliverEdges(session, chain, [&](std::uint32_t target, std::uint64_t source, double rate) {
    const int k = next[target];
    q.index[k] = std::int32_t(source);
    if (compact) {
      if (const auto number = numbering.number(rate, cache)) {
        q.value.setNumber(k, *number);
        ++next[target];
        return;
      }
      widen();  // the entries before k, this one not yet
    }
    q.value.setWide(k, rate);
    ++next[target];
  });
  for (std::size_t t = 0; t < n; ++t)
    if (next[t] != q.offset[t + 1])
      throw std::logic_error("distributed solve: the delivery missed edges the first pass counted");
  if (compact) q.value.setTable(numbering.table());
}

/// The sources of rows.q renumbered locally: the ghosts, the sources outside [first,
/// first + n), marked in a bitmap over the global ids (N / 8 bytes) and numbered n, n + 1,
/// … in ascending order by the set bits before them; rows.ghosts and rows.crossEdges set.
void numberGhosts(const LocalChain& chain, LocalRows& rows) {
  solver::Generator& q = rows.q;
  const std::size_t n = chain.size(), total = q.index.size();
  const std::uint64_t first = chain.first;
  std::vector<std::uint64_t> seen((chain.states + 63) / 64, 0);
  for (std::size_t k = 0; k < total; ++k) {
    const std::uint64_t s = std::uint32_t(q.index[k]);
    if (s - first >= n) {
      seen[s / 64] |= std::uint64_t{1} << (s % 64);
      ++rows.crossEdges;
    }
  }
  std::vector<std::uint32_t> before(seen.size());
  std::uint32_t ghosts = 0;
  for (std::size_t w = 0; w < seen.size(); ++w) {
    before[w] = ghosts;
    ghosts += std::uint32_t(std::popcount(seen[w]));
  }
  rows.ghosts.reserve(ghosts);
  for (std::size_t w = 0; w < seen.size(); ++w)
    for (std::uint64_t bits = seen[w]; bits != 0; bits &= bits - 1)
      rows.ghosts.push_back(PetscInt(w * 64 + std::size_t(std::countr_zero(bits))));
  for (std::size_t k = 0; k < total; ++k) {
    const std::uint64_t s = std::uint32_t(q.index[k]);
    const std::uint64_t below = seen[s / 64] & ((std::uint64_t{1} << (s % 64)) - 1);
    q.index[k] = s - first < n ? std::int32_t(s - first)
                               : std::int32_t(n + before[s / 64] + std::popcount(below));
  }
}

/// The rows (collective) into LocalRows: the columns laid out by the first pass's counts,
/// filled from deliverEdges, the sources renumbered locally, and packed. Frees the
/// chain's counts and exit rates.
LocalRows gatherRows(const Session& session, LocalChain& chain) {
  if (chain.states > std::uint64_t(PETSC_MAX_INT))
    throw ExplorationFailure{Status::EdgeLimit,
                             "more than 2^31 - 1 tangible markings, beyond PETSc's 32-bit "
                             "indices in this build"};
  LocalRows rows;
  solver::Generator& q = rows.q;
  receiveEdges(session, chain, q, columnStarts(session, chain, q));
  numberGhosts(chain, rows);
  const std::size_t n = chain.size();
  q.exitRate = gspn::EdgeRates::compacted(std::move(chain.exitRate));
  chain.exitRate = std::vector<double>();
  q.pack(n + rows.ghosts.size());
  return rows;
}

/// The ghosts' values fetched from their owners by one MPI_Neighbor_alltoallv over a
/// graph communicator whose edges are the pairs of ranks with edges between their states
/// (MPI_Dist_graph_create_adjacent): each rank packs the values the others asked for,
/// once, at set-up, and they arrive in the ghosts' order (ascending global ids are grouped
/// by owner). Under a partition by places an edge joins markings whose keys differ a
/// little, so a rank's neighbours are the ranks of nearby key ranges (Kanban N = 4 on 8
/// ranks: 1–5 of the 7 others, FMS N = 4 likewise), and an exchange sends messages to
/// those rather than to every rank, as an MPI_Alltoallv would. 20 bytes a ghost: its
/// value, and at its owner the index and the packed value. PETSc's VecScatter holds 32
/// (its star forest's remote and local indices and its buffers): on Kanban N = 6 on 4
/// ranks, 7.9 million ghosts a rank, 253 MB against 158.
///
/// The values can also be fetched a chunk at a time: chunk c of a rank's states is the
/// markings it was given in the c-th round of the first pass that gave any rank a marking
/// (LocalChain::found; local ids [start(c), start(c + 1))), and fetchChunk(c) brings
/// every rank's chunk c, so that a sweep over chunk c + 1 reads the other ranks' chunks
/// up to c as they were just swept (sweepInChunks). The fetches of a sweep carry the
/// bytes of one, in as many messages as the first pass had rounds.
class GhostExchange {
 public:
  /// Collective. `ghosts`: global ids, ascending; this rank owns [first, first + n), of
  /// which `found` (LocalChain::found) tells the rounds.
  GhostExchange(const Session& session, const std::vector<PetscInt>& ghosts, std::uint64_t first,
                std::uint64_t n, const std::vector<std::uint32_t>& found)
      : starts_(chunkStarts(found, n)) {
    const int ranks = session.size();
    std::vector<std::uint64_t> firsts(ranks + 1);
    MPI_Allgather(&first, 1, MPI_UINT64_T, firsts.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    firsts[ranks] = std::numeric_limits<std::uint64_t>::max();
    receiveCounts_.assign(ranks, 0);
    for (std::size_t k = 0, r = 0; k < ghosts.size(); ++k) {
      while (std::uint64_t(ghosts[k]) >= firsts[r + 1]) ++r;
      ++receiveCounts_[r];
    }
    sendCounts_.assign(ranks, 0);
    MPI_Alltoall(receiveCounts_.data(), 1, MPI_INT, sendCounts_.data(), 1, MPI_INT, MPI_COMM_WORLD);
    receiveOffsets_ = offsets(receiveCounts_);
    sendOffsets_ = offsets(sendCounts_);
    std::vector<std::uint32_t> asked(ghosts.begin(), ghosts.end());
    sendIndex_.resize(std::size_t(sendOffsets_.back() + sendCounts_.back()));
    MPI_Alltoallv(asked.data(), receiveCounts_.data(), receiveOffsets_.data(), MPI_UINT32_T,
                  sendIndex_.data(), sendCounts_.data(), sendOffsets_.data(), MPI_UINT32_T,
                  MPI_COMM_WORLD);
    for (std::uint32_t& i : sendIndex_) i -= std::uint32_t(first);
    sendBuffer_.resize(sendIndex_.size());
    // The values sent for chunk c (the asked indices, ascending in each destination's
    // block) and received (the ghosts, ascending in each owner's block) are a run of
    // each block: where chunk c starts, per chunk and rank.
    const std::size_t bounds = starts_.size();
    std::vector<int> allStarts(bounds * std::size_t(ranks));
    MPI_Allgather(starts_.data(), int(bounds), MPI_INT, allStarts.data(), int(bounds), MPI_INT,
                  MPI_COMM_WORLD);
    sendFrom_.resize(bounds * std::size_t(ranks));
    receiveFrom_.resize(sendFrom_.size());
    for (std::size_t c = 0; c < bounds; ++c)
      for (int r = 0; r < ranks; ++r) {
        const std::size_t at = c * std::size_t(ranks) + std::size_t(r);
        const std::uint32_t* sent = sendIndex_.data() + sendOffsets_[r];
        sendFrom_[at] =
            int(std::lower_bound(sent, sent + sendCounts_[r], std::uint32_t(starts_[c])) - sent);
        const PetscInt* got = ghosts.data() + receiveOffsets_[r];
        const auto theirs = firsts[r] + std::uint64_t(allStarts[std::size_t(r) * bounds + c]);
        receiveFrom_[at] =
            int(std::lower_bound(got, got + receiveCounts_[r], PetscInt(theirs)) - got);
      }
    for (int r = 0; r < ranks; ++r) {
      if (receiveCounts_[r] > 0) sources_.push_back(r);
      if (sendCounts_[r] > 0) destinations_.push_back(r);
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, int(sources_.size()), sources_.data(),
                                   MPI_UNWEIGHTED, int(destinations_.size()), destinations_.data(),
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &neighbours_);
    runCounts_.resize(2 * (sources_.size() + destinations_.size()));
  }
  GhostExchange(const GhostExchange&) = delete;
  GhostExchange& operator=(const GhostExchange&) = delete;
  ~GhostExchange() { MPI_Comm_free(&neighbours_); }
  /// The chunks of a sweep, the same number on every rank.
  int chunks() const { return int(starts_.size()) - 1; }
  /// The first local id of chunk c (c = chunks(): the rank's count).
  int start(int c) const { return starts_[std::size_t(c)]; }
  /// The first ghost of each rank (ghosts are grouped by owner), and one past the last.
  std::vector<int> ghostsFrom() const {
    std::vector<int> out = receiveOffsets_;
    out.push_back(receiveOffsets_.back() + receiveCounts_.back());
    return out;
  }
  /// Collective: ghost[k] becomes the value of the k-th ghost in its owner's `own`.
  void fetch(const PetscScalar* own, PetscScalar* ghost) { fetchChunks(0, chunks(), own, ghost); }
  /// Collective: the ghosts in chunk c of their owners take their owners' values.
  void fetchChunk(int c, const PetscScalar* own, PetscScalar* ghost) {
    fetchChunks(c, c + 1, own, ghost);
  }

 private:
  /// Collective: the ghosts in chunks [from, to) of their owners take their owners'
  /// values, by one MPI_Neighbor_alltoallv.
  void fetchChunks(int from, int to, const PetscScalar* own, PetscScalar* ghost) {
    const std::size_t ranks = sendCounts_.size(), out = destinations_.size(), in = sources_.size();
    int *sent = runCounts_.data(), *sentAt = sent + out, *got = sentAt + out, *gotAt = got + in;
    for (std::size_t d = 0; d < out; ++d) {
      const auto r = std::size_t(destinations_[d]);
      const std::size_t begin = std::size_t(from) * ranks + r, end = std::size_t(to) * ranks + r;
      sentAt[d] = sendOffsets_[r] + sendFrom_[begin];
      sent[d] = sendFrom_[end] - sendFrom_[begin];
      for (int k = sentAt[d]; k < sentAt[d] + sent[d]; ++k)
        sendBuffer_[std::size_t(k)] = own[sendIndex_[std::size_t(k)]];
    }
    for (std::size_t e = 0; e < in; ++e) {
      const auto r = std::size_t(sources_[e]);
      const std::size_t begin = std::size_t(from) * ranks + r, end = std::size_t(to) * ranks + r;
      gotAt[e] = receiveOffsets_[r] + receiveFrom_[begin];
      got[e] = receiveFrom_[end] - receiveFrom_[begin];
    }
    MPI_Neighbor_alltoallv(sendBuffer_.data(), sent, sentAt, MPI_DOUBLE, ghost, got, gotAt,
                           MPI_DOUBLE, neighbours_);
  }
  /// Collective: where each chunk starts in this rank's local ids, and the rank's count
  /// last: a chunk per round of the first pass in which any rank was given markings
  /// (their counts summed over the ranks). `found`, as LocalChain::found, the same length
  /// on every rank; a single chunk where it does not end at n.
  static std::vector<int> chunkStarts(const std::vector<std::uint32_t>& found, std::uint64_t n) {
    const std::size_t rounds = found.size();
    std::vector<std::uint64_t> given(rounds), everywhere(rounds);
    for (std::size_t r = 0; r < rounds; ++r) given[r] = found[r] - (r > 0 ? found[r - 1] : 0);
    MPI_Allreduce(given.data(), everywhere.data(), int(rounds), MPI_UINT64_T, MPI_SUM,
                  MPI_COMM_WORLD);
    int whole = rounds > 0 && found.back() == n, everyWhole = 0;
    MPI_Allreduce(&whole, &everyWhole, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    std::vector<int> starts{0};
    if (everyWhole)
      for (std::size_t r = 0; r + 1 < rounds; ++r)
        if (everywhere[r] > 0) starts.push_back(int(found[r]));
    starts.push_back(int(n));
    return starts;
  }
  static std::vector<int> offsets(const std::vector<int>& counts) {
    std::vector<int> out(counts.size(), 0);
    for (std::size_t r = 1; r < counts.size(); ++r) out[r] = out[r - 1] + counts[r - 1];
    return out;
  }
  std::vector<int> starts_;
  std::vector<int> sendCounts_, sendOffsets_, receiveCounts_, receiveOffsets_;
  std::vector<std::uint32_t> sendIndex_;
  std::vector<PetscScalar> sendBuffer_;
  /// By chunk c ≤ chunks() and rank r (c · ranks + r): where chunk c starts in the values
  /// sent to r and in those received from r, relative to their block.
  std::vector<int> sendFrom_, receiveFrom_;
  /// The ranks this rank receives ghosts' values from and sends values to, ascending: its
  /// neighbours in `neighbours_`, in that order.
  std::vector<int> sources_, destinations_;
  MPI_Comm neighbours_ = MPI_COMM_NULL;
  /// fetchChunks' counts and offsets sent (a pair per destination) and received (per
  /// source).
  std::vector<int> runCounts_;
};

/// The context of the shell matrix A = Qᵀ (PETSc's MATSHELL): the rank's rows, and where
/// the ghosts' values are fetched to before each product or sweep.
struct Product {
  const solver::Generator* q = nullptr;
  GhostExchange* exchange = nullptr;
  PetscScalar* ghost = nullptr;
};

/// Calls f with the reader of source i's value: own[i] for the rank's states, ghost[i − n]
/// for the ghosts, one array without a branch where the ghosts follow the rank's values
/// (the iterate of solveDistributed: where the hash partition stays, most sources are
/// ghosts, and the branch on each was mispredicted often enough to matter).
template <typename F>
void withSources(const PetscScalar* own, const PetscScalar* ghost, int n, F&& f) {
  if (ghost == own + n)
    f([own](int i) { return own[i]; });
  else
    f([own, ghost, n](int i) { return i < n ? own[i] : ghost[i - n]; });
}

/// (A x)_j = Σ_i x_i q_ij − x_j Σ_{i≠j} q_ji for each of the rank's states j, handed to
/// row(j, value) in order, the ghosts' values fetched first (collective).
template <typename Row>
PetscErrorCode eachRow(const Product& product, Vec x, Row&& row) {
  const PetscScalar* own = nullptr;
  PetscCall(VecGetArrayRead(x, &own));
  product.exchange->fetch(own, product.ghost);
  const PetscScalar* ghost = product.ghost;
  const solver::Generator& q = *product.q;
  const int n = int(q.size());
  const gspn::EdgeRates& exit = q.exitRate;
  withSources(own, ghost, n, [&](auto read) {
    for (int j = 0; j < n; ++j) row(j, q.inflowWith(std::size_t(j), read) - own[j] * exit[j]);
  });
  PetscCall(VecRestoreArrayRead(x, &own));
  return 0;
}

/// y = A x (the shell's product).
PetscErrorCode multiply(Mat a, Vec x, Vec y) {
  Product* product = nullptr;
  PetscCall(MatShellGetContext(a, &product));
  PetscScalar* out = nullptr;
  PetscCall(VecGetArray(y, &out));
  PetscCall(eachRow(*product, x, [&](int j, double value) { out[j] = value; }));
  PetscCall(VecRestoreArray(y, &out));
  return 0;
}

/// One sweep over the rank's states [lo, hi) with the ghosts' values last fetched: each
/// state in turn x_j ← (1 − ω) x_j + ω (b_j − Σ_i x_i q_ij) / (s − exit_j), forward or
/// backward, with a right-hand side b (null: 0) and a diagonal shift s. Returns Σ_j of
/// |the change of x_j|.
double sweepRange(const Product& product, PetscScalar* own, double omega, const PetscScalar* rhs,
                  double shift, int lo, int hi, bool forward) {
  const solver::Generator& q = *product.q;
  const int n = int(q.size());
  const gspn::EdgeRates& exit = q.exitRate;
  double change = 0;
  withSources(own, product.ghost, n, [&](auto read) {
    auto update = [&](int j) {
      const double inflow = q.inflowWith(std::size_t(j), read);
      const double next =
          (1 - omega) * own[j] + omega * ((rhs ? rhs[j] : 0.0) - inflow) / (shift - exit[j]);
      change += std::abs(next - own[j]);
      own[j] = next;
    };
    if (forward)
      for (int j = lo; j < hi; ++j) update(j);
    else
      for (int j = hi - 1; j >= lo; --j) update(j);
  });
  return change;
}

/// sweepRange over all the rank's states.
double sweepOnce(const Product& product, PetscScalar* own, double omega, const PetscScalar* rhs,
                 double shift, bool forward) {
  return sweepRange(product, own, omega, rhs, shift, 0, int(product.q->size()), forward);
}

/// A forward sweep of x_j ← (1 − ω) x_j − ω Σ_i x_i q_ij / exit_j (A x = 0) a chunk at a
/// time, each chunk's values sent to the ranks that read them before the next chunk is
/// swept (GhostExchange::fetchChunk): Gauss–Seidel over the ranks' chunks in the order
/// chunk 0 of every rank, chunk 1 of every rank, …, and block Jacobi only among the
/// ranks' chunks of the same number. A chunk being a round of the first pass, that order
/// is the order the markings were found in, near breadth-first like one process's
/// numbering (mpi/state_space.cpp, migrate), and the edges between ranks, few but on the
/// paths of the slow modes that cross the partition (the partition's places change
/// rarely), join a round's markings mostly to those of the rounds just before and after:
/// most read values of this sweep, as one process's sweep would. Ends with every ghost's
/// value fetched. Returns Σ_j |the change of x_j|.
double sweepInChunks(const Product& product, PetscScalar* own, double omega) {
  GhostExchange& exchange = *product.exchange;
  double change = 0;
  for (int c = 0; c < exchange.chunks(); ++c) {
    change += sweepRange(product, own, omega, nullptr, 0.0, exchange.start(c),
                         exchange.start(c + 1), true);
    exchange.fetchChunk(c, own, product.ghost);
  }
  return change;
}

/// Gauss–Seidel sweeps on A x = 0 (the shell's MatSOR, for PETSc's SOR preconditioner
/// under the Krylov methods): the ghosts' values fetched from their owners before each
/// sweep, then the rank's states swept in turn (sweepOnce) with the values of this sweep
/// for the rank's own states and the last fetched ones for the ghosts: block Jacobi
/// between the ranks, Gauss–Seidel within each, as one process sweeps its blocks (solver/
/// steady_state.hpp; Stewart 1994 §3.2). Forward sweeps, backward too when asked.
PetscErrorCode sweep(Mat a, Vec b, PetscReal omega, MatSORType flag, PetscReal shift, PetscInt its,
                     PetscInt lits, Vec x) {
  Product* product = nullptr;
  PetscCall(MatShellGetContext(a, &product));
  const bool backward = (flag & (SOR_BACKWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP)) != 0;
  const bool forward = (flag & (SOR_FORWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP)) != 0 || !backward;
  if (flag & SOR_ZERO_INITIAL_GUESS) PetscCall(VecSet(x, 0.0));
  for (PetscInt outer = 0; outer < its; ++outer) {
    PetscScalar* own = nullptr;
    PetscCall(VecGetArray(x, &own));
    product->exchange->fetch(own, product->ghost);
    const PetscScalar* rhs = nullptr;
    if (b) PetscCall(VecGetArrayRead(b, &rhs));
    for (PetscInt inner = 0; inner < std::max<PetscInt>(lits, 1); ++inner) {
      if (forward) sweepOnce(*product, own, omega, rhs, shift, true);
      if (backward) sweepOnce(*product, own, omega, rhs, shift, false);
    }
    if (b) PetscCall(VecRestoreArrayRead(b, &rhs));
    PetscCall(VecRestoreArray(x, &own));
  }
  return 0;
}

/// The diagonal of A, −exit_j: what PETSc's Jacobi preconditioner reads.
PetscErrorCode diagonal(Mat a, Vec d) {
  Product* product = nullptr;
  PetscCall(MatShellGetContext(a, &product));
  PetscScalar* out = nullptr;
  PetscCall(VecGetArray(d, &out));
  const gspn::EdgeRates& exit = product->q->exitRate;
  for (std::size_t j = 0; j < exit.size(); ++j) out[j] = -exit[j];
  PetscCall(VecRestoreArray(d, &out));
  return 0;
}

/// Koury, McAllister and Stewart's aggregation–disaggregation (SIAM J. Alg. Disc. Meth.
/// 5(2), 1984; Stewart 1994 §6.3) with the ranks' blocks as its aggregates: the sweeps of
/// block Jacobi between the ranks correct the distribution within each block quickly and
/// the masses of the blocks slowly, as they move through the few edges between ranks;
/// one step sets the masses to the steady state of the coupling chain, C_IJ = Σ_{i∈I}
/// φ_i Σ_{j∈J} q_ij with φ the distribution within block I, solved by GTH
/// (solver/gth.hpp). The flow from rank I into this rank's states is Σ_k π_k w_k over
/// I's ghosts k, w_k the rates of the ghost's edges into this rank (kept, 8 bytes a
/// ghost). A step costs an all-gather of P + 1 numbers a rank: it reads the ghosts'
/// values a sweep left fresh, and rescales them as their owners rescale theirs.
class RankAggregation {
 public:
  RankAggregation(const Session& session, const solver::Generator& q, const GhostExchange& exchange,
                  std::size_t ghosts)
      : me_(session.rank()), ghostsFrom_(exchange.ghostsFrom()), weight_(ghosts, 0.0) {
    const auto n = int(q.size());
    for (std::size_t k = 0; k < q.entries(); ++k)
      if (const int i = q.source(k); i >= n) weight_[std::size_t(i - n)] += q.rate(k);
  }
  /// Collective: rescales each rank's part of x to the coupling chain's masses, and the
  /// ghosts' values by their owners' factors, so that they stay the owners' values
  /// without an exchange. The ghosts' values must be fresh (as a sweep leaves them). Does
  /// nothing while a block has no mass.
  void correct(const Product& product, PetscScalar* own) {
    const int ranks = int(ghostsFrom_.size()) - 1;
    const auto n = PetscInt(product.q->size());
    // Row 0..P−1 of `local`: the flow from each rank into this one; then this rank's mass.
    std::vector<double> local(std::size_t(ranks) + 1, 0.0), all(local.size() * ranks);
    for (int r = 0; r < ranks; ++r)
      for (int k = ghostsFrom_[r]; k < ghostsFrom_[r + 1]; ++k)
        local[r] += product.ghost[k] * weight_[std::size_t(k)];
    for (PetscInt j = 0; j < n; ++j) local[ranks] += own[j];
    MPI_Allgather(local.data(), ranks + 1, MPI_DOUBLE, all.data(), ranks + 1, MPI_DOUBLE,
                  MPI_COMM_WORLD);
    // C_IJ = flow(I → J) / mass(I), over the ranks that hold states.
    std::vector<int> blocks;
    for (int r = 0; r < ranks; ++r)
      if (all[std::size_t(r) * (ranks + 1) + ranks] > 0) blocks.push_back(r);
    const std::size_t m = blocks.size();
    if (m < 2) return;
    std::vector<double> coupling(m * m, 0.0);
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = 0; b < m; ++b) {
        const std::size_t from = std::size_t(blocks[a]), into = std::size_t(blocks[b]);
        if (a != b)
          coupling[a * m + b] = all[into * (ranks + 1) + from] / all[from * (ranks + 1) + ranks];
        // An iterate with negative values (SOR diverging) has no coupling chain.
        if (!(coupling[a * m + b] >= 0) || !std::isfinite(coupling[a * m + b])) return;
      }
    std::vector<double> xi;
    try {
      xi = solver::gthSteadyState(coupling, m);
    } catch (const std::domain_error&) {
      return;  // blocks without flow between them yet: every rank returns alike
    }
    // Every rank computes every block's factor alike from the gathered masses.
    for (std::size_t a = 0; a < m; ++a) {
      const int r = blocks[a];
      const double scale = xi[a] / all[std::size_t(r) * (ranks + 1) + ranks];
      if (!std::isfinite(scale) || !(scale > 0)) continue;
      if (r == me_)
        for (PetscInt j = 0; j < n; ++j) own[j] *= scale;
      for (int k = ghostsFrom_[r]; k < ghostsFrom_[r + 1]; ++k) product.ghost[k] *= scale;
    }
  }

 private:
  int me_;
  std::vector<int> ghostsFrom_;
  std::vector<double> weight_;
};

/// Normalizes v, then sets out's residual ‖πQ‖∞ / max_i |q_ii| (`scale`: the largest
/// exit rate over the ranks) and its worst flow imbalance over single states by
/// solver/accuracy.hpp's rule (imbalanceError over the states whose flow is above
/// kFlowFloor of the total, ν_min the smallest exit rate among them), with in(j) = (πQ)_j
/// + out(j) and out(j) = π_j · exit_j, the exit rates being this rank's. (πQ)_j is taken
/// row by row (eachRow), not into a vector. Collective.
void judgeIterate(Vec v, const Product& product, double scale, DistributedSteadyState& out) {
  const gspn::EdgeRates& exits = product.q->exitRate;
  const auto n = PetscInt(product.q->size());
  PetscScalar total = 0;
  check(VecSum(v, &total), "VecSum");
  if (!(std::abs(total) > 0)) {
    out.residual = out.imbalance = INFINITY;
    return;
  }
  check(VecScale(v, 1.0 / total), "VecScale");
  const PetscScalar* p = nullptr;
  check(VecGetArrayRead(v, &p), "VecGetArrayRead");
  double flow = 0, totalFlow = 0;
  for (PetscInt j = 0; j < n; ++j) flow += p[j] * exits[j];
  MPI_Allreduce(&flow, &totalFlow, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double floor = solver::kFlowFloor * totalFlow;
  double slowest = INFINITY, mySlowest = INFINITY;
  for (PetscInt j = 0; j < n; ++j)
    if (p[j] * exits[j] >= floor) mySlowest = std::min(mySlowest, exits[j]);
  MPI_Allreduce(&mySlowest, &slowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  double largest = 0, worst = 0;
  check(eachRow(product, v,
                [&](int j, double balance) {
                  largest = std::max(largest, std::abs(balance));
                  const double outflow = p[j] * exits[j], inflow = std::max(0.0, balance + outflow);
                  if (totalFlow > 0 && std::max(inflow, outflow) >= floor)
                    worst = std::max(worst, solver::imbalanceError(inflow, outflow, slowest));
                }),
        "eachRow");
  check(VecRestoreArrayRead(v, &p), "VecRestoreArrayRead");
  double globalLargest = 0;
  MPI_Allreduce(&largest, &globalLargest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  out.residual = scale > 0 ? globalLargest / scale : 0.0;
  MPI_Allreduce(&worst, &out.imbalance, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/// The shell matrix A = Qᵀ over `product`: its product, diagonal and Gauss–Seidel sweep.
Mat shellMatrix(Product& product, PetscInt n, PetscInt N) {
  Mat A;
  check(MatCreateShell(PETSC_COMM_WORLD, n, n, N, N, &product, &A), "MatCreateShell");
  check(MatShellSetOperation(A, MATOP_MULT, (void (*)(void))multiply), "MatShellSetOperation");
  check(MatShellSetOperation(A, MATOP_GET_DIAGONAL, (void (*)(void))diagonal),
        "MatShellSetOperation");
  check(MatShellSetOperation(A, MATOP_SOR, (void (*)(void))sweep), "MatShellSetOperation");
  return A;
}

/// One Krylov method from x's values, in rounds: the relative tolerance of its own residual
/// 1e-4 and then 1e-3 of that each round, until `judge` (which normalizes x) finds the true
/// residual within kKrylovResidualPerTolerance times `tolerance` and the flow imbalance
/// within `tolerance`, the iterations reach `allowed`,
/// or the method breaks down. The method is named by PETSc's names of what ran
/// (PETSC_OPTIONS may change them): "bcgs+jacobi", "gmres+jacobi". Collective.
template <typename Judge>
void krylovRounds(KSP ksp, Vec b, Vec x, KSPType type, PCType preconditioner, double tolerance,
                  PetscInt allowed, Judge&& judge, DistributedSteadyState& out) {
  check(KSPSetType(ksp, type), "KSPSetType");
  PC pc;
  check(KSPGetPC(ksp, &pc), "KSPGetPC");
  check(PCSetType(pc, preconditioner), "PCSetType");
  for (double relative = 1e-4; relative > 1e-18 && out.iterations < std::uint64_t(allowed);
       relative *= 1e-3) {
    check(KSPSetTolerances(ksp, relative, 0.0, PETSC_DEFAULT, allowed - PetscInt(out.iterations)),
          "KSPSetTolerances");
    check(KSPSetFromOptions(ksp), "KSPSetFromOptions");
    check(KSPSolve(ksp, b, x), "KSPSolve");
    KSPType ran = nullptr;
    PCType with = nullptr;
    check(KSPGetType(ksp, &ran), "KSPGetType");
    check(PCGetType(pc, &with), "PCGetType");
    out.method = std::string(ran) + "+" + with;
    KSPConvergedReason reason;
    PetscInt done = 0;
    check(KSPGetConvergedReason(ksp, &reason), "KSPGetConvergedReason");
    check(KSPGetIterationNumber(ksp, &done), "KSPGetIterationNumber");
    out.iterations += std::uint64_t(done);
    judge(x);
    out.converged =
        out.residual <= kKrylovResidualPerTolerance * tolerance && out.imbalance <= tolerance;
    if (out.converged || reason < 0) return;
  }
}

/// The sweeps' stopping rule and their two accelerations, judged once a round.
struct SweepControl {
  double omega = 1;
  bool relaxing = true, extrapolating = true;
  /// The residual after the last round, and the factors it fell by in the last two.
  double lastResidual = INFINITY, lastRate = INFINITY, rateBefore = INFINITY;
  /// Rounds left before the rates mean anything again after an extrapolation.
  int settling = 0;
  /// The residual an extrapolation started from: the round after must end below it.
  double beforeExtrapolation = INFINITY;
  /// Extrapolations undone so far, and the rounds in a row whose rate held within 5 %.
  int failures = 0, steadyRounds = 0;
  /// Rounds left of Gauss–Seidel's trial against SOR, and the rate SOR had before it.
  int trialRounds = 0;
  double sorRate = INFINITY;
  bool tried = false;

  /// The relaxation of the next round after one (not settling) whose residual fell by
  /// `rate` at `sweeps` sweeps in all. Returns the rate, or infinity where the method
  /// changes (no rate to judge by then).
  double relax(double rate, std::uint64_t sweeps) {
    if (omega > 1 && !(rate < 1)) {
      omega = 1;
      relaxing = false;
    } else if (trialRounds > 0) {
      if (--trialRounds > 0) return rate;  // the change of method's transient
      relaxing = !(rate < sorRate);
      omega = relaxing ? kRelaxation : 1;
      return INFINITY;
    } else if (omega > 1 && relaxing && !tried && rate > lastRate && lastRate > rateBefore &&
               rate > kSlowRound) {
      tried = true;
      sorRate = rate;
      omega = 1;
      trialRounds = 2;
      return INFINITY;
    } else if (relaxing && sweeps >= kRelaxedFrom && rate < 1) {
      omega = kRelaxation;
    }
    return rate;
  }
};

/// The first method, in rounds of kSweepsPerRound sweeps, an aggregation step over the
/// ranks' blocks before each round's last sweep, and a judgement after it (`judge`
/// normalizes x).
///  - Each sweep a chunk at a time (sweepInChunks), which leaves every ghost's value
///    fresh; the first of a round after a fetch of them all (x was normalized, perhaps
///    extrapolated).
///  - Gauss–Seidel, then SOR at kRelaxation from kRelaxedFrom sweeps on while the
///    residual falls at every round (block Jacobi between the ranks can diverge where
///    Gauss–Seidel converges, so a round whose residual grows ends SOR for good). SOR
///    that damps the fast modes first can then converge more slowly than Gauss–Seidel
///    (Kanban N = 5 on 4 ranks: 0.96 a sweep against 0.92): once its rate has grown two
///    rounds in a row, Gauss–Seidel is tried for two rounds, the first a transient, and
///    whichever method's rate is lower is kept for good.
///  - The stopping rule. The residual alone does not bound the error of π: it converges
///    at the rate ρ of the slowest mode, which couplings between the ranks' blocks slow
///    down, and the error left is about δ ρ / (1 − ρ) for a last sweep that changed π by
///    δ in ‖·‖₁ (Stewart 1994 §3.2.5), ρ measured from the residuals of the last two
///    rounds. The rounds go on until that estimate is within kErrorPerTolerance times the
///    tolerance too; at a residual a thousand times below the tolerance, where rounding
///    noise can make it grow, the change δ alone is the estimate.
///  - Extrapolation along the slowest mode: where ρ held within 5 % over two rounds, the
///    error left is about the sum of the last sweep's change d over the sweeps to come,
///    d ρ / (1 − ρ), and it is added at once (Aitken's extrapolation, vector-wise, as
///    Kamvar, Haveliwala, Manning & Golub, "Extrapolation methods for accelerating
///    PageRank computations", WWW 2003, do for the power method), unless it would make a
///    probability negative; the next round's sweeps damp what it adds to the fast modes.
///    A round after it that ends above the residual it started from is undone: x goes
///    back to the iterate one sweep before the extrapolation (kept in `before`, which
///    that round does not overwrite), and the next extrapolation waits for one more
///    round of steady rate; after kExtrapolationFailures, none. It halves the sweeps on
///    FMS N = 4 on 2 and 3 ranks (510 → 240, 730 → 350).
template <typename Judge>
void gaussSeidelRounds(const Product& product, Vec x, PetscScalar* own,
                       RankAggregation& aggregation, double tolerance, std::uint64_t budget,
                       Judge&& judge, DistributedSteadyState& out) {
  const auto n = std::size_t(product.q->size());
  SweepControl c;
  std::vector<double> before(n);  // the iterate before each round's last sweep
  while (!out.converged && out.iterations < budget) {
    const std::uint64_t sweeps = std::min<std::uint64_t>(kSweepsPerRound, budget - out.iterations);
    double change = 0;
    for (std::uint64_t k = 0; k < sweeps; ++k) {
      // x changed since the round before (normalized, perhaps extrapolated): every
      // ghost's value fetched. After a sweep they are fresh (sweepInChunks), as the
      // aggregation step needs them.
      if (k == 0) product.exchange->fetch(own, product.ghost);
      if (k + 1 == sweeps) {
        aggregation.correct(product, own);
        if (c.settling != 2) std::copy(own, own + n, before.begin());
      }
      change = sweepInChunks(product, own, c.omega);
    }
    out.iterations += sweeps;
    // The last sweep's change, and the masses of π and of the iterate before it.
    double sums[3] = {change, 0, 0}, totals[3] = {0, 0, 0};
    for (std::size_t j = 0; j < n; ++j) {
      sums[1] += own[j];
      sums[2] += before[j];
    }
    MPI_Allreduce(sums, totals, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double delta = totals[1] > 0 ? totals[0] / totals[1] : INFINITY;
    judge(x);
    double rate = out.residual / c.lastResidual;
    if (c.settling == 0) {
      rate = c.relax(rate, out.iterations);
    } else if (--c.settling == 1 && out.residual > c.beforeExtrapolation) {
      std::copy(before.begin(), before.end(), own);  // the extrapolation undone
      c.settling = 0;
      c.lastResidual = c.lastRate = INFINITY;
      c.extrapolating = ++c.failures < kExtrapolationFailures;
      continue;
    }
    c.rateBefore = c.lastRate;
    // No rate after the first round or an extrapolation (lastResidual infinite).
    const double rho = std::isfinite(c.lastResidual) ? std::pow(rate, 1.0 / double(sweeps)) : 1.0;
    out.errorEstimate = rho < 1                            ? delta * rho / (1 - rho)
                        : out.residual <= 1e-3 * tolerance ? delta
                                                           : INFINITY;
    out.converged = out.residual <= tolerance && out.imbalance <= tolerance &&
                    out.errorEstimate <= kErrorPerTolerance * tolerance;
    c.steadyRounds = std::abs(rate - c.lastRate) <= 0.05 * rate ? c.steadyRounds + 1 : 0;
    const bool steady = c.steadyRounds >= 1 + c.failures;
    c.lastResidual = out.residual;
    c.lastRate = rate;
    if (out.converged || !c.extrapolating || c.settling > 0 || !(rho < 1) || !steady ||
        !(totals[2] > 0))
      continue;
    // π + (π − before) ρ / (1 − ρ), both of mass 1, so the sum stays 1.
    const double gain = rho / (1 - rho), scale = 1 / totals[2];
    double lowest = INFINITY, allLowest = 0;
    for (std::size_t j = 0; j < n; ++j)
      lowest = std::min(lowest, own[j] + gain * (own[j] - before[j] * scale));
    MPI_Allreduce(&lowest, &allLowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    if (!(allLowest >= 0)) continue;
    for (std::size_t j = 0; j < n; ++j) own[j] += gain * (own[j] - before[j] * scale);
    c.beforeExtrapolation = out.residual;
    c.lastResidual = c.lastRate = INFINITY;
    c.settling = 2;
    out.converged = false;
  }
  out.method = c.omega > 1 ? "sor" : "gauss-seidel";
}

}  // namespace

/// solveDistributed, in the module.
DistributedSteadyState solveInModule(const Session& session, LocalChain& chain, double tolerance,
                                     std::uint64_t maxIterations) {
  PetscScope petsc;
  DistributedSteadyState out;
  const PetscInt n = PetscInt(chain.size()), N = PetscInt(chain.states);
  LocalRows rows = gatherRows(session, chain);
  // The exploration's freed memory (counts, exchange buffers: small blocks in the heap)
  // returned to the system before the solve's large vectors, which are mapped afresh
  // rather than taken from the heap.
  gspn::releaseFreePages();
  const solver::Generator& q = rows.q;
  const auto start = std::chrono::steady_clock::now();

  // One vector of the rank's length while Gauss–Seidel runs; the Krylov methods, if it
  // fails, add the zero right-hand side b and their work vectors.
  Vec x, b = nullptr;
  // x's values and the ghosts' after them in one array (withSources).
  const PetscInt ghosts = PetscInt(rows.ghosts.size());
  std::vector<PetscScalar> values(std::size_t(n) + std::size_t(ghosts));
  check(VecCreateMPIWithArray(PETSC_COMM_WORLD, 1, n, N, values.data(), &x),
        "VecCreateMPIWithArray");
  GhostExchange exchange(session, rows.ghosts, chain.first, std::uint64_t(n), chain.found);
  std::vector<PetscInt>().swap(rows.ghosts);
  Product product{&q, &exchange, values.data() + n};
  out.bytesPerProduct = std::uint64_t(ghosts) * sizeof(PetscScalar);
  out.crossEdges = rows.crossEdges;
  Mat A = shellMatrix(product, n, N);
  double largestExit = q.exitRate.largest(), scale = 0;
  MPI_Allreduce(&largestExit, &scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  auto judge = [&](Vec v) { judgeIterate(v, product, scale, out); };

  KSP ksp;
  check(KSPCreate(PETSC_COMM_WORLD, &ksp), "KSPCreate");
  check(KSPSetOperators(ksp, A, A), "KSPSetOperators");
  // Each method runs in rounds from the last iterate, the relative tolerance of its own
  // residual 1e-4 and then 1e-3 of that each round, until the true residual and the flow
  // imbalance both meet the tolerance (as on one machine); a method that breaks down
  // hands over to the next.
  const auto allowed = PetscInt(std::min<std::uint64_t>(maxIterations, 1u << 30));
  check(VecSet(x, 1.0 / double(N)), "VecSet");
  check(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE), "KSPSetInitialGuessNonzero");
  auto attempt = [&](KSPType type, PCType preconditioner) {
    krylovRounds(ksp, b, x, type, preconditioner, tolerance, allowed, judge, out);
  };
  // Gauss–Seidel first (the shell's sweeps, called directly: no vector but x), judged
  // every kSweepsPerRound sweeps and given at most kGaussSeidelSweeps; not when
  // PETSC_OPTIONS chooses the methods.
  out.method = "gauss-seidel";
  if (!std::getenv("PETSC_OPTIONS")) {
    const auto budget = std::min<std::uint64_t>(std::uint64_t(allowed), kGaussSeidelSweeps);
    RankAggregation aggregation(session, q, exchange, std::size_t(ghosts));
    gaussSeidelRounds(product, x, values.data(), aggregation, tolerance, budget, judge, out);
  }
  if (!out.converged) {
    check(VecDuplicate(x, &b), "VecDuplicate");
    check(VecSet(b, 0.0), "VecSet");
  }
  if (!out.converged && !std::isfinite(out.residual)) check(VecSet(x, 1.0 / double(N)), "VecSet");
  if (!out.converged && out.iterations < std::uint64_t(allowed)) attempt(KSPBCGS, PCJACOBI);
  if (!out.converged && out.iterations < std::uint64_t(allowed)) attempt(KSPGMRES, PCJACOBI);

  // The method's work vectors freed before π is copied out.
  KSPDestroy(&ksp);
  MatDestroy(&A);
  if (b) VecDestroy(&b);
  VecDestroy(&x);
  out.pi.assign(values.begin(), values.begin() + n);
  out.solve.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace mmt::mpi

/// The module's one entry point (mpi/module.cpp loads it).
extern "C" __attribute__((visibility("default"))) mmt::mpi::DistributedSolver*
mmt_distributed_solver() {
  return &mmt::mpi::solveInModule;
}
