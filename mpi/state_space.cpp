#include "mpi/state_space.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <ostream>

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

/// One successor on its way to its owner: the marking's tokens, the source's id (local
/// to the sender in the first pass, global in the second) and the rate.
struct Record {
  static void append(std::vector<std::uint8_t>& out, gspn::MarkingView m, std::uint64_t source,
                     double rate) {
    putTokens(out, m);
    put(out, source);
    put(out, rate);
  }
};

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
    received_.resize(static_cast<std::size_t>(receiveTotal));
    MPI_Alltoallv(send_.data(), sc.data(), sd.data(), MPI_BYTE, received_.data(), rc.data(),
                  rd.data(), MPI_BYTE, MPI_COMM_WORLD);
    return received_;
  }

 private:
  std::vector<std::uint8_t> send_, received_;
};

using Receive = std::function<void(gspn::MarkingView, std::uint64_t, double)>;

/// Where the edges of a round go: a record in a buffer per other rank, exchanged at the
/// round's end; an edge into this rank's own marking straight to `receive`, never copied.
class Outbox {
 public:
  Outbox(const Session& session, std::size_t places, Receive receive)
      : session_(session), buffer_(session.size()), m_(places), receive_(std::move(receive)) {}
  void post(int owner, gspn::MarkingView m, std::uint64_t source, double rate) {
    if (owner == session_.rank())
      receive_(m, source, rate);
    else
      Record::append(buffer_[owner], m, source, rate);
  }
  /// Collective: the buffers exchanged, each record that arrived handed to `receive`.
  void deliver(std::uint64_t& bytesSent) {
    const std::vector<std::uint8_t>& received = exchange_(session_, buffer_, bytesSent);
    for (const std::uint8_t* at = received.data(); at < received.data() + received.size();) {
      takeTokens(at, m_);
      const auto source = take<std::uint64_t>(at);
      receive_(gspn::MarkingView(m_), source, take<double>(at));
    }
  }

 private:
  const Session& session_;
  std::vector<std::vector<std::uint8_t>> buffer_;
  std::vector<gspn::Tokens> m_;
  Receive receive_;
  RecordExchange exchange_;
};

/// Rounds until no rank has work left: `expand(outbox)` posts the edges of one round (a
/// batch of this rank's markings), `receive(marking, source, rate)` takes each edge into
/// this rank's markings, and `pending()` says how many markings this rank has left. A
/// failure on any rank ends every rank's rounds with it (agreeOnFailure).
void rounds(const Session& session, std::size_t places, std::uint64_t& bytesSent,
            std::uint64_t& count, const std::function<void(Outbox&)>& expand,
            const Receive& receive, const std::function<std::uint64_t()>& pending,
            const std::function<void()>& afterRound) {
  Outbox outbox(session, places, receive);
  while (sum(pending()) > 0) {
    ++count;
    std::optional<ExplorationFailure> failure;
    try {
      expand(outbox);
    } catch (const ExplorationFailure& f) {
      failure = f;
    } catch (const std::domain_error& e) {
      failure = ExplorationFailure{Status::InvalidModel, e.what()};
    }
    agreeOnFailure(session, failure);
    outbox.deliver(bytesSent);
    afterRound();
  }
}

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

/// Computes the merged rows of owned markings and writes each edge as a record for its
/// target's owner under a partition.
class RowSender {
 public:
  RowSender(const gspn::Net& net, const gspn::ExplorationSettings& settings,
            const Partition& partition)
      : rows_(net, settings),
        successors_(net.placeCount()),
        self_(net.placeCount()),
        partition_(partition) {
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
  /// The row of owned marking s, posted with `source` as its id; returns its exit rate.
  double send(const gspn::PackedMarkingStore& store, std::uint32_t s, std::uint64_t source,
              Outbox& outbox, std::vector<gspn::TangibleReachabilityGraph::ImmediateFlow>* flows) {
    return each(store, s, flows, [&](gspn::MarkingView m, double rate) {
      outbox.post(partition_.owner(m), m, source, rate);
    });
  }

 private:
  gspn::RowBuilder rows_;
  gspn::MarkingStore successors_;
  std::vector<gspn::Tokens> self_;
  const Partition& partition_;
};

/// Every rank's sample of its markings (one in `stride` by local id, about kSample over
/// all ranks) with their edges, gathered on every rank in rank order (collective).
PartitionSample gatherSample(const Session& session, const gspn::Net& net, const LocalChain& chain,
                             RowSender& sender, std::uint64_t total) {
  const std::uint64_t stride = std::max<std::uint64_t>(1, total / kSample);
  PartitionSample mine(net.placeCount());
  std::vector<gspn::Tokens> m(net.placeCount());
  for (std::uint64_t s = 0; s < chain.size(); s += stride) {
    chain.markings.decode(std::uint32_t(s), m);
    const std::uint32_t at = mine.addState(gspn::MarkingView(m));
    sender.each(chain.markings, std::uint32_t(s), nullptr,
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
/// probability), kMigrated markings a rank per exchange; each rank's markings arrive in the
/// order of their senders and of the senders' ids. Collective.
void migrate(const Session& session, const gspn::Net& net, LocalChain& chain,
             const Partition& partition) {
  const std::size_t places = net.placeCount();
  LocalChain moved;
  moved.markings = gspn::PackedMarkingStore(places);
  std::vector<double> initial(chain.size(), 0.0);
  for (const auto& [s, p] : chain.initial) initial[s] = p;
  std::vector<std::vector<std::uint8_t>> buffer(session.size());
  std::vector<gspn::Tokens> m(places);
  std::uint64_t steps = (chain.size() + kMigrated - 1) / kMigrated, allSteps = 0;
  MPI_Allreduce(&steps, &allSteps, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  std::size_t flow = 0;
  RecordExchange exchange;
  for (std::uint64_t step = 0; step < allSteps; ++step) {
    const std::size_t end = std::min<std::size_t>(chain.size(), (step + 1) * kMigrated);
    for (std::size_t s = step * kMigrated; s < end; ++s) {
      chain.markings.decode(std::uint32_t(s), m);
      std::vector<std::uint8_t>& out = buffer[partition.owner(gspn::MarkingView(m))];
      putTokens(out, m);
      put(out, chain.in[s]);
      put(out, chain.exitRate[s]);
      put(out, initial[s]);
      const std::size_t firstFlow = flow;
      while (flow < chain.immediateFlows.size() && chain.immediateFlows[flow].state == s) ++flow;
      put(out, std::uint32_t(flow - firstFlow));
      for (std::size_t f = firstFlow; f < flow; ++f) {
        put(out, chain.immediateFlows[f].transition);
        put(out, chain.immediateFlows[f].rate);
      }
    }
    const std::vector<std::uint8_t> received =
        exchange(session, buffer, chain.exploration.bytesSent);
    for (const std::uint8_t* at = received.data(); at < received.data() + received.size();) {
      takeTokens(at, m);
      const auto [id, fresh] = moved.markings.insert(gspn::MarkingView(m));
      if (!fresh) throw std::logic_error("distributed exploration: a marking owned twice");
      moved.in.push_back(take<std::uint32_t>(at));
      moved.exitRate.push_back(take<double>(at));
      if (const double p = take<double>(at); p > 0) moved.initial.emplace_back(id, p);
      for (auto flows = take<std::uint32_t>(at); flows > 0; --flows) {
        const auto transition = take<gspn::TransitionId>(at);
        moved.immediateFlows.push_back({id, transition, take<double>(at)});
      }
    }
  }
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

LocalChain exploreDistributed(const Session& session, const gspn::Net& net,
                              const gspn::ExplorationSettings& settings) {
  const auto start = Clock::now();
  const int ranks = session.size(), me = session.rank();
  LocalChain chain;
  chain.markings = gspn::PackedMarkingStore(net.placeCount());
  const Partition byHash(ranks);
  RowSender sender(net, settings, byHash);
  auto insert = [&](gspn::MarkingView m) {
    const auto [id, fresh] = chain.markings.insert(m);
    if (fresh) {
      chain.exitRate.push_back(0);
      chain.in.push_back(0);
    }
    return id;
  };

  // The initial marking, resolved alike on every rank when vanishing; each keeps its own.
  std::optional<ExplorationFailure> failure;
  try {
    for (const auto& [m, probability] : initialTangible(net, sender.rows()))
      if (byHash.owner(m) == me) chain.initial.emplace_back(insert(m), probability);
  } catch (const ExplorationFailure& f) {
    failure = f;
  }
  agreeOnFailure(session, failure);

  // The markings are expanded in the order they were found, a batch per round.
  std::uint32_t expanded = 0;
  auto shown = start;
  rounds(
      session, net.placeCount(), chain.exploration.bytesSent, chain.rounds,
      [&](Outbox& outbox) {
        const std::uint32_t end =
            std::uint32_t(std::min<std::size_t>(chain.size(), expanded + kBatch));
        for (; expanded < end; ++expanded) {
          // Edges into this rank's markings are received at once: the arrays grow.
          const double exit =
              sender.send(chain.markings, expanded, expanded, outbox, &chain.immediateFlows);
          chain.exitRate[expanded] = exit;
        }
      },
      [&](gspn::MarkingView m, std::uint64_t, double) {
        const std::uint32_t id = insert(m);
        ++chain.in[id];
      },
      [&] { return std::uint64_t(chain.size() - expanded); },
      [&] {
        const std::uint64_t total = sum(chain.size());
        // A progress line about once a second, from rank 0.
        if (settings.progress && me == 0 && Clock::now() - shown > std::chrono::seconds(1)) {
          shown = Clock::now();
          *settings.progress << "\rexploring over " << ranks << " ranks: " << total
                             << " tangible markings after " << chain.rounds << " rounds"
                             << std::flush;
        }
        if (total > settings.maxStates)
          agreeOnFailure(session, me == 0 ? std::optional<ExplorationFailure>(ExplorationFailure{
                                                Status::StateLimit,
                                                "more than " + std::to_string(settings.maxStates) +
                                                    " tangible markings"})
                                          : std::nullopt);
      });

  if (settings.progress && me == 0 && shown != start) *settings.progress << '\n';

  // The markings owned again by a partition that keeps edges at home (mpi/partition.hpp).
  const PartitionChoice choice =
      choosePartition(gatherSample(session, net, chain, sender, sum(chain.size())), ranks);
  if (choice.partition.byPlaces()) migrate(session, net, chain, choice.partition);
  chain.partition = choice.partition;
  settle(session, net, chain);
  chain.exploration.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return chain;
}

void deliverEdges(const Session& session, const gspn::Net& net,
                  const gspn::ExplorationSettings& settings, LocalChain& chain,
                  const std::function<void(std::uint32_t, std::uint64_t, double)>& edge) {
  const auto start = Clock::now();
  RowSender sender(net, settings, chain.partition);
  std::uint32_t sent = 0;
  std::vector<std::uint8_t> scratch;
  std::uint64_t count = 0;
  rounds(
      session, net.placeCount(), chain.exploration.bytesSent, count,
      [&](Outbox& outbox) {
        const std::uint32_t end = std::uint32_t(std::min<std::size_t>(chain.size(), sent + kBatch));
        for (; sent < end; ++sent)
          sender.send(chain.markings, sent, chain.first + sent, outbox, nullptr);
      },
      [&](gspn::MarkingView m, std::uint64_t source, double rate) {
        const auto id = chain.markings.find(m, scratch);
        if (!id)
          throw std::logic_error("distributed exploration: a successor missing in the second pass");
        edge(*id, source, rate);
      },
      [&] { return std::uint64_t(chain.size() - sent); }, [] {});
  chain.exploration.seconds += std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace mmt::mpi
