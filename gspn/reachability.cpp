#include "gspn/reachability.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <bit>
#include <chrono>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "gspn/progress.hpp"
#include "gspn/vanishing.hpp"

namespace mmt::gspn {

static_assert(std::endian::native == std::endian::little,
              "the packed marking store assumes a little-endian host");

std::size_t TangibleReachabilityGraph::memoryBytes() const {
  return markings.memoryBytes() + inOffset.capacity() * 4 + source.capacity() * 4 +
         rate.capacity() * 8 + exitRate.capacity() * 8 +
         immediateFlows.capacity() * sizeof(ImmediateFlow);
}

namespace {

using Status = ExplorationResult::Status;

/// Names the place with the most tokens over the markings seen: the likely unbounded one.
std::string largestPlace(const Net& net, const PackedMarkingStore& store) {
  Tokens most = 0;
  PlaceId where = 0;
  std::vector<Tokens> m(store.placeCount());
  for (std::uint32_t s = 0; s < store.size(); ++s) {
    store.decode(s, m);
    for (PlaceId p = 0; p < m.size(); ++p)
      if (m[p] > most) {
        most = m[p];
        where = p;
      }
  }
  if (store.placeCount() == 0) return "";
  return "; place '" + net.place(where).name + "' reached " + std::to_string(most) + " tokens";
}

/// A failure that ends exploration.
struct Failure {
  Status status;
  std::string message;
};

/// The failure of a vanishing resolution, as an exploration failure.
Failure eliminationFailure(const VanishingEliminator& eliminator,
                           VanishingEliminator::Status status) {
  return {status == VanishingEliminator::Status::TimelessTrap ? Status::TimelessTrap
                                                              : Status::TooManyVanishing,
          eliminator.error()};
}

/// Computes the outgoing CTMC row of one tangible state: successors (found or added in
/// the store), merged per target, self-loops dropped, sorted by target.
class RowBuilder {
 public:
  RowBuilder(const Net& net, const ExplorationSettings& settings)
      : net_(net),
        eliminator_(net, settings.maxVanishingPerFiring),
        current_(net.placeCount()),
        next_(net.placeCount()),
        flowAccumulator_(net.transitionCount(), 0.0),
        constantRate_(net.transitionCount(), 0.0) {
    // Single-server transitions with a constant rate and constant arcs take the fast path:
    // an inline enabling test and the stored rate.
    for (TransitionId t : net.timedTransitions()) {
      const Transition& tr = net.transition(t);
      if (tr.servers == ServerSemantics::Single && tr.rateExpression.empty() &&
          !net.hasMarkingDependentArcs(t))
        constantRate_[t] = tr.rate;
    }
  }

  VanishingEliminator& eliminator() { return eliminator_; }

  /// Fills row() for state s. With `discover`, new successors are added to `store`;
  /// without, every successor must already be there. Immediate flows are appended to
  /// `flows` when it is not null.
  void build(PackedMarkingStore& store, std::uint32_t s, bool discover,
             std::vector<TangibleReachabilityGraph::ImmediateFlow>* flows) {
    store.decode(s, current_);
    row_.clear();
    auto idOf = [&](MarkingView m) -> std::uint32_t {
      if (discover) return store.insert(m).first;
      auto id = std::as_const(store).find(m, scratch_);
      if (!id) throw std::logic_error("exploration: a successor missing in the second pass");
      return *id;
    };
    for (TransitionId t : net_.timedTransitions()) {
      double lambda = constantRate_[t];
      if (lambda != 0.0) {
        if (!net_.isEnabled(t, current_)) continue;
      } else {
        lambda = net_.rate(t, current_);
        if (lambda == 0.0) continue;
      }
      net_.fire(t, current_, next_);
      if (!eliminator_.isVanishing(next_)) {
        row_.emplace_back(idOf(next_), lambda);
        continue;
      }
      if (auto status = eliminator_.resolve(next_); status != VanishingEliminator::Status::Ok)
        throw eliminationFailure(eliminator_, status);
      for (std::uint32_t e = 0; e < eliminator_.exits().size(); ++e)
        row_.emplace_back(idOf(eliminator_.exits()[e]), lambda * eliminator_.exitProbability()[e]);
      if (flows)
        for (auto [u, count] : eliminator_.firings()) {
          if (flowAccumulator_[u] == 0.0) flowTouched_.push_back(u);
          flowAccumulator_[u] += lambda * count;
        }
    }
    std::sort(row_.begin(), row_.end());
    std::size_t out = 0;
    double total = 0;
    for (std::size_t i = 0; i < row_.size();) {
      const std::uint32_t to = row_[i].first;
      double sum = 0;
      for (; i < row_.size() && row_[i].first == to; ++i) sum += row_[i].second;
      total += sum;
      if (to != s) row_[out++] = {to, sum};  // a self-loop does not change the CTMC
    }
    if (!std::isfinite(total))
      throw std::domain_error("the total rate out of the marking {" + net_.describe(current_) +
                              "} is not finite (rates that large overflow; use another time "
                              "unit)");
    row_.resize(out);
    if (flows) {
      for (TransitionId u : flowTouched_) {
        flows->push_back({s, u, flowAccumulator_[u]});
        flowAccumulator_[u] = 0.0;
      }
      flowTouched_.clear();
    }
  }

  const std::vector<std::pair<std::uint32_t, double>>& row() const { return row_; }

 private:
  const Net& net_;
  VanishingEliminator eliminator_;
  std::vector<Tokens> current_, next_;
  std::vector<std::pair<std::uint32_t, double>> row_;
  std::vector<double> flowAccumulator_;
  std::vector<TransitionId> flowTouched_;
  std::vector<double> constantRate_;  // 0 where the general path is needed
  std::vector<std::uint8_t> scratch_;
};

/// The process's resident memory in bytes (Linux /proc/self/statm), 0 when unknown.
std::uint64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::string megabytes(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MB"; }

}  // namespace

ExplorationResult exploreTangible(const Net& net, const ExplorationSettings& settings) {
  ExplorationResult result;
  TangibleReachabilityGraph& g = result.graph;
  g.markings = PackedMarkingStore(net.placeCount());
  PackedMarkingStore& store = g.markings;
  RowBuilder rows(net, settings);
  ProgressLine progress(settings.progress);

  try {
    const std::vector<Tokens> m0 = net.initialMarking();
    VanishingEliminator& eliminator = rows.eliminator();
    if (eliminator.isVanishing(m0)) {
      if (auto s = eliminator.resolve(m0); s != VanishingEliminator::Status::Ok)
        throw eliminationFailure(eliminator, s);
      for (std::uint32_t e = 0; e < eliminator.exits().size(); ++e)
        g.initial.emplace_back(store.insert(eliminator.exits()[e]).first,
                               eliminator.exitProbability()[e]);
    } else {
      g.initial.emplace_back(store.insert(m0).first, 1.0);
    }

    // Pass 1: discover the states; count the edges into each and the rate out of each.
    std::vector<std::int64_t> inCount;
    std::uint64_t edges = 0;
    for (std::uint32_t s = 0; s < store.size(); ++s) {
      rows.build(store, s, true, &g.immediateFlows);
      if (inCount.size() < store.size()) inCount.resize(std::max(store.size(), 2 * inCount.size()), 0);
      double out = 0;
      for (auto [to, r] : rows.row()) {
        ++inCount[to];
        out += r;
      }
      g.exitRate.push_back(out);
      edges += rows.row().size();
      if (settings.maxMemoryBytes > 0 && (s & 0x3fff) == 0) {
        const std::uint64_t used = residentBytes();
        if (used > settings.maxMemoryBytes)
          throw Failure{Status::MemoryLimit,
                        "exploration stopped at " + std::to_string(store.size()) +
                            " tangible markings (" + std::to_string(edges) +
                            " edges so far) using " + megabytes(used) +
                            ", past the memory limit of " + megabytes(settings.maxMemoryBytes) +
                            "; raise --max-memory if the machine has more, or make the model "
                            "smaller"};
      }
      if (store.size() > settings.maxStates)
        throw Failure{Status::StateLimit,
                      "more than " + std::to_string(settings.maxStates) +
                          " tangible markings (the net may be unbounded" +
                          largestPlace(net, store) + "); raise --max-states if it is bounded"};
      progress.tick(s, [&](double seconds) {
        return "exploring: " + std::to_string(s) + " of " + std::to_string(store.size()) +
               " tangible markings seen, " + std::to_string(edges) + " edges, " +
               std::to_string(static_cast<long long>(s / seconds)) + " states/s, " +
               std::to_string(store.memoryBytes() >> 20) + " MB";
      });
    }
    if (edges > 0x7fffffffull)
      throw Failure{Status::StateLimit, "more than 2^31 CTMC edges (" + std::to_string(edges) +
                                            "): beyond what the solvers can index"};
    const std::size_t n = store.size();
    if (settings.maxMemoryBytes > 0) {
      // Pass 2 adds a source index and a rate per edge and three offsets per state.
      const std::uint64_t need = residentBytes() + edges * (sizeof(std::int32_t) + sizeof(double)) +
                                 3 * (n + 1) * sizeof(std::int32_t);
      if (need > settings.maxMemoryBytes)
        throw Failure{Status::MemoryLimit,
                      "the state space has " + std::to_string(n) + " tangible markings and " +
                          std::to_string(edges) + " edges; storing its generator needs about " +
                          megabytes(need) + ", past the memory limit of " +
                          megabytes(settings.maxMemoryBytes) + "; raise --max-memory if the "
                          "machine has more"};
    }

    // Pass 2: the same rows again, each edge written into its target's column. Two
    // threads: one takes the first half of the states in order and fills each column from
    // its start, the other the second half in reverse order and fills from its end, so
    // every column comes out sorted by source with no locking (lookups are read-only).
    g.inOffset.assign(n + 1, 0);
    for (std::size_t j = 0; j < n; ++j)
      g.inOffset[j + 1] = g.inOffset[j] + static_cast<std::int32_t>(inCount[j]);
    inCount = {};
    g.source.resize(edges);
    g.rate.resize(edges);
    g.edges = edges;
    std::vector<std::int32_t> front(g.inOffset.begin(), g.inOffset.end() - 1);
    std::vector<std::int32_t> back(g.inOffset.begin() + 1, g.inOffset.end());
    const auto half = static_cast<std::uint32_t>(n / 2);
    std::exception_ptr secondFailure;
    std::thread second([&] {
      try {
        RowBuilder mine(net, settings);
        for (std::uint32_t s = static_cast<std::uint32_t>(n); s-- > half;) {
          mine.build(store, s, false, nullptr);
          for (auto [to, r] : mine.row()) {
            const std::int32_t k = --back[to];
            g.source[k] = static_cast<std::int32_t>(s);
            g.rate[k] = r;
          }
        }
      } catch (...) {
        secondFailure = std::current_exception();
      }
    });
    try {
      for (std::uint32_t s = 0; s < half; ++s) {
        rows.build(store, s, false, nullptr);
        for (auto [to, r] : rows.row()) {
          const std::int32_t k = front[to]++;
          g.source[k] = static_cast<std::int32_t>(s);
          g.rate[k] = r;
        }
        progress.tick(s, [&](double) {
          return "building the generator: " + std::to_string(2 * s) + " of " +
                 std::to_string(n) + " states";
        });
      }
    } catch (...) {
      second.join();
      throw;
    }
    second.join();
    if (secondFailure) std::rethrow_exception(secondFailure);
    g.vanishingCount = rows.eliminator().distinctVanishing();
    store.dropIndex();
  } catch (const Failure& f) {
    result.status = f.status;
    result.message = f.message;
    g.vanishingCount = rows.eliminator().distinctVanishing();
  } catch (const std::domain_error& e) {
    result.status = Status::InvalidModel;
    result.message = e.what();
  }
  return result;
}

}  // namespace mmt::gspn
