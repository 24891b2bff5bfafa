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

BoundElement moveElement(const Move& move) {
  BoundElement e;
  e.kind = BoundElement::Kind::Move;
  e.name = move.transfers.empty() ? std::string("move") : move.transfers.front().name;
  e.transfers = move.transfers.size();
  e.serviceTime = moveTime(move);
  return e;
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
    case SkeletonNode::Kind::Map: {
      double worst = 0;
      bool tasks = true;
      for (Index m : n.members) {
        worst = std::max(worst, bound(s, k, m));
        tasks = tasks && s.skeletonNodes[m].kind == SkeletonNode::Kind::Task;
      }
      if (!tasks) return worst;
      // The scatter's move has a transfer into the first worker, the gather's one out of it
      // (not necessarily the move's first: a farm of maps enters each map by its own).
      const Index first = s.skeletonNodes[n.members.front()].task;
      auto holds = [&](const std::vector<Index>& list) {
        return std::find(list.begin(), list.end(), first) != list.end();
      };
      for (const Move& move : k)
        if (std::any_of(move.transfers.begin(), move.transfers.end(),
                        [&](const Transfer& t) { return holds(t.to) || holds(t.from); }))
          worst += moveTime(move);
      return worst;
    }
  }
  return 0;
}

/// Appends the elements of `node` to `out`: a pipeline's stages (recursively) and the moves
/// between them; a farm, deal, map or task as a whole.
void flatten(const System& s, const std::vector<Move>& moves, Index node,
             std::vector<BoundElement>& out) {
  const SkeletonNode& n = s.skeletonNodes[node];
  switch (n.kind) {
    case SkeletonNode::Kind::Pipeline:
      for (Index m : n.members) flatten(s, moves, m, out);
      for (const Move& move : moves)
        if (move.pipeline == node) out.push_back(moveElement(move));
      return;
    case SkeletonNode::Kind::Task:
      out.push_back(
          {BoundElement::Kind::Task, s.tasks[n.task].name, node, 0, bound(s, moves, node)});
      return;
    case SkeletonNode::Kind::Farm:
    case SkeletonNode::Kind::Deal:
    case SkeletonNode::Kind::Map:
      out.push_back({n.kind == SkeletonNode::Kind::Farm   ? BoundElement::Kind::Farm
                     : n.kind == SkeletonNode::Kind::Deal ? BoundElement::Kind::Deal
                                                          : BoundElement::Kind::Map,
                     n.name, node, 0, bound(s, moves, node)});
      return;
  }
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

std::vector<BoundElement> stageTimes(const System& s, const Routing& routing, std::size_t k) {
  const std::vector<Move>& moves = routing.moves[k];
  std::vector<BoundElement> out{moveElement(moves.front())};
  flatten(s, moves, s.skeletons[k].root, out);
  if (moves.size() > 1) out.push_back(moveElement(moves.back()));
  return out;
}

namespace {

double slowest(const std::vector<BoundElement>& elements) {
  double worst = 0;
  for (const BoundElement& e : elements) worst = std::max(worst, e.serviceTime);
  return worst;
}

}  // namespace

std::optional<double> throughputBound(const System& s, const Routing& routing) {
  if (!s.actors.empty() || s.skeletons.empty()) return std::nullopt;
  double sum = 0;
  for (std::size_t k = 0; k < s.skeletons.size(); ++k)
    sum += 1 / slowest(stageTimes(s, routing, k));
  return sum / double(s.skeletons.size());
}

std::optional<Bottleneck> bottleneck(const System& s, const Routing& routing) {
  if (!s.actors.empty() || s.skeletons.empty()) return std::nullopt;
  Bottleneck out;
  for (std::size_t k = 0; k < s.skeletons.size(); ++k) {
    std::vector<BoundElement> elements = stageTimes(s, routing, k);
    const double worst = slowest(elements);
    if (k > 0 && worst <= out.serviceTime) continue;
    out.skeleton = k;
    out.serviceTime = worst;
    out.elements.clear();
    out.others.clear();
    for (BoundElement& e : elements)
      (e.serviceTime >= worst * (1 - 1e-9) ? out.elements : out.others).push_back(std::move(e));
  }
  return out;
}

}  // namespace mmt::compiler
