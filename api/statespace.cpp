#include "api/statespace.hpp"

#include <algorithm>
#include <chrono>

#include "api/errors.hpp"
#include "api/solve.hpp"
#include "gspn/symmetry.hpp"
#include "solver/ctmc.hpp"

namespace mmt::api {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

StateSpace exploreStateSpace(const Model& model, const Settings& settings) {
  settings.check();
  const gspn::Net& net = model.net();
  gspn::ExplorationSettings exploration = explorationSettings(net, settings);
  StateSpace out;
  out.name = model.name();
  out.system = model.isSystem();
  const std::optional<gspn::Symmetry> group =
      lumpingGroup(model, net, settings, SymmetryQuestion{}, out.symmetry);
  if (group) exploration.symmetry = &*group;

  auto start = std::chrono::steady_clock::now();
  gspn::ExplorationResult explored = gspn::exploreTangible(net, exploration);
  out.explorationSeconds = secondsSince(start);
  if (explored.status != gspn::ExplorationResult::Status::Ok)
    throwExplorationFailure(net, explored, exploration);
  const gspn::TangibleReachabilityGraph& g = explored.graph;
  start = std::chrono::steady_clock::now();
  out.tangible = g.stateCount();
  out.vanishing = g.vanishingCount;
  out.edges = g.edgeCount();

  // One pass over the markings: the bounds, the tokens per marking, the firings, and on a
  // lumped chain each orbit's size (a firing count and a dead marking are the same for
  // every marking of an orbit).
  const std::size_t places = net.placeCount();
  std::vector<std::uint64_t> bound(places, 0);
  std::vector<gspn::Tokens> m(places), key;
  std::vector<double> orbit(group ? g.stateCount() : 0, 1.0);
  double unlumpedFirings = 0;
  for (std::uint32_t s = 0; s < g.stateCount(); ++s) {
    if (exploration.run.interrupt && s % 65'536 == 0 && *exploration.run.interrupt)
      throw InterruptedError("interrupted while reading the state space's markings");
    g.markings.decode(s, m);
    std::uint64_t total = 0;
    for (std::size_t p = 0; p < places; ++p) {
      bound[p] = std::max<std::uint64_t>(bound[p], m[p]);
      total += m[p];
    }
    out.maxTokensPerMarking = std::max(out.maxTokensPerMarking, total);
    std::uint64_t enabled = 0;
    for (gspn::TransitionId t : net.timedTransitions())
      if (net.isEnabled(t, m) && net.rate(t, m) > 0) ++enabled;
    out.firings += enabled;
    if (group) {
      if (g.markings.symmetry())
        g.markings.key(s, key);
      else
        group->key(m, key);
      orbit[s] = group->orbitSizeOfKey(key, m);
      unlumpedFirings += orbit[s] * double(enabled);
    }
  }
  // On a lumped chain a marking stands for its orbit, whose markings move the tokens of a
  // place over its orbit of places: a place's bound is the most over that orbit.
  if (group)
    for (gspn::PlaceId p = 0; p < places; ++p) {
      std::uint64_t most = 0;
      for (gspn::PlaceId q : group->placeOrbit(p)) most = std::max(most, bound[q]);
      bound[p] = most;
    }
  for (gspn::PlaceId p = 0; p < places; ++p) {
    out.bounds.push_back({net.place(p).name, bound[p]});
    out.maxTokensInPlace = std::max(out.maxTokensInPlace, bound[p]);
  }

  const solver::BottomComponents bottoms = solver::bottomComponents(net, g);
  out.transientMarkings = bottoms.transientStates;
  out.deadMarkings = bottoms.dead.size();
  for (std::size_t i = 0; i < bottoms.dead.size() && i < StateSpace::kFirstDead; ++i)
    out.firstDead.push_back(net.describe(g.marking(bottoms.dead[i])));
  std::vector<double> unlumpedIn(bottoms.components.size(), 0);
  if (group)
    for (std::uint32_t s = 0; s < g.stateCount(); ++s)
      if (const std::uint32_t c = bottoms.componentOf[s]; c != solver::BottomComponents::kTransient)
        unlumpedIn[c] += orbit[s];
  for (std::size_t c = 0; c < bottoms.components.size(); ++c) {
    const solver::BottomComponents::Component& b = bottoms.components[c];
    StateSpace::BottomComponent component;
    component.markings = b.states;
    component.dead = b.dead;
    component.witness = net.describe(g.marking(b.witness));
    if (group) component.unlumpedMarkings = unlumpedIn[c];
    out.bottomComponents.push_back(std::move(component));
  }
  if (group) {
    countUnlumped(g.markings, *group, out.symmetry);
    out.unlumpedFirings = unlumpedFirings;
    double dead = 0;
    for (std::uint32_t s : bottoms.dead) dead += orbit[s];
    out.unlumpedDeadMarkings = dead;
  }
  out.analysisSeconds = secondsSince(start);
  out.peakMemoryMegabytes = peakMemoryMegabytes();
  return out;
}

nlohmann::ordered_json StateSpace::json() const {
  auto optional = [](const std::optional<double>& x) {
    return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(nullptr);
  };
  nlohmann::ordered_json doc = {{"schema", "mmt/statespace/1"},
                                {system ? "system" : "net", name},
                                {"tangible", tangible},
                                {"vanishing", vanishing},
                                {"edges", edges},
                                {"firings", firings},
                                {"max_tokens_in_place", maxTokensInPlace},
                                {"max_tokens_per_marking", maxTokensPerMarking}};
  nlohmann::ordered_json unlumped = nullptr;
  if (symmetry.used())
    unlumped = {{"tangible", optional(symmetry.unlumpedTangible)},
                {"log10_tangible", optional(symmetry.log10UnlumpedTangible)},
                {"firings", optional(unlumpedFirings)},
                {"dead_markings", optional(unlumpedDeadMarkings)}};
  doc["unlumped"] = std::move(unlumped);
  if (!symmetry.empty()) doc["symmetry"] = symmetry.json();
  doc["dead_markings"] = {{"count", deadMarkings}, {"first", firstDead}};
  nlohmann::ordered_json components = nlohmann::ordered_json::array();
  for (const BottomComponent& c : bottomComponents)
    components.push_back({{"markings", c.markings},
                          {"unlumped_markings", optional(c.unlumpedMarkings)},
                          {"dead", c.dead},
                          {"witness", c.witness}});
  doc["bottom_components"] = std::move(components);
  doc["transient_markings"] = transientMarkings;
  nlohmann::ordered_json places = nlohmann::ordered_json::object();
  for (const PlaceBound& b : bounds) places[b.place] = b.bound;
  doc["bounds"] = std::move(places);
  doc["seconds"] = {{"exploration", explorationSeconds}, {"analysis", analysisSeconds}};
  doc["peak_memory_mb"] = peakMemoryMegabytes;
  return doc;
}

}  // namespace mmt::api
