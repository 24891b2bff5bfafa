#include "gspn/reachability.hpp"

#include <algorithm>

#include "gspn/marking_store.hpp"
#include "gspn/vanishing.hpp"

namespace mmt::gspn {
namespace {

/// Names the place with the most tokens over the markings seen: the likely unbounded one.
std::string largestPlace(const Net& net, const MarkingStore& store) {
  Tokens most = 0;
  PlaceId where = 0;
  for (std::uint32_t s = 0; s < store.size(); ++s)
    for (PlaceId p = 0; p < store.width(); ++p)
      if (store[s][p] > most) {
        most = store[s][p];
        where = p;
      }
  if (store.width() == 0) return "";
  return "; place '" + net.place(where).name + "' reached " + std::to_string(most) + " tokens";
}

}  // namespace

ExplorationResult exploreTangible(const Net& net, const ExplorationSettings& settings) {
  using Status = ExplorationResult::Status;
  ExplorationResult result;
  TangibleReachabilityGraph& g = result.graph;
  const std::size_t width = net.placeCount();
  g.placeCount = width;

  MarkingStore tangible(width);
  VanishingEliminator eliminator(net, settings.maxVanishingPerFiring);
  std::vector<Tokens> current(width), next(width);

  auto fail = [&](Status status, std::string message) {
    result.status = status;
    result.message = std::move(message);
    g.vanishingCount = eliminator.distinctVanishing();
    return std::move(result);
  };
  auto eliminationFailure = [&](VanishingEliminator::Status s) {
    return s == VanishingEliminator::Status::TimelessTrap ? Status::TimelessTrap
                                                          : Status::TooManyVanishing;
  };

  const std::vector<Tokens> m0 = net.initialMarking();
  if (eliminator.isVanishing(m0)) {
    if (auto s = eliminator.resolve(m0); s != VanishingEliminator::Status::Ok)
      return fail(eliminationFailure(s), eliminator.error());
    for (std::uint32_t e = 0; e < eliminator.exits().size(); ++e)
      g.initial.emplace_back(tangible.insert(eliminator.exits()[e]).first,
                             eliminator.exitProbability()[e]);
  } else {
    g.initial.emplace_back(tangible.insert(m0).first, 1.0);
  }

  std::vector<std::pair<std::uint32_t, double>> row;
  std::vector<double> flowAccumulator(net.transitionCount(), 0.0);
  std::vector<TransitionId> flowTouched;
  g.rowOffset.push_back(0);

  for (std::uint32_t s = 0; s < tangible.size(); ++s) {
    // The arena may grow while we insert successors: work on a copy of the marking.
    std::copy(tangible[s].begin(), tangible[s].end(), current.begin());
    row.clear();
    for (TransitionId t : net.timedTransitions()) {
      const double lambda = net.rate(t, current);
      if (lambda == 0.0) continue;
      net.fire(t, current, next);
      if (!eliminator.isVanishing(next)) {
        row.emplace_back(tangible.insert(next).first, lambda);
        continue;
      }
      if (auto status = eliminator.resolve(next); status != VanishingEliminator::Status::Ok)
        return fail(eliminationFailure(status), eliminator.error());
      for (std::uint32_t e = 0; e < eliminator.exits().size(); ++e)
        row.emplace_back(tangible.insert(eliminator.exits()[e]).first,
                         lambda * eliminator.exitProbability()[e]);
      for (auto [u, count] : eliminator.firings()) {
        if (flowAccumulator[u] == 0.0) flowTouched.push_back(u);
        flowAccumulator[u] += lambda * count;
      }
    }

    std::sort(row.begin(), row.end());
    for (std::size_t i = 0; i < row.size();) {
      std::uint32_t to = row[i].first;
      double sum = 0;
      for (; i < row.size() && row[i].first == to; ++i) sum += row[i].second;
      if (to == s) continue;  // a self-loop does not change the CTMC
      g.target.push_back(to);
      g.rate.push_back(sum);
    }
    g.rowOffset.push_back(g.target.size());
    for (TransitionId u : flowTouched) {
      g.immediateFlows.push_back({s, u, flowAccumulator[u]});
      flowAccumulator[u] = 0.0;
    }
    flowTouched.clear();

    if (tangible.size() > settings.maxStates)
      return fail(Status::StateLimit,
                  "more than " + std::to_string(settings.maxStates) +
                      " tangible markings (the net may be unbounded" +
                      largestPlace(net, tangible) + "); raise --max-states if it is bounded");
  }

  g.vanishingCount = eliminator.distinctVanishing();
  g.markings = tangible.releaseArena();
  return result;
}

}  // namespace mmt::gspn
