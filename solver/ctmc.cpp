#include "solver/ctmc.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <utility>

namespace mmt::solver {
namespace {

/// Strongly connected components of the graph whose edges into j come from the sources
/// of edges [inOffset[j], inOffset[j+1]) — the reverse of the CTMC, which has the same
/// components. Iterative Tarjan (R. Tarjan, SIAM J. Comput. 1(2), 1972). Returns the
/// component of each vertex and the component count.
std::pair<std::vector<std::uint32_t>, std::uint32_t> strongComponents(
    const gspn::TangibleReachabilityGraph& g) {
  const std::vector<std::int32_t>& offset = g.inOffset;
  const std::size_t n = offset.size() - 1;
  constexpr std::uint32_t kUnvisited = UINT32_MAX;
  std::vector<std::uint32_t> order(n, kUnvisited), low(n), component(n, kUnvisited);
  std::vector<std::uint32_t> stack;
  std::vector<std::pair<std::uint32_t, std::int32_t>> calls;  // vertex, next edge
  std::uint32_t counter = 0, components = 0;
  for (std::uint32_t root = 0; root < n; ++root) {
    if (order[root] != kUnvisited) continue;
    calls.emplace_back(root, offset[root]);
    order[root] = low[root] = counter++;
    stack.push_back(root);
    while (!calls.empty()) {
      auto& [v, edge] = calls.back();
      if (edge < offset[v + 1]) {
        const std::uint32_t w = g.sourceOf(std::size_t(edge++));
        if (order[w] == kUnvisited) {
          order[w] = low[w] = counter++;
          stack.push_back(w);
          calls.emplace_back(w, offset[w]);
        } else if (component[w] == kUnvisited) {
          low[v] = std::min(low[v], order[w]);
        }
        continue;
      }
      const std::uint32_t done = v;
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[done]);
      if (low[done] == order[done]) {
        std::uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          component[w] = components;
        } while (w != done);
        ++components;
      }
    }
  }
  return {std::move(component), components};
}

/// Which of the components of `component` are bottom: no edge leaves them (an edge i -> j
/// is stored in column j).
std::vector<char> bottomOf(const gspn::TangibleReachabilityGraph& g,
                           const std::vector<std::uint32_t>& component,
                           std::uint32_t componentCount) {
  std::vector<char> bottom(componentCount, 1);
  for (std::uint32_t j = 0; j + 1 < g.inOffset.size(); ++j)
    for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k)
      if (const std::uint32_t i = g.sourceOf(std::size_t(k)); component[i] != component[j])
        bottom[component[i]] = 0;
  return bottom;
}

}  // namespace

ChainStructure analyzeStructure(const gspn::Net& net, const gspn::TangibleReachabilityGraph& g) {
  ChainStructure result;
  const std::size_t n = g.stateCount();

  for (std::uint32_t s = 0; s < n; ++s) {
    std::string zeroRate;
    if (isDead(net, g, s, &zeroRate)) {
      result.kind = ChainStructure::Kind::Deadlock;
      result.message = "deadlock: the reachable marking {" + net.describe(g.marking(s)) +
                       "} enables no transition" +
                       (zeroRate.empty() ? std::string()
                                         : " with a positive rate ('" + zeroRate +
                                               "' is enabled there, but its rate is 0)");
      return result;
    }
  }

  // Fast path: with one initial state, every state is reachable from it (exploration is
  // a search from it); if it is also reachable from every state — a search backwards
  // along the stored incoming edges — the chain is irreducible.
  if (g.initial.size() == 1 && reachingAny(g, {g.initial[0].first}).size() == n) {
    result.recurrent = everyState(g);
    result.bottomComponentCount = 1;
    return result;
  }

  auto [component, componentCount] = strongComponents(g);
  const std::vector<char> bottom = bottomOf(g, component, componentCount);

  std::vector<std::uint32_t> witness(componentCount, UINT32_MAX);
  for (std::uint32_t s = 0; s < n; ++s)
    if (bottom[component[s]] && witness[component[s]] == UINT32_MAX) witness[component[s]] = s;
  std::vector<std::uint32_t> bottoms;
  for (std::size_t c = 0; c < componentCount; ++c)
    if (bottom[c]) bottoms.push_back(witness[c]);
  std::sort(bottoms.begin(), bottoms.end());
  result.bottomComponentCount = bottoms.size();

  if (bottoms.size() > 1) {
    result.kind = ChainStructure::Kind::MultipleBottomComponents;
    result.message = "the reachability graph has " + std::to_string(bottoms.size()) +
                     " bottom strongly connected components, so the long-run behaviour "
                     "depends on early choices; e.g. {" +
                     net.describe(g.marking(bottoms[0])) + "} and {" +
                     net.describe(g.marking(bottoms[1])) + "} never reach each other";
    return result;
  }
  const std::uint32_t keep = component[bottoms.at(0)];
  for (std::uint32_t s = 0; s < n; ++s)
    if (component[s] == keep) result.recurrent.push_back(s);
  result.transientCount = n - result.recurrent.size();
  return result;
}

bool isDead(const gspn::Net& net, const gspn::TangibleReachabilityGraph& g, std::uint32_t s,
            std::string* zeroRate) {
  // A state with an outgoing edge enables a transition; only the others can be dead (a
  // state whose only firings loop back to itself has no edges but is not dead).
  if (g.exitRate[s] != 0) return false;
  const std::vector<gspn::Tokens> m = g.marking(s);
  // A transition whose rate is 0 in m never fires there: it counts as disabled, as it
  // does in exploration and in the simulator.
  for (gspn::TransitionId t : net.timedTransitions()) {
    if (!net.isEnabled(t, m)) continue;
    if (net.rate(t, m) > 0) return false;
    if (zeroRate && zeroRate->empty()) *zeroRate = net.transition(t).name;
  }
  return true;
}

BottomComponents bottomComponents(const gspn::Net& net, const gspn::TangibleReachabilityGraph& g) {
  BottomComponents out;
  const std::size_t n = g.stateCount();
  auto [component, componentCount] = strongComponents(g);
  const std::vector<char> bottom = bottomOf(g, component, componentCount);
  // Components numbered by their lowest state, in the order of those states.
  std::vector<std::uint32_t> number(componentCount, BottomComponents::kTransient);
  out.componentOf.assign(n, BottomComponents::kTransient);
  for (std::uint32_t s = 0; s < n; ++s) {
    const std::uint32_t c = component[s];
    if (!bottom[c]) {
      ++out.transientStates;
      continue;
    }
    if (number[c] == BottomComponents::kTransient) {
      number[c] = static_cast<std::uint32_t>(out.components.size());
      out.components.push_back({s, 0, false});
    }
    out.componentOf[s] = number[c];
    ++out.components[number[c]].states;
  }
  for (BottomComponents::Component& c : out.components)
    if (c.states == 1 && isDead(net, g, c.witness)) {
      c.dead = true;
      out.dead.push_back(c.witness);
    }
  return out;
}

std::vector<std::uint32_t> everyState(const gspn::TangibleReachabilityGraph& g) {
  std::vector<std::uint32_t> out(g.stateCount());
  std::iota(out.begin(), out.end(), 0u);
  return out;
}

std::vector<std::int64_t> positionsIn(const gspn::TangibleReachabilityGraph& g,
                                      const std::vector<std::uint32_t>& states) {
  std::vector<std::int64_t> out(g.stateCount(), -1);
  for (std::size_t i = 0; i < states.size(); ++i) out[states[i]] = static_cast<std::int64_t>(i);
  return out;
}

std::vector<std::uint32_t> reachingAny(const gspn::TangibleReachabilityGraph& g,
                                       const std::vector<std::uint32_t>& seeds,
                                       std::size_t mostPasses) {
  const std::size_t n = g.stateCount(), words = (n + 63) / 64;
  // A bit a state: reached, and (done) its column read.
  std::vector<std::uint64_t> reached(words, 0), done(words, 0);
  auto bit = [](std::uint32_t s) { return std::uint64_t(1) << (s & 63); };
  auto reach = [&](std::uint32_t s) {
    if (reached[s >> 6] & bit(s)) return false;
    reached[s >> 6] |= bit(s);
    return true;
  };
  for (std::uint32_t s : seeds) reach(s);
  auto stateAt = [](std::size_t w, std::uint64_t bits) {
    return static_cast<std::uint32_t>(w * 64 + std::size_t(std::countr_zero(bits)));
  };
  // Column j read: its sources reached, found(i) called for each newly reached.
  auto read = [&](std::uint32_t j, auto&& found) {
    done[j >> 6] |= bit(j);
    for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k)
      if (const std::uint32_t i = g.sourceOf(std::size_t(k)); reach(i)) found(i);
  };
  // The passes: in each word, the states reached and not done, lowest first (one reached
  // in the word being read is read in the same pass).
  bool more = true;
  for (std::size_t pass = 0; more && pass < mostPasses; ++pass) {
    more = false;
    auto visit = [&](std::size_t w) {
      for (std::uint64_t todo; (todo = reached[w] & ~done[w]) != 0;) {
        read(stateAt(w, todo), [](std::uint32_t) {});
        more = true;
      }
    };
    if (pass % 2 == 0)
      for (std::size_t w = 0; w < words; ++w) visit(w);
    else
      for (std::size_t w = words; w-- > 0;) visit(w);
  }
  if (more) {
    // The rest from a list of the states reached and not done, each read once.
    std::vector<std::uint32_t> stack;
    for (std::size_t w = 0; w < words; ++w)
      for (std::uint64_t todo = reached[w] & ~done[w]; todo != 0; todo &= todo - 1)
        stack.push_back(stateAt(w, todo));
    while (!stack.empty()) {
      const std::uint32_t j = stack.back();
      stack.pop_back();
      read(j, [&](std::uint32_t i) { stack.push_back(i); });
    }
  }
  std::vector<std::uint32_t> out;
  for (std::size_t w = 0; w < words; ++w)
    for (std::uint64_t all = reached[w]; all != 0; all &= all - 1) out.push_back(stateAt(w, all));
  return out;
}

Generator buildGenerator(const gspn::TangibleReachabilityGraph& g,
                         const std::vector<std::uint32_t>& states,
                         const std::vector<char>* killing) {
  const std::size_t n = states.size();
  const std::vector<std::int64_t> local = positionsIn(g, states);

  // A packed graph gives a packed generator: its sources are fewer, so they fit too.
  Generator q;
  q.value = gspn::EdgeRates::like(g.rate);
  q.sourceBits = g.sourceBits;
  std::vector<double> exitRate(n, 0.0);
  q.offset.assign(n + 1, 0);
  q.index.reserve(g.source.size());
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t s = states[j];
    for (std::int32_t k = g.inOffset[s]; k < g.inOffset[s + 1]; ++k) {
      const auto edge = std::size_t(k);
      const std::int64_t i = local[g.sourceOf(edge)];
      if (i < 0 || (killing && (*killing)[edge])) continue;
      if (g.sourceBits) {
        q.index.push_back(static_cast<int>(
            gspn::PackedEdge::pack(std::uint32_t(i), g.rateNumberOf(edge), g.sourceBits)));
      } else {
        q.index.push_back(static_cast<int>(i));
        q.value.appendFrom(g.rate, edge);
      }
      if (!killing) exitRate[std::size_t(i)] += g.rateOf(edge);
    }
    q.offset[j + 1] = static_cast<int>(q.index.size());
    if (killing) exitRate[j] = g.exitRate[s];
  }
  q.exitRate = gspn::EdgeRates::compacted(std::move(exitRate));
  q.pack();
  return q;
}

Eigen::VectorXd onEveryState(std::size_t n, const std::vector<std::uint32_t>& states,
                             const Eigen::VectorXd& pi) {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(Eigen::Index(n));
  for (std::size_t i = 0; i < states.size(); ++i) out[states[i]] = pi[Eigen::Index(i)];
  return out;
}

Generator generatorFromEntries(std::size_t n, std::vector<std::tuple<int, int, double>> entries,
                               std::vector<double> exitRate) {
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return std::get<1>(a) < std::get<1>(b); });
  Generator q;
  q.exitRate = gspn::EdgeRates::compacted(std::move(exitRate));
  q.offset.assign(n + 1, 0);
  q.value.assignWide(entries.size());
  q.index.resize(entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const auto [i, j, rate] = entries[k];
    q.index[k] = i;
    q.value.setWide(k, rate);
    ++q.offset[std::size_t(j) + 1];
  }
  for (std::size_t j = 0; j < n; ++j) q.offset[j + 1] += q.offset[j];
  return q;
}

Generator Generator::renumbered(const std::vector<std::uint32_t>& order) const {
  const std::size_t n = size();
  std::vector<std::uint32_t> position(n);
  for (std::size_t k = 0; k < n; ++k) position[order[k]] = std::uint32_t(k);
  Generator out;
  out.sourceBits = sourceBits;
  out.value = packed() ? value : gspn::EdgeRates::like(value);
  out.exitRate = gspn::EdgeRates::like(exitRate);
  out.offset.assign(n + 1, 0);
  out.index.resize(index.size());
  std::size_t next = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t j = order[k];
    out.exitRate.appendFrom(exitRate, j);
    for (int e = offset[j]; e < offset[j + 1]; ++e, ++next) {
      if (packed()) {
        const auto w = static_cast<std::uint32_t>(index[std::size_t(e)]);
        out.index[next] = static_cast<std::int32_t>(
            gspn::PackedEdge::pack(position[gspn::PackedEdge::state(w, sourceBits)],
                                   gspn::PackedEdge::number(w, sourceBits), sourceBits));
      } else {
        out.index[next] = static_cast<std::int32_t>(position[std::size_t(index[std::size_t(e)])]);
        out.value.appendFrom(value, std::size_t(e));
      }
    }
    out.offset[k + 1] = static_cast<int>(next);
  }
  return out;
}

void Generator::pack(std::size_t sources) {
  const std::size_t n = sources != 0 ? sources : size();
  if (packed() || !value.compact()) return;
  const auto shift = gspn::PackedEdge::shiftForTable(n, value.table().size());
  if (!shift) return;
  const gspn::EdgeRates::Number* number = value.numbers();
  for (std::size_t k = 0; k < index.size(); ++k)
    index[k] = static_cast<std::int32_t>(
        gspn::PackedEdge::pack(static_cast<std::uint32_t>(index[k]), number[k], *shift));
  value.dropNumbers();
  sourceBits = *shift;
}

Generator takeGenerator(gspn::TangibleReachabilityGraph& g,
                        const std::vector<std::uint32_t>& states) {
  if (states.size() == g.stateCount()) return takeGenerator(g);
  Generator q = buildGenerator(g, states);
  g.bytesPerEdge = q.bytesPerEntry();
  return q;
}

Generator takeGenerator(gspn::TangibleReachabilityGraph& g) {
  Generator q = [&] {
    Generator all;
    all.offset = std::move(g.inOffset);
    all.index = std::move(g.source);
    all.value = std::move(g.rate);
    all.sourceBits = g.sourceBits;
    all.exitRate = gspn::EdgeRates::compacted(std::move(g.exitRate));
    g.inOffset = {};
    g.source = {};
    g.rate.release();
    g.sourceBits = 0;
    g.exitRate = std::vector<double>();  // moved from; left empty
    all.pack();
    return all;
  }();
  g.bytesPerEdge = q.bytesPerEntry();
  return q;
}

}  // namespace mmt::solver
