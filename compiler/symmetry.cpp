#include "compiler/symmetry.hpp"

#include <algorithm>

namespace mmt::compiler {
namespace {

/// The tasks under skeleton node `node`, depth first.
void tasksUnder(const System& s, Index node, std::vector<Index>& out) {
  const SkeletonNode& n = s.skeletonNodes[node];
  if (n.kind == SkeletonNode::Kind::Task) out.push_back(n.task);
  for (Index m : n.members) tasksUnder(s, m, out);
}

/// The label of a farm's or map's blocks: its first replica's name without its index
/// ("W" for W[1]).
std::string replicaLabel(const SkeletonNode& first) {
  const std::size_t bracket = first.name.rfind('[');
  return bracket == std::string::npos ? first.name : first.name.substr(0, bracket);
}

/// The factor of farm or map `node` of skeleton `skeleton`, or nothing when a transfer
/// reaches some of its replicas but not all.
std::optional<gspn::SymmetryFactor> factorOf(const System& s, const Routing& routing,
                                             const Ports& ports, Index skeleton, Index node) {
  const SkeletonNode& n = s.skeletonNodes[node];
  const std::size_t k = n.members.size();
  gspn::SymmetryFactor factor;
  factor.label = replicaLabel(s.skeletonNodes[n.members[0]]);
  factor.places.resize(k);
  factor.transitions.resize(k);
  std::vector<int> replicaOf(s.tasks.size(), -1);
  for (std::size_t b = 0; b < k; ++b) {
    std::vector<Index> tasks;
    tasksUnder(s, n.members[b], tasks);
    for (Index t : tasks) {
      replicaOf[t] = int(b);
      const TaskPorts& p = ports.tasks[t];
      factor.places[b].insert(factor.places[b].end(), {p.idle, p.busy, p.full});
      factor.transitions[b].push_back(p.process);
    }
  }
  const std::vector<Move>& moves = routing.moves[skeleton];
  for (std::size_t m = 0; m < moves.size(); ++m)
    for (std::size_t i = 0; i < moves[m].transfers.size(); ++i) {
      const Transfer& transfer = moves[m].transfers[i];
      std::vector<int> reached;
      for (const auto* ends : {&transfer.from, &transfer.to})
        for (Index t : *ends)
          if (replicaOf[t] >= 0) reached.push_back(replicaOf[t]);
      std::sort(reached.begin(), reached.end());
      reached.erase(std::unique(reached.begin(), reached.end()), reached.end());
      if (reached.empty() || reached.size() == k) continue;  // fixed by the group
      if (reached.size() > 1) return std::nullopt;
      factor.transitions[std::size_t(reached[0])].push_back(
          ports.skeletons[skeleton].moves[m][i].exec);
    }
  return factor;
}

void collect(const System& s, const Routing& routing, const Ports& ports, Index skeleton,
             Index node, std::vector<gspn::SymmetryFactor>& out) {
  const SkeletonNode& n = s.skeletonNodes[node];
  const bool replicas = n.kind == SkeletonNode::Kind::Farm || n.kind == SkeletonNode::Kind::Map;
  if (replicas && n.members.size() >= 2) {
    if (auto factor = factorOf(s, routing, ports, skeleton, node)) {
      out.push_back(std::move(*factor));
      return;
    }
  }
  for (Index m : n.members) collect(s, routing, ports, skeleton, m, out);
}

}  // namespace

std::vector<gspn::SymmetryFactor> replicaSymmetry(const System& system, const Routing& routing,
                                                  const Ports& ports) {
  std::vector<gspn::SymmetryFactor> out;
  for (Index k = 0; k < system.skeletons.size(); ++k)
    collect(system, routing, ports, k, system.skeletons[k].root, out);
  return out;
}

}  // namespace mmt::compiler
