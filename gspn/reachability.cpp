#include "gspn/reachability.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "gspn/free_pages.hpp"
#include "gspn/kept_rows.hpp"
#include "gspn/progress.hpp"
#include "gspn/row_builder.hpp"
#include "gspn/vanishing.hpp"

namespace mmt::gspn {

static_assert(std::endian::native == std::endian::little,
              "the packed marking store assumes a little-endian host");

std::size_t TangibleReachabilityGraph::memoryBytes() const {
  return markings.memoryBytes() + inOffset.capacity() * 4 + source.capacity() * 4 +
         rate.memoryBytes() + exitRate.capacity() * 8 +
         immediateFlows.size() * sizeof(ImmediateFlow);
}

namespace {

using Status = ExplorationResult::Status;

/// The place with the most tokens over the markings seen, and that count: on a state
/// limit, the likely unbounded place.
std::pair<std::optional<PlaceId>, Tokens> fullestPlace(const PackedMarkingStore& store) {
  if (store.placeCount() == 0) return {std::nullopt, 0};
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
  return {where, most};
}

/// What one worker finds for a run of consecutive states of one breadth-first level, in
/// the first pass: their successors, each either the id of a stored marking or the number
/// of a marking that was not stored when looked up (kUnstored | index into `unstored`).
/// Unstored markings are inserted after the level, in the order of the runs, so the ids
/// are the ones a single thread inserting as it goes would give.
struct LevelRun {
  static constexpr std::uint32_t kUnstored = 0x80000000u;
  std::uint32_t first = 0, last = 0;  // states [first, last)
  std::vector<std::uint32_t> rowEnd;  // per state: end of its successors in target/rate
  std::vector<std::uint32_t> target;
  std::vector<double> rate;
  std::vector<Tokens> unstored;          // the markings (keys) back to back
  std::vector<std::size_t> unstoredEnd;  // per marking: its end in `unstored`
  std::uint32_t unstoredCount = 0;
  std::vector<std::uint64_t> unstoredHash;
  /// Per unstored marking: the first occurrence of the same marking in the level, as
  /// (run << 32 | index); itself when it is the first.
  std::vector<std::uint64_t> firstSeen;
  std::vector<std::uint32_t> unstoredId;  // filled when the level is inserted
  std::vector<TangibleReachabilityGraph::ImmediateFlow> flows;
  /// Per state: its exit rate, copied into the graph where the rows are not kept.
  std::vector<double> exit;
  std::uint64_t edges = 0;  // after merging
  std::exception_ptr failure;
  /// The merged rows, kept for the transposition that replaces pass 2.
  KeptRows kept;
  /// The targets of the merged rows not kept after all (the numbering filled up while
  /// keeping): counted into the in-counts at the end of the level.
  std::vector<std::uint32_t> uncounted;

  MarkingView marking(std::uint32_t i) const {
    const std::size_t begin = i == 0 ? 0 : unstoredEnd[i - 1];
    return {unstored.data() + begin, unstoredEnd[i] - begin};
  }

  void clear(std::uint32_t from, std::uint32_t to) {
    first = from;
    last = to;
    rowEnd.clear();
    target.clear();
    rate.clear();
    unstored.clear();
    unstoredEnd.clear();
    unstoredCount = 0;
    unstoredHash.clear();
    firstSeen.clear();
    unstoredId.clear();
    flows.clear();
    exit.clear();
    edges = 0;
    failure = nullptr;
    kept = {};
  }
};

/// One thread's successors of a run, collected to be looked up together
/// (PackedMarkingStore::findMany): the keys back to back, then their ids.
struct Lookups {
  std::vector<Tokens> keys;
  std::vector<std::size_t> ends;  // per key: its end in `keys`
  std::vector<MarkingView> views;
  std::vector<std::uint32_t> ids;
  PackedMarkingStore::FindScratch scratch;

  /// Adds key m; returns its number.
  std::uint32_t add(MarkingView m) {
    keys.insert(keys.end(), m.begin(), m.end());
    ends.push_back(keys.size());
    return static_cast<std::uint32_t>(ends.size() - 1);
  }
  MarkingView key(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : ends[i - 1];
    return {keys.data() + begin, ends[i] - begin};
  }
  void clear() {
    keys.clear();
    ends.clear();
  }
};

/// The unstored markings of one level, as (run << 32 | index), told apart by content.
class FirstSeenSet {
 public:
  explicit FirstSeenSet(const std::vector<LevelRun>& runs) : set_(0, Hash{&runs}, Equal{&runs}) {}
  auto insert(std::uint64_t ref) { return set_.insert(ref); }
  void clear() { set_.clear(); }

 private:
  struct Hash {
    const std::vector<LevelRun>* runs;
    std::size_t operator()(std::uint64_t ref) const {
      return (*runs)[ref >> 32].unstoredHash[ref & 0xffffffffu];
    }
  };
  struct Equal {
    const std::vector<LevelRun>* runs;
    bool operator()(std::uint64_t a, std::uint64_t b) const {
      MarkingView x = (*runs)[a >> 32].marking(a & 0xffffffffu);
      MarkingView y = (*runs)[b >> 32].marking(b & 0xffffffffu);
      return sameMarking(x, y);
    }
  };
  boost::unordered_flat_set<std::uint64_t, Hash, Equal> set_;
};

/// The process's resident memory in bytes (Linux /proc/self/statm), 0 when unknown.
std::uint64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::string megabytes(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MB"; }

/// Seconds to three significant digits or more ("0.512", "12.3", "104").
std::string seconds3(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, seconds < 10 ? "%.3g" : "%.0f", seconds);
  return text;
}

/// Each thread merges a run's rows into its scratch, then keeps them in exact-size arrays.
struct KeepScratch {
  RateNumbering::Cache cache;
  std::vector<std::uint32_t> end, target;
  std::vector<EdgeRates::Number> number;
};

/// One exploration: pass 1 discovers the states breadth-first, a level at a time, and
/// counts the edges into each (keeping the merged rows where they fit); then the generator
/// is built, by transposing the kept rows or by pass 2. Each step is a method; the state
/// they share is the members. Failures are thrown as ExplorationFailure.
class Explorer {
 public:
  Explorer(const Net& net, const ExplorationSettings& settings, TangibleReachabilityGraph& g)
      : net_(net),
        settings_(settings),
        g_(g),
        store_(g.markings),
        threads_(settings.run.threads > 0 ? static_cast<int>(settings.run.threads)
                                          : std::max(1, omp_get_max_threads())),
        progress_(settings.run.progress),
        keeping_(settings.transposeRows),
        keepScratch_(static_cast<std::size_t>(threads_)),
        lookups_(static_cast<std::size_t>(threads_)) {
    for (int t = 0; t < threads_; ++t) {
      builders_.push_back(std::make_unique<RowBuilder>(net, settings));
      seenSets_.push_back(std::make_unique<FirstSeenSet>(runs_));
      runSets_.push_back(std::make_unique<FirstSeenSet>(runs_));
    }
  }

  void explore() {
    addInitialMarking();
    // Pass 1: discover the states, one breadth-first level at a time; count the edges
    // into each state and the rate out of each. Within a level, the threads take runs of
    // states and only look the store up (read-only); the markings they did not find are
    // then told apart and numbered in run order, so the ids do not depend on the thread
    // count; last, the threads merge their runs' rows and count the edges.
    for (std::uint32_t levelStart = 0; levelStart < store_.size();) {
      g_.levelStarts.push_back(levelStart);
      levelStart = exploreLevel(levelStart);
    }
    endPass1();
    buildGenerator();
    finish();
  }

  /// Distinct vanishing markings: each thread's eliminator counts those it met in pass 1;
  /// the counts are joined, and freed before pass 2 (which meets the same ones again).
  void countVanishing() {
    if (counted_) return;
    counted_ = true;
    std::vector<VanishingEliminator*> all;
    for (const auto& builder : builders_) all.push_back(&builder->eliminator());
    g_.vanishingCount = VanishingEliminator::distinctVanishing(all);
    for (const auto& builder : builders_) builder->eliminator().stopCounting();
  }

 private:
  RowBuilder& rows() { return *builders_[0]; }

  /// The initial marking, or the tangible markings its vanishing one resolves into.
  void addInitialMarking() {
    const std::vector<Tokens> m0 = net_.initialMarking();
    VanishingEliminator& eliminator = rows().eliminator();
    if (eliminator.isVanishing(m0)) {
      if (auto s = eliminator.resolve(m0); s != VanishingEliminator::Status::Ok)
        throw eliminationFailure(eliminator, s);
      for (std::uint32_t e = 0; e < eliminator.exits().size(); ++e)
        g_.initial.emplace_back(store_.insert(rows().stored(store_, eliminator.exits()[e])).first,
                                eliminator.exitProbability()[e]);
      if (settings_.symmetry) mergeInitial();
    } else {
      g_.initial.emplace_back(store_.insert(rows().stored(store_, m0)).first, 1.0);
    }
  }

  /// Under a symmetry, several exits of the vanishing initial marking may share an orbit:
  /// their probabilities are added.
  void mergeInitial() {
    std::sort(g_.initial.begin(), g_.initial.end());
    std::size_t out = 0;
    for (std::size_t i = 0; i < g_.initial.size(); ++i) {
      if (out > 0 && g_.initial[out - 1].first == g_.initial[i].first)
        g_.initial[out - 1].second += g_.initial[i].second;
      else
        g_.initial[out++] = g_.initial[i];
    }
    g_.initial.resize(out);
  }

  /// Pass 1 over the states [levelStart, end of the store): returns where the next level
  /// starts.
  std::uint32_t exploreLevel(std::uint32_t levelStart) {
    checkInterrupt();
    const auto levelEnd = static_cast<std::uint32_t>(store_.size());
    const std::uint32_t levelSize = levelEnd - levelStart;
    // Runs small enough to balance the threads, large enough to amortise their set-up.
    const std::uint32_t runLength =
        std::clamp<std::uint32_t>(levelSize / (8 * static_cast<std::uint32_t>(threads_)), 64, 4096);
    const std::size_t runCount = (levelSize + runLength - 1) / runLength;
    if (runs_.size() < runCount) runs_.resize(runCount);
    // Small levels run on one thread: starting the threads and waiting at their barriers
    // costs more than they save (the tandem queue, c = 1023: 3,071 levels of about 700
    // states, pass 1 in 2.3 s on two threads, 1.7 s on one).
    const bool parallel = threads_ > 1 && levelSize >= std::max(1u, settings_.parallelLevelSize);
    collectRows(levelStart, levelEnd, runLength, runCount, parallel);
    tellApartUnstored(runCount, parallel);
    numberUnstored(runCount, parallel);
    mergeRows(runCount, parallel);
    endLevel(runCount, levelEnd);
    return levelEnd;
  }

  /// Each run's rows, with the successors not in the store kept in the run (on one
  /// thread, numbered at once).
  void collectRows(std::uint32_t levelStart, std::uint32_t levelEnd, std::uint32_t runLength,
                   std::size_t runCount, bool parallel) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (parallel)
    for (std::size_t r = 0; r < runCount; ++r) {
      LevelRun& run = runs_[r];
      const std::uint32_t first = levelStart + static_cast<std::uint32_t>(r) * runLength;
      run.clear(first, std::min(levelEnd, first + runLength));
      RowBuilder& mine = *builders_[omp_get_thread_num()];
      Lookups& lookups = lookups_[std::size_t(omp_get_thread_num())];
      lookups.clear();
      auto idOf = [&](MarkingView m) -> std::uint32_t {
        // On one thread, a new marking is numbered as soon as it is found; on several, the
        // run's successors are looked up together at its end (resolve).
        if (!parallel) return store_.insert(m).first;
        return lookups.add(m);
      };
      try {
        for (std::uint32_t s = run.first; s < run.last; ++s) {
          mine.collect(store_, s, idOf, &run.flows);
          for (auto [to, rate] : mine.row()) {
            run.target.push_back(to);
            run.rate.push_back(rate);
          }
          run.rowEnd.push_back(static_cast<std::uint32_t>(run.target.size()));
        }
        if (parallel) resolve(run, r, lookups);
        run.firstSeen.resize(run.unstoredCount);
      } catch (...) {
        run.failure = std::current_exception();
      }
    }
    for (std::size_t r = 0; r < runCount; ++r)
      if (runs_[r].failure) std::rethrow_exception(runs_[r].failure);
  }

  /// A run's successors, numbered 0, 1, … in the order met, looked up in the store
  /// together: those not stored are kept in the run once each (unstored), and the run's
  /// targets, which were these numbers, become ids or kUnstored | index.
  void resolve(LevelRun& run, std::size_t r, Lookups& lookups) {
    lookups.views.clear();
    for (std::size_t i = 0; i < lookups.ends.size(); ++i) lookups.views.push_back(lookups.key(i));
    lookups.ids.resize(lookups.views.size());
    store_.findMany(lookups.views, lookups.ids, lookups.scratch);
    FirstSeenSet& inRun = *runSets_[omp_get_thread_num()];
    inRun.clear();
    for (std::size_t i = 0; i < lookups.ids.size(); ++i) {
      if (lookups.ids[i] != PackedMarkingStore::kAbsent) continue;
      const MarkingView m = lookups.views[i];
      // Neighbouring states share many successors: each is kept once per run.
      run.unstored.insert(run.unstored.end(), m.begin(), m.end());
      run.unstoredEnd.push_back(run.unstored.size());
      run.unstoredHash.push_back(hashMarking(m));
      auto [it, added] = inRun.insert(std::uint64_t(r) << 32 | run.unstoredCount);
      if (added) {
        lookups.ids[i] = LevelRun::kUnstored | run.unstoredCount++;
        continue;
      }
      run.unstored.resize(run.unstored.size() - m.size());
      run.unstoredEnd.pop_back();
      run.unstoredHash.pop_back();
      lookups.ids[i] = LevelRun::kUnstored | static_cast<std::uint32_t>(*it & 0xffffffffu);
    }
    for (std::uint32_t& to : run.target) to = lookups.ids[to];
  }

  /// The markings not found, told apart: thread k takes those whose hash is k modulo the
  /// thread count and, reading the runs in order, keeps the first occurrence of each.
  void tellApartUnstored(std::size_t runCount, bool parallel) {
#pragma omp parallel num_threads(threads_) if (parallel)
    {
      const auto part = static_cast<std::uint64_t>(omp_get_thread_num());
      const auto parts = static_cast<std::uint64_t>(omp_get_num_threads());
      FirstSeenSet& seen = *seenSets_[part];
      seen.clear();
      for (std::size_t r = 0; r < runCount; ++r) {
        LevelRun& run = runs_[r];
        for (std::uint32_t i = 0; i < run.unstoredCount; ++i)
          if (run.unstoredHash[i] % parts == part)
            run.firstSeen[i] = *seen.insert(std::uint64_t(r) << 32 | i).first;
      }
    }
  }

  /// Numbers for the new markings, in the order a single thread would have found them;
  /// they join the store (past the state limit, exploration stops).
  void numberUnstored(std::size_t runCount, bool parallel) {
    std::vector<MarkingView> fresh;
    std::uint64_t next = store_.size();
    for (std::size_t r = 0; r < runCount; ++r) {
      LevelRun& run = runs_[r];
      run.unstoredId.resize(run.unstoredCount);
      for (std::uint32_t i = 0; i < run.unstoredCount; ++i) {
        const std::uint64_t first = run.firstSeen[i];
        if (first == (std::uint64_t(r) << 32 | i)) {
          run.unstoredId[i] = static_cast<std::uint32_t>(next++);
          fresh.push_back(run.marking(i));
        } else {
          run.unstoredId[i] = runs_[first >> 32].unstoredId[first & 0xffffffffu];
        }
      }
    }
    if (next > settings_.maxStates) {
      const auto [place, tokens] = fullestPlace(store_);
      throw ExplorationFailure{Status::StateLimit,
                               "more than " + std::to_string(settings_.maxStates) +
                                   " tangible markings (the net may be unbounded" +
                                   (place ? "; place '" + net_.place(*place).name + "' reached " +
                                                std::to_string(tokens) + " tokens"
                                          : std::string()) +
                                   "); raise --max-states if it is bounded",
                               place, tokens};
    }
    store_.appendNew(fresh, parallel ? threads_ : 1);
    if (!keeping_) growInCount();
  }

  /// inCount_ sized to the states stored, its new entries 0.
  void growInCount() {
    if (inCount_.capacity() < store_.size()) inCount_.reserve(store_.size() + store_.size() / 4);
    inCount_.resize(store_.size(), 0);
  }

  /// Each run's rows with their targets numbered, merged (parallel edges added, the
  /// self-loop dropped) and, while keeping, kept by rate number. Rows not kept are counted
  /// into their targets' in-counts; kept rows are counted when they are transposed or
  /// dropped, so that inCount_ is not held while exploring.
  void mergeRows(std::size_t runCount, bool parallel) {
    const bool keeping = keeping_;  // inCount_ is sized only when not keeping
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (parallel)
    for (std::size_t r = 0; r < runCount; ++r) {
      LevelRun& run = runs_[r];
      std::vector<std::pair<std::uint32_t, double>> row;
      KeepScratch& scratch = keepScratch_[std::size_t(omp_get_thread_num())];
      scratch.end.clear();
      scratch.target.clear();
      scratch.number.clear();
      std::uint32_t begin = 0;
      for (std::uint32_t s = run.first; s < run.last; ++s) {
        const std::uint32_t end = run.rowEnd[s - run.first];
        row.clear();
        for (std::uint32_t k = begin; k < end; ++k) {
          const std::uint32_t to = run.target[k];
          row.emplace_back(
              to & LevelRun::kUnstored ? run.unstoredId[to & ~LevelRun::kUnstored] : to,
              run.rate[k]);
        }
        begin = end;
        run.exit.push_back(mergeRow(row, s));
        run.edges += row.size();
        if (keeping)
          keep(row, scratch);
        else
          for (const auto& edge : row)
            std::atomic_ref<std::uint32_t>(inCount_[edge.first])
                .fetch_add(1, std::memory_order_relaxed);
      }
      if (!keeping) continue;
      if (!numberingFull_.load(std::memory_order_relaxed))
        run.kept.assign(run.first, run.last, scratch.end, scratch.target, scratch.number,
                        static_cast<std::uint32_t>(store_.size()));
      else
        run.uncounted.assign(scratch.target.begin(), scratch.target.end());
    }
  }

  /// Appends a merged row's targets and, until the numbering is full, their rate numbers
  /// to the run's rows to keep.
  void keep(const std::vector<std::pair<std::uint32_t, double>>& row, KeepScratch& scratch) {
    for (const auto& [to, rate] : row) {
      scratch.target.push_back(to);
      if (numberingFull_.load(std::memory_order_relaxed)) continue;
      if (const auto number = keptNumbering_.number(rate, scratch.cache))
        scratch.number.push_back(*number);
      else
        numberingFull_ = true;
    }
    scratch.end.push_back(static_cast<std::uint32_t>(scratch.target.size()));
  }

  /// The level's kept rows, edges and immediate flows gathered; the memory limit checked;
  /// a progress line.
  void endLevel(std::size_t runCount, std::uint32_t levelEnd) {
    if (keeping_ && numberingFull_) {
      // Some runs were kept before the numbering filled up (a run not kept has no kept
      // rows: LevelRun::clear), the others hold their targets to count.
      stopKeeping();
      for (std::size_t r = 0; r < runCount; ++r) {
        runs_[r].kept.countTargets(inCount_.data());
        runs_[r].kept = {};
        for (std::uint32_t t : runs_[r].uncounted) ++inCount_[t];
        runs_[r].uncounted.clear();
      }
    } else if (keeping_) {
      for (std::size_t r = 0; r < runCount; ++r) kept_.push_back(std::move(runs_[r].kept));
    }
    // Kept rows carry their exit rates (sums of the rows, written when transposed).
    if (!keeping_) {
      g_.exitRate.resize(levelEnd);
      for (std::size_t r = 0; r < runCount; ++r)
        std::copy(runs_[r].exit.begin(), runs_[r].exit.end(), g_.exitRate.begin() + runs_[r].first);
    }
    for (std::size_t r = 0; r < runCount; ++r) {
      edges_ += runs_[r].edges;
      g_.immediateFlows.insert(g_.immediateFlows.end(), runs_[r].flows.begin(),
                               runs_[r].flows.end());
    }
    if (settings_.maxMemoryBytes > 0) {
      std::uint64_t used = residentBytes();
      // The generator the kept rows become takes a source index and a rate number an edge.
      if (keeping_ && used + edges_ * (sizeof(std::int32_t) + sizeof(EdgeRates::Number)) >
                          settings_.maxMemoryBytes) {
        stopKeeping();
        used = residentBytes();
      }
      if (used > settings_.maxMemoryBytes) throw memoryFailure(used);
    }
    progress_.report([&](double seconds) {
      return "exploring: " + std::to_string(levelEnd) + " of " + std::to_string(store_.size()) +
             " tangible markings seen, " + std::to_string(edges_) + " edges, " +
             std::to_string(static_cast<long long>(levelEnd / seconds)) + " states/s, " +
             std::to_string(store_.memoryBytes() >> 20) + " MB";
    });
  }

  bool interrupted() const { return settings_.run.interrupted(); }
  void checkInterrupt() const {
    if (interrupted()) throw ExplorationFailure{Status::Interrupted, "exploration interrupted"};
  }

  /// Pass 2 from here on: the kept rows are counted into the in-counts and summed into
  /// their states' exit rates, then dropped.
  void stopKeeping() {
    keeping_ = false;
    growInCount();
    const std::vector<double> table = keptNumbering_.table();
    for (const KeptRows& rows : kept_) {
      rows.countTargets(inCount_.data());
      rows.addRowSums(g_.exitRate, table);
    }
    kept_ = {};
    gspn::releaseFreePages();
  }

  ExplorationFailure memoryFailure(std::uint64_t used) const {
    return ExplorationFailure{
        Status::MemoryLimit,
        "exploration stopped at " + std::to_string(store_.size()) + " tangible markings (" +
            std::to_string(edges_) + " edges so far) using " + megabytes(used) +
            ", past the memory limit of " + megabytes(settings_.maxMemoryBytes) +
            "; raise --max-memory if the machine has more, or make the model smaller"};
  }

  /// Pass 1's buffers freed; the edge count checked against what the solvers index.
  void endPass1() {
    countVanishing();
    runs_ = {};
    seenSets_.clear();
    runSets_.clear();
    // The level buffers were many blocks that glibc keeps for reuse, and pass 2's large
    // arrays are fresh mappings that cannot reuse them: give them back to the system
    // (Kanban N = 5: peak 465 -> 423 MB).
    gspn::releaseFreePages();
    if (edges_ > 0x7fffffffull)
      throw ExplorationFailure{Status::EdgeLimit, "more than 2^31 CTMC edges (" +
                                                      std::to_string(edges_) +
                                                      "): beyond what the solvers can index"};
  }

  /// Memory for the generator: the resident memory, a source index and a rate per edge
  /// (`rateBytes`: 2 where the chain has at most 65,536 distinct rates, 8 otherwise) and
  /// three offsets per state.
  std::uint64_t generatorNeed(std::size_t rateBytes) const {
    return residentBytes() + edges_ * (sizeof(std::int32_t) + rateBytes) +
           3 * (store_.size() + 1) * sizeof(std::int32_t);
  }

  void checkMemory(std::size_t rateBytes) const {
    if (settings_.maxMemoryBytes == 0) return;
    const std::uint64_t need = generatorNeed(rateBytes);
    if (need > settings_.maxMemoryBytes)
      throw ExplorationFailure{
          Status::MemoryLimit,
          "the state space has " + std::to_string(store_.size()) + " tangible markings and " +
              std::to_string(edges_) + " edges; storing its generator needs about " +
              megabytes(need) + ", past the memory limit of " +
              megabytes(settings_.maxMemoryBytes) + "; raise --max-memory if the machine has more"};
  }

  /// The generator's columns: the kept rows transposed, or pass 2 (compact rates first,
  /// wide ones where the chain has too many distinct rates).
  void buildGenerator() {
    // The transposition needs the rows and the columns at once (less as the rows are
    // freed, but the check cannot count on it): where that does not fit, pass 2 may.
    if (keeping_ && settings_.maxMemoryBytes > 0 &&
        generatorNeed(sizeof(EdgeRates::Number)) > settings_.maxMemoryBytes)
      stopKeeping();
    checkMemory(sizeof(EdgeRates::Number));
    const std::size_t n = store_.size();
    g_.inOffset.assign(n + 1, 0);
    if (keeping_) {
      store_.dropIndex();  // no lookups are left: freed before the counts are made
      for (const KeptRows& rows : kept_) rows.countTargets(g_.inOffset.data() + 1);
    } else {
      std::copy(inCount_.begin(), inCount_.end(), g_.inOffset.begin() + 1);
      inCount_ = std::vector<std::uint32_t>();  // freed (`= {}` would keep the capacity)
    }
    for (std::size_t j = 0; j < n; ++j) g_.inOffset[j + 1] += g_.inOffset[j];
    g_.source.resize(edges_);
    g_.edges = edges_;
    if (keeping_) {
      transposeKept();
    } else if (numberingFull_ || !fill(true)) {
      g_.rate.release();
      checkMemory(sizeof(double));
      fill(false);
    }
    g_.bytesPerEdge = sizeof(std::int32_t) + (g_.sourceBits ? 0 : g_.rate.bytesPerEntry());
  }

  /// The kept rows transposed, in state order, so every column comes out sorted by source;
  /// each run's rows are freed once written. No lookups are left to do. The rates are
  /// numbered in ascending order of the table (EdgeRates::canonical) as they are written;
  /// where a source and its number fit in 32 bits together, an edge is one PackedEdge
  /// word and no array of numbers is made (2 bytes an edge less at this stage's peak,
  /// where the kept rows and the columns are both held: Kanban N = 6, 231 MB).
  void transposeKept() {
    const std::vector<double> keptTable = keptNumbering_.table();
    std::vector<double> table = keptTable;
    const std::vector<EdgeRates::Number> renumber = EdgeRates::sortTable(table);
    const std::size_t n = store_.size();
    const auto shift = PackedEdge::shiftForTable(n, table.size());
    g_.sourceBits = shift.value_or(0);
    g_.rate.assignCompact(shift ? 0 : edges_);
    g_.rate.setTable(std::move(table));
    std::uint64_t freed = 0;
    // Each column's start moves along as it fills (no copy of the n + 1 offsets, 535 MB
    // at Kanban N = 8): column j ends where column j + 1 began, so the offsets shift back
    // by one place once every edge is written.
    std::int32_t* front = g_.inOffset.data();
    // The exit rates are the rows' sums, written run by run as the rows are read: their
    // pages become resident as the rows' are given back (1 GB at Kanban N = 8, not held
    // while exploring).
    g_.exitRate.reserve(n);
    // On two threads each takes every other block of 1,024 columns: both read a batch
    // of runs' rows and write the edges into their own columns, in the rows' order,
    // so each column comes out sorted by source, as on one thread; the batch is freed once
    // both have read it. A batch's rows point into a level or two of columns, so blocks
    // of columns share its edges between the threads where halves of the columns would
    // give nearly all of them to one (Kanban N = 5: the other thread waited through most
    // of the transposition). The first thread also sums the rows (exitRate was reserved:
    // it does not move). A graph of fewer edges than 16 parallel-size levels hold (32,768
    // at the default; a round figure, not a measured one) is transposed on one thread; the
    // tests' level size of 1 sends every transposition to two.
    const int team = threads_ > 1 && edges_ >= settings_.parallelLevelSize * 16 ? 2 : 1;
    constexpr unsigned kColumnBlockBits = 10;  // 1,024 columns: some 40 KB of Kanban's edges
    constexpr std::size_t kBatch = 16;         // runs of up to 4,096 states each
    for (std::size_t b = 0; b < kept_.size(); b += kBatch) {
      checkInterrupt();
      const std::size_t batchEnd = std::min(kept_.size(), b + kBatch);
#pragma omp parallel num_threads(team) if (team > 1)
      {
        const bool first = omp_get_thread_num() == 0, alone = omp_get_num_threads() == 1;
        // The parity of the column blocks this thread writes (alone: both).
        const std::uint32_t parity = first ? 0 : 1;
        for (std::size_t r = b; r < batchEnd; ++r) {
          const KeptRows& rows = kept_[r];
          if (first) rows.addRowSums(g_.exitRate, keptTable);
          rows.forEachEdge([&](std::uint32_t s, std::uint32_t to, EdgeRates::Number number) {
            if (!alone && (to >> kColumnBlockBits & 1) != parity) return;
            const auto at = std::size_t(front[to]++);
            if (shift) {
              g_.source[at] =
                  static_cast<std::int32_t>(PackedEdge::pack(s, renumber[number], *shift));
            } else {
              g_.source[at] = static_cast<std::int32_t>(s);
              g_.rate.setNumber(at, renumber[number]);
            }
          });
        }
      }
      for (std::size_t r = b; r < batchEnd; ++r) {
        freed += kept_[r].bytes();
        kept_[r] = KeptRows{};
      }
      if (freed > (std::uint64_t{16} << 20)) {  // give the pages back as they free up
        gspn::releaseFreePages();
        freed = 0;
      }
    }
    kept_ = {};
    g_.exitRate.resize(n, 0.0);
    std::copy_backward(g_.inOffset.begin(), g_.inOffset.end() - 1, g_.inOffset.end());
    g_.inOffset[0] = 0;
  }

  /// Pass 2: the same rows again, each edge written into its target's column. With two
  /// threads or more, one takes the first half of the states in order and fills each
  /// column from its start, another the second half in reverse order and fills from its
  /// end, so every column comes out sorted by source with no locking (lookups are
  /// read-only). Rates are numbered as they are met (RateNumbering); returns false when
  /// the chain has more distinct rates than the compact form holds (`compact`), and the
  /// pass must run again storing them wide.
  bool fill(bool compact) {
    const auto n = static_cast<std::uint32_t>(store_.size());
    const std::uint32_t half = threads_ > 1 ? n / 2 : n;
    std::vector<std::int32_t> front(g_.inOffset.begin(), g_.inOffset.end() - 1);
    std::vector<std::int32_t> back(g_.inOffset.begin() + 1, g_.inOffset.end());
    RateNumbering numbering;
    std::atomic<bool> full{false};
    if (compact)
      g_.rate.assignCompact(edges_);
    else
      g_.rate.assignWide(edges_);
    // Writes the edge from s with rate r at k; false when the compact form is full.
    auto write = [&](RateNumbering::Cache& cache, std::int32_t k, std::uint32_t s, double r) {
      g_.source[k] = static_cast<std::int32_t>(s);
      if (!compact) {
        g_.rate.setWide(k, r);
        return true;
      }
      const auto number = numbering.number(r, cache);
      if (!number) return false;
      g_.rate.setNumber(k, *number);
      return true;
    };
    std::exception_ptr secondFailure;
    std::thread second;
    if (half < n)
      second = std::thread([&] {
        try {
          RowBuilder& mine = *builders_[1];
          RateNumbering::Cache cache;
          for (std::uint32_t s = n; s-- > half && !full;) {
            mine.build(store_, s);
            for (auto [to, r] : mine.row())
              if (!write(cache, --back[to], s, r)) full = true;
          }
        } catch (...) {
          secondFailure = std::current_exception();
        }
      });
    try {
      RateNumbering::Cache cache;
      for (std::uint32_t s = 0; s < half && !full; ++s) {
        rows().build(store_, s);
        for (auto [to, r] : rows().row())
          if (!write(cache, front[to]++, s, r)) full = true;
        if ((s & 0xffff) == 0 && interrupted()) full = true;  // stops the other half too
        progress_.tick(s, [&](double) {
          return "building the generator: " + std::to_string(half < n ? 2 * s : s) + " of " +
                 std::to_string(n) + " states";
        });
      }
    } catch (...) {
      if (second.joinable()) second.join();
      throw;
    }
    if (second.joinable()) second.join();
    if (secondFailure) std::rethrow_exception(secondFailure);
    checkInterrupt();
    if (full) return false;
    if (compact) {
      g_.rate.setTable(numbering.table());
      g_.rate.canonical();
    }
    return true;
  }

  /// The closing progress line; the store's hash index freed.
  void finish() {
    const std::size_t n = store_.size();
    progress_.finish([&](double seconds) {
      std::string line = "explored " + std::to_string(n) + " tangible markings and " +
                         std::to_string(edges_) + " edges in " + seconds3(seconds) + " s (" +
                         std::to_string(static_cast<long long>(n / seconds)) + " states/s, " +
                         std::to_string(static_cast<long long>(edges_ / seconds)) +
                         " edges/s); edges stored in " + std::to_string(g_.bytesPerEdge) +
                         " bytes each";
      if (g_.rate.compact())
        line += " (" + std::to_string(g_.rate.table().size()) + " distinct rates)";
      return line + ", " + megabytes(residentBytes());
    });
    store_.dropIndex();
  }

  const Net& net_;
  const ExplorationSettings& settings_;
  TangibleReachabilityGraph& g_;
  PackedMarkingStore& store_;
  const int threads_;
  std::vector<std::unique_ptr<RowBuilder>> builders_;
  ProgressLine progress_;
  bool counted_ = false;
  /// Edges into each state from the rows not kept; empty while every row is kept (the
  /// kept rows are counted into the offsets when they are transposed).
  std::vector<std::uint32_t> inCount_;
  std::vector<LevelRun> runs_;
  std::vector<std::unique_ptr<FirstSeenSet>> seenSets_, runSets_;
  std::uint64_t edges_ = 0;
  // Pass 1 keeps the merged rows, each rate by its number, so that the generator is their
  // transposition rather than a second pass of firings and lookups. It stops keeping them
  // (pass 2 then runs) when the chain has more distinct rates than the compact form
  // holds, or when the rows and the generator they become would not both fit under the
  // memory limit.
  bool keeping_;
  std::atomic<bool> numberingFull_{false};
  RateNumbering keptNumbering_;
  std::vector<KeepScratch> keepScratch_;
  std::vector<Lookups> lookups_;  ///< per thread
  std::vector<KeptRows> kept_;
};

}  // namespace

ExplorationResult exploreTangible(const Net& net, const ExplorationSettings& settings) {
  ExplorationResult result;
  if (settings.symmetry)
    result.graph.markings = PackedMarkingStore(net.placeCount(), settings.symmetry);
  else
    result.graph.markings =
        PackedMarkingStore(std::make_shared<const MarkingLayout>(net, settings.placeBounds));
  Explorer explorer(net, settings, result.graph);
  try {
    explorer.explore();
  } catch (const ExplorationFailure& f) {
    result.status = f.status;
    result.message = f.message;
    result.fullestPlace = f.fullestPlace;
    result.fullestTokens = f.fullestTokens;
    explorer.countVanishing();
  } catch (const std::domain_error& e) {
    result.status = Status::InvalidModel;
    result.message = e.what();
  }
  return result;
}

}  // namespace mmt::gspn
