#include "mpi/state_space.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <ostream>

#include "gspn/free_pages.hpp"

namespace mmt::mpi {

namespace {

using Clock = std::chrono::steady_clock;
using gspn::ExplorationFailure;
using Status = gspn::ExplorationResult::Status;

/// Appends the bytes of v to `out`.
template <typename T>
void put(std::vector<std::uint8_t>& out, const T& v) {
  const std::size_t at = out.size();
  out.resize(at + sizeof v);
  std::memcpy(out.data() + at, &v, sizeof v);
}
/// Appends a marking's counters to `out`.
void putTokens(std::vector<std::uint8_t>& out, gspn::MarkingView m) {
  const std::size_t at = out.size(), bytes = m.size() * sizeof(gspn::Tokens);
  out.resize(at + bytes);
  std::memcpy(out.data() + at, m.data(), bytes);
}

/// Reads a T at `at` and moves past it.
template <typename T>
T take(const std::uint8_t*& at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  at += sizeof v;
  return v;
}
/// Reads m.size() counters at `at` into m and moves past them.
void takeTokens(const std::uint8_t*& at, std::span<gspn::Tokens> m) {
  std::memcpy(m.data(), at, m.size() * sizeof(gspn::Tokens));
  at += m.size() * sizeof(gspn::Tokens);
}

std::uint64_t sum(std::uint64_t mine) {
  std::uint64_t total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

/// An all-to-all of byte buffers, its send and receive buffers kept from one call to the
/// next (a round's few megabytes would otherwise be mapped and zeroed afresh each time).
class RecordExchange {
 public:
  /// Sends buffer[r] to rank r (clearing it) and returns what every rank sent here, back
  /// to back (an all-to-all of the counts, then of the bytes), valid until the next call.
  /// More than 2^31 − 1 bytes in a round are refused, as MPI counts them in int.
  const std::vector<std::uint8_t>& operator()(const Session& session,
                                              std::vector<std::vector<std::uint8_t>>& buffer,
                                              std::uint64_t& bytesSent) {
    const int ranks = session.size();
    std::vector<long long> sendCount(ranks), receiveCount(ranks);
    for (int r = 0; r < ranks; ++r) sendCount[r] = (long long)buffer[r].size();
    MPI_Alltoall(sendCount.data(), 1, MPI_LONG_LONG, receiveCount.data(), 1, MPI_LONG_LONG,
                 MPI_COMM_WORLD);
    long long sendTotal = 0, receiveTotal = 0;
    for (int r = 0; r < ranks; ++r) {
      sendTotal += sendCount[r];
      receiveTotal += receiveCount[r];
    }
    const long long limit = std::numeric_limits<int>::max();
    if (sendTotal > limit || receiveTotal > limit)
      throw ExplorationFailure{Status::MemoryLimit,
                               "a round sends more than 2^31 bytes between ranks; the batch "
                               "of markings per round is too large for this net"};
    std::vector<int> sc(ranks), sd(ranks), rc(ranks), rd(ranks);
    send_.clear();
    long long received = 0;
    for (int r = 0; r < ranks; ++r) {
      sc[r] = int(sendCount[r]);
      sd[r] = int(send_.size());
      send_.insert(send_.end(), buffer[r].begin(), buffer[r].end());
      if (r != session.rank()) bytesSent += buffer[r].size();
      buffer[r].clear();
      rc[r] = int(receiveCount[r]);
      rd[r] = int(received);
      received += receiveCount[r];
    }
    receivedFrom_.assign(receiveCount.begin(), receiveCount.end());
    received_.resize(static_cast<std::size_t>(receiveTotal));
    MPI_Alltoallv(send_.data(), sc.data(), sd.data(), MPI_BYTE, received_.data(), rc.data(),
                  rd.data(), MPI_BYTE, MPI_COMM_WORLD);
    return received_;
  }
  /// The bytes each rank sent in the last call, in the order they are received.
  const std::vector<std::size_t>& receivedFrom() const { return receivedFrom_; }

 private:
  std::vector<std::uint8_t> send_, received_;
  std::vector<std::size_t> receivedFrom_;
};

/// The first pass's successors owned by other ranks, a round at a time: each goes to its
/// owner as its tokens alone; the owner stores it (counting the edge into it) and answers
/// with its local id, in the order the markings came, so that the source keeps its rows
/// with every target named, coded as id × ranks + owner.
class SuccessorExchange {
 public:
  SuccessorExchange(const Session& session, std::size_t places)
      : session_(session),
        buffer_(session.size()),
        answers_(session.size()),
        slots_(session.size()),
        m_(places) {}
  /// Sends m to `owner` this round; its coded target will be written to targets[slot].
  void post(int owner, gspn::MarkingView m, std::size_t slot) {
    putTokens(buffer_[owner], m);
    slots_[owner].push_back(slot);
  }
  /// Collective: the markings exchanged, `store(m)` giving the local id of each that came
  /// (in the order of its senders), the ids sent back and written where they were asked.
  template <typename Store>
  void deliver(std::uint64_t& bytesSent, Store&& store, std::vector<std::uint64_t>& targets) {
    const std::vector<std::uint8_t>& received = markings_(session_, buffer_, bytesSent);
    const std::uint8_t* at = received.data();
    for (int r = 0; r < session_.size(); ++r)
      for (const std::uint8_t* end = at + markings_.receivedFrom()[r]; at < end;) {
        takeTokens(at, m_);
        put(answers_[r], store(gspn::MarkingView(m_)));
      }
    const std::vector<std::uint8_t>& ids = ids_(session_, answers_, bytesSent);
    const auto ranks = std::uint64_t(session_.size());
    at = ids.data();
    for (int r = 0; r < session_.size(); ++r) {
      for (const std::size_t slot : slots_[r]) targets[slot] = take<std::uint32_t>(at) * ranks + r;
      slots_[r].clear();
    }
  }

 private:
  const Session& session_;
  std::vector<std::vector<std::uint8_t>> buffer_, answers_;
  std::vector<std::vector<std::size_t>> slots_;
  std::vector<gspn::Tokens> m_;
  RecordExchange markings_, ids_;
};

/// The tangible markings the initial marking of `net` leads to (canonical under a
/// symmetry, several exits of one orbit joined), with their probabilities: itself with 1
/// when tangible. Throws ExplorationFailure when its vanishing markings cannot be resolved.
std::vector<std::pair<std::vector<gspn::Tokens>, double>> initialTangible(const gspn::Net& net,
                                                                          gspn::RowBuilder& rows) {
  gspn::VanishingEliminator& eliminator = rows.eliminator();
  const std::vector<gspn::Tokens> m0 = net.initialMarking();
  std::vector<std::pair<std::vector<gspn::Tokens>, double>> out;
  auto add = [&](gspn::MarkingView m, double probability) {
    const gspn::MarkingView c = rows.canonical(m);
    for (auto& [seen, p] : out)
      if (std::equal(seen.begin(), seen.end(), c.begin(), c.end())) {
        p += probability;
        return;
      }
    out.emplace_back(std::vector<gspn::Tokens>(c.begin(), c.end()), probability);
  };
  if (!eliminator.isVanishing(m0)) {
    add(m0, 1.0);
    return out;
  }
  if (auto s = eliminator.resolve(m0); s != gspn::VanishingEliminator::Status::Ok)
    throw gspn::eliminationFailure(eliminator, s);
  for (std::size_t e = 0; e < eliminator.exits().size(); ++e)
    add(eliminator.exits()[e], eliminator.exitProbability()[e]);
  return out;
}

/// Computes the merged rows of owned markings, vanishing markings eliminated where they
/// are met.
class MergedRows {
 public:
  MergedRows(const gspn::Net& net, const gspn::ExplorationSettings& settings)
      : rows_(net, settings), successors_(net.placeCount()), self_(net.placeCount()) {
    // Vanishing markings are not counted over ranks (each rank would count its own).
    rows_.eliminator().stopCounting();
  }
  gspn::RowBuilder& rows() { return rows_; }
  /// Calls edge(successor, rate) for each edge of owned marking s, parallel edges merged
  /// and a self-loop dropped; returns its exit rate.
  template <typename Edge>
  double each(const gspn::PackedMarkingStore& store, std::uint32_t s,
              std::vector<gspn::TangibleReachabilityGraph::ImmediateFlow>* flows, Edge&& edge) {
    successors_.clear();
    rows_.collect(
        store, s, [&](gspn::MarkingView m) { return successors_.insert(m).first; }, flows);
    store.decode(s, self_);
    const auto selfId = successors_.insert(gspn::MarkingView(self_)).first;
    auto& row = rows_.row();
    const double exit = gspn::mergeRow(row, selfId);
    for (const auto& [id, rate] : row) edge(successors_[id], rate);
    return exit;
  }

 private:
  gspn::RowBuilder rows_;
  gspn::MarkingStore successors_;
  std::vector<gspn::Tokens> self_;
};

/// Every rank's sample of its markings (one in `stride` by local id, about kSample over
/// all ranks) with their edges, gathered on every rank in rank order (collective).
PartitionSample gatherSample(const Session& session, const gspn::Net& net, const LocalChain& chain,
                             MergedRows& rows, std::uint64_t total) {
  const std::uint64_t stride = std::max<std::uint64_t>(1, total / kSample);
  PartitionSample mine(net.placeCount());
  std::vector<gspn::Tokens> m(net.placeCount());
  for (std::uint64_t s = 0; s < chain.size(); s += stride) {
    chain.markings.decode(std::uint32_t(s), m);
    const std::uint32_t at = mine.addState(gspn::MarkingView(m));
    rows.each(chain.markings, std::uint32_t(s), nullptr,
              [&](gspn::MarkingView target, double) { mine.addEdge(at, target); });
  }
  const std::vector<std::uint32_t> flat = mine.flatten();
  const int ranks = session.size();
  const int count = int(flat.size());
  std::vector<int> counts(ranks), offsets(ranks, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<std::uint32_t> all(std::size_t(offsets.back()) + std::size_t(counts.back()));
  MPI_Allgatherv(flat.data(), count, MPI_UINT32_T, all.data(), counts.data(), offsets.data(),
                 MPI_UINT32_T, MPI_COMM_WORLD);
  return PartitionSample::merge(net.placeCount(), all);
}

/// Moves every marking to its owner under `partition` with what the first pass found of
/// it (its count of edges in, its exit rate, its immediate flows, its initial
/// probability), one exchange per round of the first pass with the markings found in it.
/// Each rank's markings thus arrive round by round, and within a round in the order of
/// their senders and of the senders' ids: close to the breadth-first order in which one
/// process numbers its states, the order its Gauss–Seidel sweeps converge fastest in
/// (docs/distributed.md, "The partition"). The ranks' counts per exchange (an all-gather
/// of P numbers) tell each sender the local id each of its markings gets, kept in
/// chain.movedTo. Collective.
void migrate(const Session& session, const gspn::Net& net, LocalChain& chain,
             const Partition& partition) {
  const std::size_t places = net.placeCount();
  const int ranks = session.size();
  std::vector<gspn::Tokens> m(places);
  // Each marking's owner first (kept in movedTo's high half), so that every rank knows
  // how many it receives and holds exactly that room: the arrays would grow by doubling.
  chain.movedTo.resize(chain.size());
  std::vector<std::uint64_t> sending(ranks, 0), receiving(ranks);
  for (std::uint32_t s = 0; s < chain.size(); ++s) {
    chain.markings.decode(s, m);
    const int owner = partition.owner(gspn::MarkingView(m));
    chain.movedTo[s] = std::uint64_t(owner) << 32;
    ++sending[owner];
  }
  MPI_Alltoall(sending.data(), 1, MPI_UINT64_T, receiving.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  const std::uint64_t arriving =
      std::accumulate(receiving.begin(), receiving.end(), std::uint64_t{0});
  LocalChain moved;
  moved.markings = gspn::PackedMarkingStore(places);
  moved.markings.reserve(arriving);
  moved.in.reserve(arriving);
  moved.exitRate.reserve(arriving);
  std::sort(chain.initial.begin(), chain.initial.end());
  auto initial = chain.initial.begin();

  std::vector<std::vector<std::uint8_t>> buffer(ranks);
  const std::uint64_t allSteps = chain.rounds();
  std::size_t flow = 0;
  RecordExchange exchange;
  // Per owner: the markings it received in earlier exchanges; this exchange's counts of
  // every rank, as the all-gather gives them (sender-major).
  std::vector<std::uint64_t> before(ranks, 0), counts(ranks), all(std::size_t(ranks) * ranks);
  moved.found.reserve(allSteps);
  for (std::uint64_t step = 0; step < allSteps; ++step) {
    const std::size_t begin = step == 0 ? 0 : chain.found[step - 1];
    const std::size_t end = chain.found[step];
    std::fill(counts.begin(), counts.end(), 0);
    for (std::size_t s = begin; s < end; ++s) {
      chain.markings.decode(std::uint32_t(s), m);
      const auto owner = std::size_t(chain.movedTo[s] >> 32);
      chain.movedTo[s] |= counts[owner]++;
      std::vector<std::uint8_t>& out = buffer[owner];
      putTokens(out, m);
      put(out, chain.in[s]);
      put(out, chain.exitRate[s]);
      const bool first = initial != chain.initial.end() && initial->first == s;
      put(out, first ? (initial++)->second : 0.0);
      const std::size_t firstFlow = flow;
      while (flow < chain.immediateFlows.size() && chain.immediateFlows[flow].state == s) ++flow;
      put(out, std::uint32_t(flow - firstFlow));
      for (std::size_t f = firstFlow; f < flow; ++f) {
        put(out, chain.immediateFlows[f].transition);
        put(out, chain.immediateFlows[f].rate);
      }
    }
    MPI_Allgather(counts.data(), ranks, MPI_UINT64_T, all.data(), ranks, MPI_UINT64_T,
                  MPI_COMM_WORLD);
    std::vector<std::uint64_t> at = before;  // where this rank's markings start at each owner
    for (int r = 0; r < ranks; ++r)
      for (int owner = 0; owner < ranks; ++owner) {
        if (r < session.rank()) at[owner] += all[std::size_t(r) * ranks + owner];
        before[owner] += all[std::size_t(r) * ranks + owner];
      }
    for (std::size_t s = begin; s < end; ++s) chain.movedTo[s] += at[chain.movedTo[s] >> 32];
    const std::vector<std::uint8_t>& received =
        exchange(session, buffer, chain.exploration.bytesSent);
    for (const std::uint8_t* at = received.data(); at < received.data() + received.size();) {
      takeTokens(at, m);
      const std::uint32_t id = moved.markings.appendUnindexed(gspn::MarkingView(m));
      moved.in.push_back(take<std::uint32_t>(at));
      moved.exitRate.push_back(take<double>(at));
      if (const double p = take<double>(at); p > 0) moved.initial.emplace_back(id, p);
      for (auto flows = take<std::uint32_t>(at); flows > 0; --flows) {
        const auto transition = take<gspn::TransitionId>(at);
        moved.immediateFlows.push_back({id, transition, take<double>(at)});
      }
    }
    moved.found.push_back(std::uint32_t(moved.markings.size()));
  }
  chain.found = std::move(moved.found);
  chain.markings = std::move(moved.markings);
  chain.in = std::move(moved.in);
  chain.exitRate = std::move(moved.exitRate);
  chain.initial = std::move(moved.initial);
  chain.immediateFlows = std::move(moved.immediateFlows);
}

/// After the move (collective): the arrays' spare capacity freed (they grew by doubling),
/// the global ids numbered by a prefix sum of the ranks' counts, and a marking without
/// successors refused on every rank (the chain has no steady state to solve for).
void settle(const Session& session, const gspn::Net& net, LocalChain& chain) {
  chain.markings.shrinkToFit();
  chain.exitRate.shrink_to_fit();
  chain.in.shrink_to_fit();
  chain.immediateFlows.shrink_to_fit();
  const std::uint64_t count = chain.size();
  MPI_Exscan(&count, &chain.first, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (session.rank() == 0) chain.first = 0;
  chain.states = sum(count);
  chain.edges = sum(chain.edgesIn());
  std::optional<ExplorationFailure> failure;
  for (std::uint32_t s = 0; s < count && !failure; ++s)
    if (chain.exitRate[s] == 0)
      failure = ExplorationFailure{
          Status::InvalidModel,
          "deadlock: the reachable marking {" + net.describe(chain.markings.decode(s)) +
              "} enables no transition; the distributed solve needs a chain with a steady "
              "state (one process reports what happens before it: mmt solve without mpirun)"};
  agreeOnFailure(session, failure);
}

}  // namespace

std::uint64_t LocalChain::edgesIn() const {
  std::uint64_t total = 0;
  for (const std::uint32_t count : in) total += count;
  return total;
}

void agreeOnFailure(const Session& session, const std::optional<ExplorationFailure>& mine) {
  int candidate = mine ? session.rank() : session.size(), who = 0;
  MPI_Allreduce(&candidate, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (who == session.size()) return;
  int status = mine && who == session.rank() ? int(mine->status) : 0;
  std::string message = mine && who == session.rank() ? mine->message : std::string();
  unsigned long long length = message.size();
  MPI_Bcast(&status, 1, MPI_INT, who, MPI_COMM_WORLD);
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, who, MPI_COMM_WORLD);
  message.resize(length);
  MPI_Bcast(message.data(), int(length), MPI_CHAR, who, MPI_COMM_WORLD);
  throw ExplorationFailure{Status(status), message};
}

namespace {

/// The first pass on one rank: the markings the hash gives it, each expanded once in the
/// order found, a batch per round, and each round's rows kept once the other ranks have
/// named their targets (LocalChain::explored).
class FirstPass {
 public:
  FirstPass(const Session& session, const gspn::Net& net, const gspn::ExplorationSettings& settings,
            LocalChain& chain)
      : session_(session),
        net_(net),
        settings_(settings),
        chain_(chain),
        byHash_(session.size()),
        rows_(net, settings),
        exchange_(session, net.placeCount()),
        start_(Clock::now()),
        shown_(start_) {
    chain_.markings = gspn::PackedMarkingStore(net.placeCount());
  }
  MergedRows& rows() { return rows_; }

  /// Collective: the initial marking, resolved alike on every rank when vanishing; each
  /// keeps the tangible markings it owns.
  void seed() {
    std::optional<ExplorationFailure> failure;
    try {
      for (const auto& [m, probability] : initialTangible(net_, rows_.rows()))
        if (byHash_.owner(m) == session_.rank())
          chain_.initial.emplace_back(insert(m), probability);
    } catch (const ExplorationFailure& f) {
      failure = f;
    }
    agreeOnFailure(session_, failure);
  }

  /// Collective: one round; false when no rank had a marking left to expand.
  bool round() {
    if (sum(chain_.size() - expanded_) == 0) return false;
    const std::uint32_t from = expanded_;
    std::optional<ExplorationFailure> failure;
    try {
      expand();
    } catch (const ExplorationFailure& f) {
      failure = f;
    } catch (const std::domain_error& e) {
      failure = ExplorationFailure{Status::InvalidModel, e.what()};
    }
    agreeOnFailure(session_, failure);
    exchange_.deliver(
        chain_.exploration.bytesSent, [&](gspn::MarkingView m) { return edgeInto(m); }, targets_);
    try {
      keep(from);
    } catch (const ExplorationFailure& f) {
      failure = f;
    }
    agreeOnFailure(session_, failure);
    afterRound();
    return true;
  }

  /// After the last round: the rates' table kept and the hash index freed (no marking is
  /// looked up past the first pass: the kept rows name their targets).
  void finish() {
    chain_.rateTable = numbering_.table();
    chain_.markings.dropIndex();
    if (settings_.run.progress && session_.rank() == 0 && shown_ != start_)
      *settings_.run.progress << '\n';
  }

 private:
  std::uint32_t insert(gspn::MarkingView m) {
    const auto [id, fresh] = chain_.markings.insert(m);
    if (fresh) {
      chain_.exitRate.push_back(0);
      chain_.in.push_back(0);
    }
    return id;
  }
  std::uint32_t edgeInto(gspn::MarkingView m) {
    const std::uint32_t id = insert(m);
    ++chain_.in[id];
    return id;
  }

  /// The round's batch: each successor this rank owns stored at once (the arrays grow),
  /// the others posted to their owners.
  void expand() {
    const auto ranks = std::uint64_t(session_.size());
    const int me = session_.rank();
    const auto end = std::uint32_t(std::min<std::size_t>(chain_.size(), expanded_ + kBatch));
    for (; expanded_ < end; ++expanded_) {
      chain_.exitRate[expanded_] =
          rows_.each(chain_.markings, expanded_, &chain_.immediateFlows,
                     [&](gspn::MarkingView m, double rate) {
                       if (const int owner = byHash_.owner(m); owner == me)
                         targets_.push_back(edgeInto(m) * ranks + std::uint64_t(me));
                       else {
                         exchange_.post(owner, m, targets_.size());
                         targets_.push_back(0);
                       }
                       rates_.push_back(rate);
                     });
      ends_.push_back(std::uint32_t(targets_.size()));
    }
  }

  /// The round's rows kept: their rates numbered while the numbers hold, else as doubles.
  void keep(std::uint32_t from) {
    LocalChain::ExploredRows run;
    numbers_.clear();
    for (std::size_t k = 0; k < rates_.size() && !wide_; ++k)
      if (const auto number = numbering_.number(rates_[k], cache_))
        numbers_.push_back(*number);
      else
        wide_ = true;
    if (wide_) {
      numbers_.assign(rates_.size(), 0);
      run.wide = rates_;
    }
    std::uint64_t bound = 1;
    for (const std::uint64_t t : targets_) bound = std::max(bound, t + 1);
    if (bound > std::numeric_limits<std::uint32_t>::max())
      throw ExplorationFailure{Status::StateLimit,
                               "more than 2^32 / ranks tangible markings explored by one rank; "
                               "run on fewer ranks or a smaller model"};
    targets32_.assign(targets_.begin(), targets_.end());
    run.rows.assign(from, expanded_, ends_, targets32_, numbers_, std::uint32_t(bound));
    chain_.explored.push_back(std::move(run));
    ends_.clear();
    targets_.clear();
    rates_.clear();
  }

  /// A progress line about once a second from rank 0, and the state limit.
  void afterRound() {
    chain_.found.push_back(std::uint32_t(chain_.size()));
    const std::uint64_t total = sum(chain_.size());
    if (settings_.run.progress && session_.rank() == 0 &&
        Clock::now() - shown_ > std::chrono::seconds(1)) {
      shown_ = Clock::now();
      *settings_.run.progress << "\rexploring over " << session_.size() << " ranks: " << total
                              << " tangible markings after " << chain_.rounds() << " rounds"
                              << std::flush;
    }
    if (total > settings_.maxStates)
      agreeOnFailure(session_, session_.rank() == 0
                                   ? std::optional<ExplorationFailure>(ExplorationFailure{
                                         Status::StateLimit,
                                         "more than " + std::to_string(settings_.maxStates) +
                                             " tangible markings"})
                                   : std::nullopt);
  }

  const Session& session_;
  const gspn::Net& net_;
  const gspn::ExplorationSettings& settings_;
  LocalChain& chain_;
  const Partition byHash_;
  MergedRows rows_;
  SuccessorExchange exchange_;
  gspn::RateNumbering numbering_;
  gspn::RateNumbering::Cache cache_;
  bool wide_ = false;  // this rank met more distinct rates than numbers hold
  std::uint32_t expanded_ = 0;
  // The round's rows: per marking the end of its edges; per edge its coded target and rate.
  std::vector<std::uint32_t> ends_, targets32_;
  std::vector<std::uint64_t> targets_;
  std::vector<gspn::EdgeRates::Number> numbers_;
  std::vector<double> rates_;
  Clock::time_point start_, shown_;
};

}  // namespace

LocalChain exploreDistributed(const Session& session, const gspn::Net& net,
                              const gspn::ExplorationSettings& settings) {
  const auto start = Clock::now();
  LocalChain chain;
  FirstPass pass(session, net, settings, chain);
  pass.seed();
  while (pass.round()) {
  }
  pass.finish();

  // The markings owned again by a partition that keeps edges at home (mpi/partition.hpp).
  const PartitionChoice choice = choosePartition(
      gatherSample(session, net, chain, pass.rows(), sum(chain.size())), session.size());
  if (choice.partition.byPlaces()) {
    migrate(session, net, chain, choice.partition);
  } else {
    chain.movedTo.resize(chain.size());
    for (std::uint32_t s = 0; s < chain.size(); ++s)
      chain.movedTo[s] = std::uint64_t(session.rank()) << 32 | s;
  }
  chain.partition = choice.partition;
  settle(session, net, chain);
  chain.exploration.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return chain;
}

namespace {

/// One edge on its way to its target's owner: the target's id at the rank it is sent to,
/// the source's global id and the rate (20 bytes).
void putEdge(std::vector<std::uint8_t>& out, std::uint32_t target, std::uint64_t source,
             double rate) {
  put(out, target);
  put(out, source);
  put(out, rate);
}
/// Calls f(target, source, rate) for each record putEdge wrote in `records`.
template <typename F>
void forEachEdge(const std::vector<std::uint8_t>& records, F&& f) {
  for (const std::uint8_t* at = records.data(); at < records.data() + records.size();) {
    const auto target = take<std::uint32_t>(at);
    const auto source = take<std::uint64_t>(at);
    f(target, source, take<double>(at));
  }
}

/// Kept edges a rank sends per exchange of deliverEdges, about: 1.3 MB of 20-byte records,
/// held three times (the buffers, and the exchange's send and receive copies).
constexpr std::uint64_t kDeliveredPerExchange = std::uint64_t{1} << 16;
/// Bytes of kept rows freed between two returns of the heap's free pages to the system:
/// a round's rows (160 KB on Kanban) live in the heap, below the size that is mapped on
/// its own (api::useMappedLargeBlocks), and stay resident once freed until returned, while
/// the rows of Qᵀ they become take their room (Kanban N = 5 over 2 ranks: 225 MB a rank
/// at the peak, against 189 when they are returned as they go).
constexpr std::size_t kFreedPerTrim = std::size_t{16} << 20;

}  // namespace

void deliverEdges(const Session& session, LocalChain& chain,
                  const std::function<void(std::uint32_t, std::uint64_t, double)>& edge) {
  const auto start = Clock::now();
  const int ranks = session.size(), me = session.rank();
  std::vector<std::uint64_t> firsts(ranks);
  MPI_Allgather(&chain.first, 1, MPI_UINT64_T, firsts.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  auto global = [&](std::uint64_t to) { return firsts[to >> 32] + (to & 0xffffffffu); };
  std::vector<std::vector<std::uint8_t>> toExplorer(ranks), toOwner(ranks);
  // An edge into a marking this rank explored, with `id` then: on to its owner now.
  auto forward = [&](std::uint32_t id, std::uint64_t source, double rate) {
    const std::uint64_t to = chain.movedTo[id];
    if (const int owner = int(to >> 32); owner == me)
      edge(std::uint32_t(to), source, rate);
    else
      putEdge(toOwner[owner], std::uint32_t(to), source, rate);
  };
  RecordExchange exchange;
  std::size_t run = 0, freed = 0;
  while (sum(chain.explored.size() - run) > 0) {
    // Hop 1: this rank's next runs, each edge to the rank that explored its target.
    for (std::uint64_t sent = 0; run < chain.explored.size() && sent < kDeliveredPerExchange;
         ++run) {
      LocalChain::ExploredRows& rows = chain.explored[run];
      std::size_t k = 0;
      rows.rows.forEachEdge([&](std::uint32_t s, std::uint32_t target, auto number) {
        const double rate = rows.wide.empty() ? chain.rateTable[number] : rows.wide[k];
        ++k;
        const std::uint64_t source = global(chain.movedTo[s]);
        const auto explorer = int(target % std::uint32_t(ranks));
        if (explorer == me)
          forward(target / std::uint32_t(ranks), source, rate);
        else
          putEdge(toExplorer[explorer], target / std::uint32_t(ranks), source, rate);
      });
      sent += k;
      freed += rows.rows.bytes() + rows.wide.capacity() * sizeof(double);
      rows = LocalChain::ExploredRows{};
    }
    if (freed >= kFreedPerTrim) {
      gspn::releaseFreePages();
      freed = 0;
    }
    // At the targets' explorers, sent on to their owners; then at the owners.
    forEachEdge(exchange(session, toExplorer, chain.exploration.bytesSent), forward);
    forEachEdge(exchange(session, toOwner, chain.exploration.bytesSent), edge);
  }
  std::vector<LocalChain::ExploredRows>().swap(chain.explored);
  std::vector<std::uint64_t>().swap(chain.movedTo);
  chain.exploration.seconds += std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace mmt::mpi
