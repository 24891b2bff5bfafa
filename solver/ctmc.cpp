#include "solver/ctmc.hpp"

#include <utility>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/strong_components.hpp>

namespace mmt::solver {

ChainStructure analyzeStructure(const gspn::Net& net, const gspn::TangibleReachabilityGraph& g) {
  ChainStructure result;
  const std::size_t n = g.stateCount();

  // A state with an outgoing edge enables a transition; only the others can be dead (a
  // state whose only firings loop back to itself has no edges but is not dead).
  for (std::size_t s = 0; s < n; ++s) {
    if (g.rowOffset[s] != g.rowOffset[s + 1]) continue;
    bool dead = true;
    for (gspn::TransitionId t : net.timedTransitions())
      if (net.isEnabled(t, g.marking(s))) {
        dead = false;
        break;
      }
    if (dead) {
      result.kind = ChainStructure::Kind::Deadlock;
      result.message = "deadlock: the reachable marking {" + net.describe(g.marking(s)) +
                       "} enables no transition";
      return result;
    }
  }

  using Graph = boost::compressed_sparse_row_graph<boost::directedS>;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(g.edgeCount());
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint64_t k = g.rowOffset[s]; k < g.rowOffset[s + 1]; ++k)
      edges.emplace_back(s, g.target[k]);
  Graph graph(boost::edges_are_sorted, edges.begin(), edges.end(), n);
  edges = {};

  std::vector<std::uint32_t> component(n);
  const std::size_t componentCount = boost::strong_components(
      graph, boost::make_iterator_property_map(component.begin(),
                                               boost::get(boost::vertex_index, graph)));

  // A component is bottom when no edge leaves it.
  std::vector<char> bottom(componentCount, 1);
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint64_t k = g.rowOffset[s]; k < g.rowOffset[s + 1]; ++k)
      if (component[g.target[k]] != component[s]) bottom[component[s]] = 0;

  std::vector<std::uint32_t> witness(componentCount, UINT32_MAX);
  for (std::uint32_t s = 0; s < n; ++s)
    if (bottom[component[s]] && witness[component[s]] == UINT32_MAX) witness[component[s]] = s;
  std::vector<std::uint32_t> bottoms;
  for (std::size_t c = 0; c < componentCount; ++c)
    if (bottom[c]) bottoms.push_back(witness[c]);
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

Generator buildGenerator(const gspn::TangibleReachabilityGraph& g,
                         const std::vector<std::uint32_t>& states) {
  const std::size_t n = states.size();
  std::vector<std::int64_t> local(g.stateCount(), -1);
  for (std::size_t i = 0; i < n; ++i) local[states[i]] = static_cast<std::int64_t>(i);

  Generator q;
  q.exitRate = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n));
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(g.edgeCount());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t s = states[i];
    for (std::uint64_t k = g.rowOffset[s]; k < g.rowOffset[s + 1]; ++k) {
      const std::int64_t j = local[g.target[k]];
      if (j < 0) continue;
      triplets.emplace_back(static_cast<int>(i), static_cast<int>(j), g.rate[k]);
      q.exitRate[static_cast<Eigen::Index>(i)] += g.rate[k];
    }
  }
  q.incoming.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
  q.incoming.setFromTriplets(triplets.begin(), triplets.end());
  q.incoming.makeCompressed();
  return q;
}

}  // namespace mmt::solver
