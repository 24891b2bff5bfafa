#include "solver/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <limits>
#include <numeric>
#include <utility>

#include "gspn/free_pages.hpp"
#include "gspn/symmetry.hpp"
#include "solver/column_order.hpp"

namespace mmt::solver {

namespace {

/// The fewest and most tokens of each place over the states stateAt(0), …,
/// stateAt(count − 1) of `g` (no states: low above high).
template <typename StateAt>
std::pair<std::vector<gspn::Tokens>, std::vector<gspn::Tokens>> tokenRanges(
    const gspn::TangibleReachabilityGraph& g, std::size_t count, StateAt stateAt,
    std::size_t places) {
  std::vector<gspn::Tokens> low(places, std::numeric_limits<gspn::Tokens>::max()), high(places, 0),
      m(places);
  for (std::size_t i = 0; i < count; ++i) {
    g.markings.decode(stateAt(i), m);
    for (std::size_t p = 0; p < places; ++p) {
      low[p] = std::min(low[p], m[p]);
      high[p] = std::max(high[p], m[p]);
    }
  }
  return {std::move(low), std::move(high)};
}

/// The most bytes sortByMarking's table of decoded markings takes.
constexpr std::size_t kSortTableBytes = std::size_t(64) << 20;

/// The places whose tokens differ somewhere between `low` and `high`, ascending.
std::vector<std::size_t> varyingPlaces(const std::vector<gspn::Tokens>& low,
                                       const std::vector<gspn::Tokens>& high) {
  std::vector<std::size_t> varying;
  for (std::size_t p = 0; p < low.size(); ++p)
    if (high[p] > low[p]) varying.push_back(p);
  return varying;
}

/// Sorts the ids [first, end) by the lexicographic order of their markings, id s's marking
/// being g's state stateOf(s): by their MarkingLayout keys where the store holds such keys
/// and a table of them takes at most kSortTableBytes (keys of one or two words as 64-bit
/// numbers); else by a mixed-radix key of the
/// tokens where the places' ranges over these states fit in 64 bits; otherwise by the
/// tokens of the places that vary among them, each marking decoded once into a table of at
/// most kSortTableBytes (a lumped farm of 512 workers: 1,536 such places, some 1,000
/// markings a breadth-first level), and by decoding both markings at each comparison where
/// the table would be larger.
template <typename StateOf>
void sortByMarking(const gspn::TangibleReachabilityGraph& g, std::size_t places, StateOf stateOf,
                   std::uint32_t* first, std::uint32_t* end) {
  const auto n = std::size_t(end - first);
  // Rows of `width` counters per id, sorted lexicographically; the ids follow.
  auto sortRows = [&](const std::vector<gspn::Tokens>& table, std::size_t width) {
    std::vector<std::uint32_t> rows(n);
    std::iota(rows.begin(), rows.end(), 0u);
    std::sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) {
      const gspn::Tokens* x = table.data() + std::size_t(a) * width;
      const gspn::Tokens* y = table.data() + std::size_t(b) * width;
      return std::lexicographical_compare(x, x + width, y, y + width);
    });
    std::vector<std::uint32_t> sorted(n);
    for (std::size_t i = 0; i < n; ++i) sorted[i] = first[rows[i]];
    std::copy(sorted.begin(), sorted.end(), first);
  };
  // The ids sorted by numberOf(id), a 64-bit number that orders them as their markings.
  auto sortByNumber = [&](auto numberOf) {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(n);
    for (std::size_t i = 0; i < n; ++i) keyed[i] = {numberOf(first[i]), first[i]};
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t i = 0; i < n; ++i) first[i] = keyed[i].second;
  };
  // Stored as MarkingLayout keys, markings compare as their keys do: no decoding (LU at
  // n = 5: levels of 1.5 M markings, 266 places, keys of 3 words).
  if (const gspn::MarkingLayout* layout = g.markings.layout();
      layout && n * layout->keyLength() * sizeof(gspn::Tokens) <= kSortTableBytes) {
    const std::size_t width = layout->keyLength();
    std::vector<gspn::Tokens> key;
    if (width <= 2) {
      // Keys of one or two words compare as one 64-bit number: sorted as numbers, not
      // through a table (Kanban N = 5, two words: 0.17 s of CPU where the table's rows
      // took 0.30).
      return sortByNumber([&](std::uint32_t id) {
        g.markings.key(stateOf(id), key);
        return std::uint64_t(key[0]) << 32 | (width == 2 ? key[1] : 0);
      });
    }
    std::vector<gspn::Tokens> table(n * width);
    for (std::size_t i = 0; i < n; ++i) {
      g.markings.key(stateOf(first[i]), key);
      std::copy(key.begin(), key.end(), table.begin() + std::ptrdiff_t(i * width));
    }
    return sortRows(table, width);
  }
  // Named references, not a structured binding: the number's lambda captures them (which
  // clang allows of a structured binding only from version 16).
  const auto ranges = tokenRanges(
      g, n, [&](std::size_t i) { return stateOf(first[i]); }, places);
  const std::vector<gspn::Tokens>& low = ranges.first;
  const std::vector<gspn::Tokens>& high = ranges.second;
  std::vector<gspn::Tokens> m(places);
  std::uint64_t room = std::numeric_limits<std::uint64_t>::max();
  bool fits = true;
  for (std::size_t p = 0; p < places && fits && n > 0; ++p) {
    const std::uint64_t span = std::uint64_t(high[p]) - low[p] + 1;
    fits = span <= room;
    room /= span;
  }
  if (fits) {
    sortByNumber([&](std::uint32_t id) {
      g.markings.decode(stateOf(id), m);
      std::uint64_t key = 0;
      for (std::size_t p = 0; p < places; ++p)
        key = key * (std::uint64_t(high[p]) - low[p] + 1) + (m[p] - low[p]);
      return key;
    });
  } else if (std::vector<std::size_t> varying = varyingPlaces(low, high);
             n * varying.size() * sizeof(gspn::Tokens) <= kSortTableBytes) {
    const std::size_t width = varying.size();
    std::vector<gspn::Tokens> table(n * width);
    for (std::size_t i = 0; i < n; ++i) {
      g.markings.decode(stateOf(first[i]), m);
      for (std::size_t v = 0; v < width; ++v) table[i * width + v] = m[varying[v]];
    }
    sortRows(table, width);
  } else {
    std::vector<gspn::Tokens> other(places);
    std::sort(first, end, [&](std::uint32_t a, std::uint32_t b) {
      g.markings.decode(stateOf(a), m);
      g.markings.decode(stateOf(b), other);
      return m < other;
    });
  }
}

/// Where the breadth-first levels of `g` begin among `states` (ascending states of g; every
/// state when null): the blocks of the steady state's order (levelMarkingOrder). A graph
/// not explored level by level gives a cut at every state, so nothing moves.
std::vector<std::uint32_t> levelStartsIn(const gspn::TangibleReachabilityGraph& g,
                                         const std::vector<std::uint32_t>* states) {
  if (g.levelStarts.empty()) {
    std::vector<std::uint32_t> every(states ? states->size() : g.stateCount());
    std::iota(every.begin(), every.end(), 0u);
    return every;
  }
  if (!states) return g.levelStarts;
  std::vector<std::uint32_t> starts;
  for (const std::uint32_t start : g.levelStarts)
    starts.push_back(static_cast<std::uint32_t>(
        std::lower_bound(states->begin(), states->end(), start) - states->begin()));
  return starts;
}

/// solveSteadyState on `q`, the generator over `recurrent` (every state of `g` when null),
/// swept with each breadth-first level of g in the order of its markings
/// (levelMarkingOrder). q is left renumbered; π is returned in q's numbering before, IAD's
/// partitions (`levels`, in that numbering too) and the notes' state numbers (graph ids) are
/// taken through the order. `kept`, when not null, receives the order (position k of q now
/// holds its state order[k] before).
SteadyStateResult solveInColumnOrder(Generator& q, const gspn::TangibleReachabilityGraph& g,
                                     const std::vector<std::uint32_t>* recurrent,
                                     std::size_t places, const LevelSource& levels,
                                     SteadyStateSettings settings, BlockOrder* kept) {
  BlockOrder order = levelMarkingOrder(g, recurrent, places);
  renumberWithin(q, order);
  // The sorts' and the renumbering's scratch, freed, may stay resident within the heap.
  gspn::releaseFreePages();
  const ReorderedLevels reordered(levels, order);
  const StateNumber graphState = [&](std::size_t i) -> std::uint64_t {
    return recurrent ? (*recurrent)[order[i]] : order[i];
  };
  settings.levels = &reordered;
  settings.stateNumber = &graphState;
  SteadyStateResult result = solveSteadyState(q, settings);
  if (std::size_t(result.pi.size()) == order.size()) restoreOrder(result.pi, order);
  if (kept) *kept = std::move(order);
  return result;
}

/// solveTransient on `q` (whose entries it frees once sliced), the generator over every
/// state of `g` in `order` (markingOrder, or the order the steady state was swept in): the
/// initial distribution and `settings.limit` are in the graph's numbering, and so are the
/// distributions returned.
TransientResult transientInOrder(Generator&& q, const std::vector<std::uint32_t>& order,
                                 const gspn::TangibleReachabilityGraph& g,
                                 TransientSettings settings) {
  const std::size_t n = order.size();
  const std::vector<std::int64_t> position = positionsIn(g, order);
  std::vector<std::pair<std::uint32_t, double>> initial;
  for (const auto& [state, p] : g.initial) initial.emplace_back(std::uint32_t(position[state]), p);
  Eigen::VectorXd limit;
  if (settings.limit) {
    limit.resize(Eigen::Index(n));
    for (std::size_t k = 0; k < n; ++k) limit[Eigen::Index(k)] = (*settings.limit)[order[k]];
    settings.limit = &limit;
  }
  TransientResult out = solveTransient(std::move(q), initial, settings);
  for (Eigen::VectorXd& d : out.distributions) d = onEveryState(n, order, d);
  return out;
}

/// The distributions of `r`, which keeps none.
std::vector<Eigen::VectorXd> takeDistributions(TransientResult& r) {
  return std::exchange(r.distributions, {});
}

/// The measures under each of r's distributions (over every state of `graph`), which move
/// into them.
std::vector<SteadyStateMeasures> transientMeasures(const gspn::Net& net,
                                                   const gspn::TangibleReachabilityGraph& graph,
                                                   TransientResult& r,
                                                   const gspn::Symmetry* symmetry) {
  return SteadyStateMeasures::under(net, graph, everyState(graph), takeDistributions(r), symmetry);
}

/// The transient distributions alone, over every state of `graph` in marking order: when
/// no steady state is asked for (the chain's structure is then not analysed either) or the
/// chain has none (absorption, say). Unless `keepEdges`, the edges move out of the graph and
/// are renumbered once.
TransientResult transientAlone(const gspn::Net& net, gspn::TangibleReachabilityGraph& graph,
                               const TransientSettings& settings, bool keepEdges) {
  const std::vector<std::uint32_t> order = markingOrder(graph, net.placeCount());
  return transientInOrder(keepEdges ? buildGenerator(graph, order)
                                    : takeGenerator(graph, everyState(graph)).renumbered(order),
                          order, graph, settings);
}

/// The steady state over `recurrent` (every state of `graph` when null, which takes the
/// edges out of it), its generator built from the graph's edges (which stay) when
/// `keepEdges` and taken out of it otherwise, and freed before this returns: the measures
/// are allocated after (peak memory). With `forTransient` (every state recurrent), the
/// solved generator moves into `whole` instead, in the order it was swept (each level in
/// marking order: its products are a little slower than the whole chain's marking order,
/// which would cost a sort of every marking; docs/transient.md), and `order` receives the
/// graph's state at each of its positions.
SteadyStateResult solveRecurrent(const gspn::Net& net, gspn::TangibleReachabilityGraph& graph,
                                 const std::vector<std::uint32_t>* recurrent, bool keepEdges,
                                 const SteadyStateSettings& settings, bool forTransient,
                                 std::optional<Generator>& whole,
                                 std::vector<std::uint32_t>& order) {
  // What the structure's search freed may lie within the heap (taken from the free space
  // exploration left there rather than mapped on its own) and stays resident until the
  // heap is trimmed: 160 to 300 MB at Kanban N = 7, varying from run to run.
  gspn::releaseFreePages();
  const MarkingLevels levels =
      recurrent ? MarkingLevels(net, graph, *recurrent) : MarkingLevels(net, graph);
  Generator q = !recurrent  ? takeGenerator(graph)
                : keepEdges ? buildGenerator(graph, *recurrent)
                            : takeGenerator(graph, *recurrent);
  BlockOrder swept;
  SteadyStateResult result = solveInColumnOrder(q, graph, recurrent, net.placeCount(),
                                                settings.levels ? *settings.levels : levels,
                                                settings, forTransient ? &swept : nullptr);
  if (forTransient && result.status == Status::Converged) {
    order.resize(swept.size());
    for (std::size_t k = 0; k < swept.size(); ++k)
      order[k] = static_cast<std::uint32_t>(recurrent ? (*recurrent)[swept[k]] : swept[k]);
    whole = std::move(q);
  }
  return result;
}

}  // namespace

std::vector<std::uint32_t> markingOrder(const gspn::TangibleReachabilityGraph& g,
                                        std::size_t places) {
  std::vector<std::uint32_t> order = everyState(g);
  sortByMarking(
      g, places, [](std::uint32_t s) { return s; }, order.data(), order.data() + order.size());
  return order;
}

BlockOrder levelMarkingOrder(const gspn::TangibleReachabilityGraph& g,
                             const std::vector<std::uint32_t>* states, std::size_t places) {
  auto stateOf = [states](std::uint32_t i) { return states ? (*states)[i] : i; };
  return BlockOrder::sortedWithin(levelStartsIn(g, states),
                                  states ? states->size() : g.stateCount(),
                                  [&](std::uint32_t* first, std::uint32_t* end) {
                                    sortByMarking(g, places, stateOf, first, end);
                                  });
}

MarkingLevels::MarkingLevels(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
                             const std::vector<std::uint32_t>& states)
    : MarkingLevels(net, graph, &states, states.size()) {}

MarkingLevels::MarkingLevels(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph)
    : MarkingLevels(net, graph, nullptr, graph.stateCount()) {}

MarkingLevels::MarkingLevels(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
                             const std::vector<std::uint32_t>* states, std::size_t count)
    : net_(net), graph_(graph), states_(states), count_(count) {
  const gspn::Symmetry* symmetry = graph.markings.symmetry();
  for (gspn::PlaceId p = 0; p < net.placeCount(); ++p) {
    std::vector<gspn::PlaceId> orbit = symmetry ? symmetry->placeOrbit(p) : std::vector{p};
    if (*std::min_element(orbit.begin(), orbit.end()) == p) orbits_.push_back(std::move(orbit));
  }
}

std::string MarkingLevels::placeName(std::size_t place) const {
  const std::vector<gspn::PlaceId>& orbit = orbits_[place];
  const std::string& name = net_.place(orbit[0]).name;
  if (orbit.size() == 1) return name;
  return name + " summed over its " + std::to_string(orbit.size()) + " replicas";
}

const std::vector<std::uint32_t>& MarkingLevels::sums() const {
  if (!sums_.empty() || count_ == 0) return sums_;
  const std::size_t n = count_;
  sums_.assign(orbits_.size() * n, 0);
  std::vector<gspn::Tokens> marking(net_.placeCount());
  for (std::size_t i = 0; i < n; ++i) {
    graph_.markings.decode(state(i), marking);
    for (std::size_t o = 0; o < orbits_.size(); ++o)
      for (gspn::PlaceId p : orbits_[o]) sums_[o * n + i] += marking[p];
  }
  return sums_;
}

std::vector<std::uint64_t> MarkingLevels::spans() const {
  std::vector<std::uint64_t> out(orbits_.size(), 0);
  if (count_ == 0) return out;
  if (orbits_.size() == net_.placeCount()) {
    const auto [low, high] = tokenRanges(
        graph_, count_, [this](std::size_t i) { return state(i); }, net_.placeCount());
    for (std::size_t p = 0; p < out.size(); ++p) out[p] = std::uint64_t(high[p]) - low[p] + 1;
    return out;
  }
  const std::size_t n = count_;
  for (std::size_t o = 0; o < orbits_.size(); ++o) {
    const auto [low, high] = std::minmax_element(sums().begin() + std::ptrdiff_t(o * n),
                                                 sums().begin() + std::ptrdiff_t((o + 1) * n));
    out[o] = std::uint64_t(*high) - *low + 1;
  }
  return out;
}

BlockPartition MarkingLevels::levels(std::size_t place) const {
  BlockPartition out;
  const std::size_t n = count_;
  if (orbits_.size() == net_.placeCount()) {
    out.blockOf.resize(n);
    const auto& store = graph_.markings;
    const bool packed = store.symmetry() == nullptr;  // one counter read, not a decode
    const auto p = static_cast<gspn::PlaceId>(place);
#pragma omp parallel if (n >= 50'000)
    {
      std::vector<gspn::Tokens> marking(packed ? 0 : net_.placeCount());
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < n; ++i) {
        if (packed) {
          out.blockOf[i] = store.tokens(state(i), p);
        } else {
          store.decode(state(i), marking);
          out.blockOf[i] = marking[p];
        }
      }
    }
  } else if (n > 0) {
    out.blockOf.assign(sums().begin() + std::ptrdiff_t(place * n),
                       sums().begin() + std::ptrdiff_t((place + 1) * n));
  }
  // Each count's rank among the distinct counts: by a table over 0 … max where the counts
  // are small (token counts: a pass, no sort), by sorting them otherwise.
  const std::uint32_t top = n == 0 ? 0 : *std::max_element(out.blockOf.begin(), out.blockOf.end());
  if (top <= std::max<std::uint32_t>(1u << 16, std::uint32_t(n))) {
    std::vector<std::uint32_t> rank(std::size_t(top) + 1, 0);
    for (std::uint32_t b : out.blockOf) rank[b] = 1;
    std::uint32_t next = 0;
    for (std::uint32_t& r : rank) r = r ? next++ : 0;
    for (std::uint32_t& b : out.blockOf) b = rank[b];
    out.blockCount = next;
    return out;
  }
  std::vector<std::uint32_t> counts = out.blockOf;
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  for (std::uint32_t& b : out.blockOf)
    b = std::uint32_t(std::lower_bound(counts.begin(), counts.end(), b) - counts.begin());
  out.blockCount = std::uint32_t(counts.size());
  return out;
}

std::string SolvedNet::message() const {
  switch (stage) {
    case Stage::Exploration:
      return solution.explored.message;
    case Stage::Structure:
      return solution.structure.message;
    case Stage::Solver:
      return solution.steadyState.note;
    case Stage::Absorption: {
      const AbsorptionResult& a = *solution.absorption;
      const SteadyStateResult* r = a.failedSolve();
      return "solving " + a.failed + " failed" + (r && !r->note.empty() ? ": " + r->note : "");
    }
    case Stage::Transient:
      return solution.transientResult->note;
    default:
      return {};
  }
}

namespace {

/// The exploration stage: false when it stopped short (stage Exploration).
bool explore(const gspn::Net& net, const SolvePlan& plan, SolvedNet& solved) {
  ExactSolution& out = solved.solution;
  const auto start = std::chrono::steady_clock::now();
  out.explored = gspn::exploreTangible(net, plan.exploration);
  out.explorationSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (out.explored.status != gspn::ExplorationResult::Status::Ok) {
    solved.stage = SolvedNet::Stage::Exploration;
    return false;
  }
  if (plan.explored) plan.explored(out.explored.graph);
  return true;
}

/// The transient stage on its own (no steady state asked for, or none to be had).
void transientStage(const gspn::Net& net, const SolvePlan& plan, SolvedNet& solved) {
  ExactSolution& out = solved.solution;
  out.transientResult = transientAlone(net, out.explored.graph, *plan.transient, plan.keepEdges);
  if (out.transientResult->status != Status::Converged)
    solved.stage = SolvedNet::Stage::Transient;
  else
    solved.transientMeasures =
        transientMeasures(net, out.explored.graph, *out.transientResult, plan.exploration.symmetry);
}

/// The absorption stage of a chain that ends, with the measures under its long-run
/// distribution and its occupancy: false when a solve failed (stage Absorption).
bool absorptionStage(const gspn::Net& net, const SolvePlan& plan, SolvedNet& solved) {
  ExactSolution& out = solved.solution;
  const gspn::TangibleReachabilityGraph& graph = out.explored.graph;
  gspn::releaseFreePages();
  out.absorption = solveAbsorption(net, graph, plan.steadyState);
  AbsorptionResult& a = *out.absorption;
  if (a.status != Status::Converged) {
    solved.stage = SolvedNet::Stage::Absorption;
    return false;
  }
  std::vector<Eigen::VectorXd> distributions;
  distributions.push_back(std::exchange(a.longRun, {}));
  distributions.push_back(std::exchange(a.occupancy, {}));
  std::vector<SteadyStateMeasures> measures = SteadyStateMeasures::under(
      net, graph, everyState(graph), std::move(distributions), plan.exploration.symmetry);
  solved.measures = std::make_unique<SteadyStateMeasures>(std::move(measures[0]));
  solved.accumulated = std::make_unique<SteadyStateMeasures>(std::move(measures[1]));
  // Each live component under its own π_B, over its own states.
  solved.componentMeasures.resize(a.componentSolves.size());
  for (std::size_t j = 0; j < a.componentSolves.size(); ++j) {
    std::optional<SteadyStateResult>& own = a.componentSolves[j];
    if (!own) continue;
    solved.componentMeasures[j] = std::make_unique<SteadyStateMeasures>(
        net, graph, std::exchange(a.componentStates[j], {}), std::exchange(own->pi, {}),
        plan.exploration.symmetry);
  }
  return true;
}

/// The steady state of an ergodic chain, the transient distributions on the same
/// generator when asked for, and the measures under both.
void steadyStateStage(const gspn::Net& net, const SolvePlan& plan, SolvedNet& solved) {
  ExactSolution& out = solved.solution;
  const TransientSettings* transient = plan.transient ? &*plan.transient : nullptr;
  const bool keepEdges = plan.keepEdges;
  // The markings stay with the graph when the generator takes its edges. The steady state
  // sweeps the breadth-first levels in turn, each in marking order (levelMarkingOrder;
  // Gauss–Seidel needs three times the sweeps with the whole chain in marking order).
  // When every state is recurrent the transient products run on the steady state's
  // generator as it was swept; otherwise on every state in marking order (markingOrder),
  // built before the steady state's generator takes the edges.
  gspn::TangibleReachabilityGraph& graph = out.explored.graph;
  std::vector<std::uint32_t>& recurrent = out.structure.recurrent;
  const bool recurrentOnly = recurrent.size() == graph.stateCount();
  std::vector<std::uint32_t> order;
  std::optional<Generator> whole;
  if (transient && !recurrentOnly) {
    order = markingOrder(graph, net.placeCount());
    whole = buildGenerator(graph, order);
  }
  // Where every state is recurrent and the edges move, the list of them (4 bytes a state:
  // 535 MB at Kanban N = 8) is not held while the solver's vectors are; it is made again
  // for the measures.
  const bool listless = recurrentOnly && !keepEdges;
  if (listless) recurrent = std::vector<std::uint32_t>();
  out.steadyState = solveRecurrent(net, graph, listless ? nullptr : &recurrent, keepEdges,
                                   plan.steadyState, transient && recurrentOnly, whole, order);
  if (listless) recurrent = everyState(graph);
  if (out.steadyState.status != Status::Converged) {
    solved.stage = SolvedNet::Stage::Solver;
    return;
  }
  if (transient) {
    // The limit over every state: π on the bottom component, 0 elsewhere.
    const Eigen::VectorXd limit = onEveryState(graph.stateCount(), recurrent, out.steadyState.pi);
    TransientSettings withLimit = *transient;
    withLimit.limit = &limit;
    out.transientResult = transientInOrder(std::move(*whole), order, graph, withLimit);
    whole.reset();
    if (out.transientResult->status != Status::Converged) {
      solved.stage = SolvedNet::Stage::Transient;
      return;
    }
  }
  // The measures under π and, where π's states are every state in the graph's order (as the
  // transient distributions' are), under those in the same pass.
  std::vector<Eigen::VectorXd> distributions;
  distributions.push_back(out.steadyState.pi);
  bool together = transient && recurrentOnly;
  for (std::size_t i = 0; together && i < recurrent.size(); ++i) together = recurrent[i] == i;
  if (together)
    for (Eigen::VectorXd& d : takeDistributions(*out.transientResult))
      distributions.push_back(std::move(d));
  std::vector<SteadyStateMeasures> measures = SteadyStateMeasures::under(
      net, graph, recurrent, std::move(distributions), plan.exploration.symmetry);
  solved.measures = std::make_unique<SteadyStateMeasures>(std::move(measures.front()));
  if (together)
    std::move(measures.begin() + 1, measures.end(), std::back_inserter(solved.transientMeasures));
  else if (transient)
    solved.transientMeasures =
        transientMeasures(net, graph, *out.transientResult, plan.exploration.symmetry);
}

}  // namespace

std::unique_ptr<SolvedNet> solveNet(const gspn::Net& net, const SolvePlan& plan) {
  auto solved = std::make_unique<SolvedNet>();
  if (!explore(net, plan, *solved)) return solved;
  if (plan.transient && plan.transient->withoutSteadyState) {
    transientStage(net, plan, *solved);
    return solved;
  }
  ExactSolution& out = solved->solution;
  out.structure = analyzeStructure(net, out.explored.graph);
  if (out.structure.kind == ChainStructure::Kind::Ergodic) {
    steadyStateStage(net, plan, *solved);
    return solved;
  }
  if (plan.absorption) {
    if (!absorptionStage(net, plan, *solved)) return solved;
  } else if (!plan.transient) {
    solved->stage = SolvedNet::Stage::Structure;
    return solved;
  }
  if (plan.transient) transientStage(net, plan, *solved);
  return solved;
}

}  // namespace mmt::solver
