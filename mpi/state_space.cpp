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

/// One successor on its way to its owner: the marking's tokens, the source's id (local
/// to the sender in the first pass, global in the second) and the rate.
struct Record {
  static std::size_t bytes(std::size_t places) {
    return places * sizeof(gspn::Tokens) + sizeof(std::uint64_t) + sizeof(double);
  }
  static void append(std::vector<std::uint8_t>& out, gspn::MarkingView m, std::uint64_t source,
                     double rate) {
    const std::size_t at = out.size();
    out.resize(at + bytes(m.size()));
    std::uint8_t* p = out.data() + at;
    std::memcpy(p, m.data(), m.size() * sizeof(gspn::Tokens));
    p += m.size() * sizeof(gspn::Tokens);
    std::memcpy(p, &source, sizeof source);
    std::memcpy(p + sizeof source, &rate, sizeof rate);
  }
};

int ownerOf(gspn::MarkingView m, int ranks) {
  return int(gspn::hashMarking(m) % std::uint64_t(ranks));
}

std::uint64_t sum(std::uint64_t mine) {
  std::uint64_t total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

/// Sends buffer[r] to rank r and returns what every rank sent here, back to back (an
/// all-to-all of the counts, then of the bytes). More than 2^31 − 1 bytes in a round are
/// refused, as MPI counts them in int.
std::vector<std::uint8_t> exchange(const Session& session,
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
  std::vector<std::uint8_t> send;
  send.reserve(std::size_t(sendTotal));
  long long received = 0;
  for (int r = 0; r < ranks; ++r) {
    sc[r] = int(sendCount[r]);
    sd[r] = int(send.size());
    send.insert(send.end(), buffer[r].begin(), buffer[r].end());
    if (r != session.rank()) bytesSent += buffer[r].size();
    buffer[r].clear();
    rc[r] = int(receiveCount[r]);
    rd[r] = int(received);
    received += receiveCount[r];
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(receiveTotal));
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_BYTE, out.data(), rc.data(), rd.data(),
                MPI_BYTE, MPI_COMM_WORLD);
  return out;
}

/// Rounds until no rank has work left: `expand(buffer)` fills the messages of one round
/// (a batch of this rank's markings), `receive(marking, source, rate)` takes each
/// record that arrives, and `pending()` says how many markings this rank has left. A
/// failure on any rank ends every rank's rounds with it (agreeOnFailure).
void rounds(const Session& session, std::size_t places, std::uint64_t& bytesSent,
            std::uint64_t& count,
            const std::function<void(std::vector<std::vector<std::uint8_t>>&)>& expand,
            const std::function<void(gspn::MarkingView, std::uint64_t, double)>& receive,
            const std::function<std::uint64_t()>& pending,
            const std::function<void()>& afterRound) {
  std::vector<std::vector<std::uint8_t>> buffer(session.size());
  std::vector<gspn::Tokens> m(places);
  const std::size_t recordBytes = Record::bytes(places), tokenBytes = places * sizeof(gspn::Tokens);
  while (sum(pending()) > 0) {
    ++count;
    std::optional<ExplorationFailure> failure;
    try {
      expand(buffer);
    } catch (const ExplorationFailure& f) {
      failure = f;
    } catch (const std::domain_error& e) {
      failure = ExplorationFailure{Status::InvalidModel, e.what()};
    }
    agreeOnFailure(session, failure);
    const std::vector<std::uint8_t> received = exchange(session, buffer, bytesSent);
    for (std::size_t at = 0; at < received.size(); at += recordBytes) {
      const std::uint8_t* p = received.data() + at;
      std::memcpy(m.data(), p, tokenBytes);
      std::uint64_t source;
      double rate;
      std::memcpy(&source, p + tokenBytes, sizeof source);
      std::memcpy(&rate, p + tokenBytes + sizeof source, sizeof rate);
      receive(gspn::MarkingView(m), source, rate);
    }
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
/// target's owner.
class RowSender {
 public:
  RowSender(const gspn::Net& net, const gspn::ExplorationSettings& settings, int ranks)
      : rows_(net, settings),
        successors_(net.placeCount()),
        self_(net.placeCount()),
        ranks_(ranks) {
    // Vanishing markings are not counted over ranks (each rank would count its own).
    rows_.eliminator().stopCounting();
  }
  gspn::RowBuilder& rows() { return rows_; }
  /// The row of owned marking s, sent with `source` as its id; returns its exit rate.
  double send(const gspn::PackedMarkingStore& store, std::uint32_t s, std::uint64_t source,
              std::vector<std::vector<std::uint8_t>>& buffer,
              std::vector<gspn::TangibleReachabilityGraph::ImmediateFlow>* flows) {
    successors_.clear();
    rows_.collect(
        store, s, [&](gspn::MarkingView m) { return successors_.insert(m).first; }, flows);
    // Parallel edges merged; a successor equal to s is a self-loop, dropped.
    store.decode(s, self_);
    const auto selfId = successors_.insert(gspn::MarkingView(self_)).first;
    auto& row = rows_.row();
    const double exit = gspn::mergeRow(row, selfId);
    for (const auto& [id, rate] : row)
      Record::append(buffer[ownerOf(successors_[id], ranks_)], successors_[id], source, rate);
    return exit;
  }

 private:
  gspn::RowBuilder rows_;
  gspn::MarkingStore successors_;
  std::vector<gspn::Tokens> self_;
  int ranks_;
};

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
  RowSender sender(net, settings, ranks);
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
      if (ownerOf(m, ranks) == me) chain.initial.emplace_back(insert(m), probability);
  } catch (const ExplorationFailure& f) {
    failure = f;
  }
  agreeOnFailure(session, failure);

  // The markings are expanded in the order they were found, a batch per round.
  std::uint32_t expanded = 0;
  auto shown = start;
  rounds(
      session, net.placeCount(), chain.exploration.bytesSent, chain.rounds,
      [&](std::vector<std::vector<std::uint8_t>>& buffer) {
        const std::uint32_t end =
            std::uint32_t(std::min<std::size_t>(chain.size(), expanded + kBatch));
        for (; expanded < end; ++expanded)
          chain.exitRate[expanded] =
              sender.send(chain.markings, expanded, expanded, buffer, &chain.immediateFlows);
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
  // The arrays grew by doubling: their spare capacity freed before the second pass.
  chain.markings.shrinkToFit();
  chain.exitRate.shrink_to_fit();
  chain.in.shrink_to_fit();
  chain.immediateFlows.shrink_to_fit();
  // Global ids: a prefix sum of the ranks' counts.
  const std::uint64_t count = chain.size();
  MPI_Exscan(&count, &chain.first, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) chain.first = 0;
  chain.states = sum(count);
  chain.edges = sum(chain.edgesIn());

  // A marking without successors: the chain has no steady state to solve for.
  for (std::uint32_t s = 0; s < count && !failure; ++s)
    if (chain.exitRate[s] == 0)
      failure = ExplorationFailure{
          Status::InvalidModel,
          "deadlock: the reachable marking {" + net.describe(chain.markings.decode(s)) +
              "} enables no transition; the distributed solve needs a chain with a steady "
              "state (one process reports what happens before it: mmt solve without mpirun)"};
  agreeOnFailure(session, failure);
  chain.exploration.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return chain;
}

void deliverEdges(const Session& session, const gspn::Net& net,
                  const gspn::ExplorationSettings& settings, LocalChain& chain,
                  const std::function<void(std::uint32_t, std::uint64_t, double)>& edge) {
  const auto start = Clock::now();
  RowSender sender(net, settings, session.size());
  std::uint32_t sent = 0;
  std::vector<std::uint8_t> scratch;
  std::uint64_t count = 0;
  rounds(
      session, net.placeCount(), chain.exploration.bytesSent, count,
      [&](std::vector<std::vector<std::uint8_t>>& buffer) {
        const std::uint32_t end = std::uint32_t(std::min<std::size_t>(chain.size(), sent + kBatch));
        for (; sent < end; ++sent)
          sender.send(chain.markings, sent, chain.first + sent, buffer, nullptr);
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
