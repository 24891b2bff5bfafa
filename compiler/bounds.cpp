#include "compiler/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmt::compiler {
namespace {

/// The fastest transfer of a move (one item at a time crosses it).
double moveTime(const Move& move) {
  double best = std::numeric_limits<double>::infinity();
  for (const Transfer& t : move.transfers) best = std::min(best, t.time ? t.time->mean() : 0.0);
  return std::isinf(best) ? 0.0 : best;
}

/// The slowest move between the stages of pipeline `node`.
double innerMovesTime(const std::vector<Move>& moves, Index node) {
  double worst = 0;
  for (const Move& move : moves)
    if (move.pipeline == node) worst = std::max(worst, moveTime(move));
  return worst;
}

double bound(const System& s, const std::vector<Move>& k, Index node) {
  const SkeletonNode& n = s.skeletonNodes[node];
  switch (n.kind) {
    case SkeletonNode::Kind::Task: {
      const Task& t = s.tasks[n.task];
      const Processor& p = s.processors[*t.processor];
      return t.work.mean() * double(p.sharers()) / p.speed;
    }
    case SkeletonNode::Kind::Pipeline: {
      double worst = innerMovesTime(k, node);
      for (Index m : n.members) worst = std::max(worst, bound(s, k, m));
      return worst;
    }
    case SkeletonNode::Kind::Farm: {
      double rate = 0;
      for (Index m : n.members) rate += 1 / bound(s, k, m);
      return 1 / rate;
    }
    case SkeletonNode::Kind::Deal: {
      double worst = 0;
      for (Index m : n.members) worst = std::max(worst, bound(s, k, m));
      return worst / double(n.members.size());
    }
  }
  return 0;
}

}  // namespace

double serviceTimeBound(const System& s, const Routing& routing, Index node) {
  // The skeleton whose tree holds `node`: the last whose root is at or before it (a
  // skeleton's nodes are numbered together, its root first).
  std::size_t holder = 0;
  for (std::size_t k = 0; k < s.skeletons.size(); ++k)
    if (s.skeletons[k].root <= node) holder = k;
  return bound(s, routing.moves[holder], node);
}

std::optional<double> throughputBound(const System& s, const Routing& routing) {
  if (!s.actors.empty() || s.skeletons.empty()) return std::nullopt;
  double sum = 0;
  for (std::size_t k = 0; k < s.skeletons.size(); ++k) {
    const std::vector<Move>& moves = routing.moves[k];
    double t = bound(s, moves, s.skeletons[k].root);
    t = std::max({t, moveTime(moves.front()), moveTime(moves.back())});
    sum += 1 / t;
  }
  return sum / double(s.skeletons.size());
}

}  // namespace mmt::compiler
