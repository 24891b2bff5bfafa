#include "io/unfolded_net.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "coloured/symmetry.hpp"

namespace mmt::io {
namespace {

/// The colour permutations of `net` (coloured/symmetry.hpp) as permutations of the places
/// and transitions built for `unfolding`: its places from `firstPlace` on, its transitions
/// with the ids `ids` (one per unfolded transition). Places and transitions declared
/// before it stay fixed.
gspn::DeclaredSymmetry declaredSymmetry(const coloured::Net& net,
                                        const coloured::Unfolding& unfolding,
                                        gspn::PlaceId firstPlace,
                                        const std::vector<gspn::TransitionId>& ids) {
  const coloured::ColourPermutations colours = coloured::colourPermutations(net, unfolding);
  gspn::DeclaredSymmetry out;
  for (const coloured::ColourPermutations::Class& c : colours.classes)
    out.classes.push_back({c.name, c.group, static_cast<std::size_t>(c.colours)});
  out.tried = colours.tried;
  out.refused = colours.refused;
  const gspn::TransitionId transitions =
      ids.empty() ? 0 : *std::max_element(ids.begin(), ids.end()) + 1;
  for (const coloured::ColourPermutations::Element& e : colours.elements) {
    gspn::NetPermutation& g = out.elements.emplace_back();
    g.places.resize(firstPlace + e.places.size());
    std::iota(g.places.begin(), g.places.end(), gspn::PlaceId{0});
    for (std::size_t p = 0; p < e.places.size(); ++p)
      g.places[firstPlace + p] = firstPlace + e.places[p];
    g.transitions.resize(transitions);
    std::iota(g.transitions.begin(), g.transitions.end(), gspn::TransitionId{0});
    for (std::size_t t = 0; t < e.transitions.size(); ++t)
      g.transitions[ids[t]] = ids[e.transitions[t]];
  }
  return out;
}

}  // namespace

bool addUnfolding(
    NetReader& reader, grammar::Diagnostics& diagnostics, const coloured::Net& net,
    const coloured::Unfolding& unfolding,
    const std::function<std::optional<gspn::TransitionId>(const coloured::Unfolding::Transition&)>&
        declare) {
  constexpr auto kMost = std::numeric_limits<gspn::Tokens>::max();
  reader.setUnfolded(unfolding.tried, unfolding.kept);
  const auto firstPlace = static_cast<gspn::PlaceId>(reader.placeCount());
  for (const coloured::Unfolding::Place& u : unfolding.places) {
    const coloured::Place& p = net.places()[u.coloured];
    if (u.initial > kMost) {
      diagnostics.error(p.initial ? p.initial->offset : p.offset,
                        "the place '" + u.name + "' starts with " + std::to_string(u.initial) +
                            " tokens, more than the " + std::to_string(kMost) +
                            " a place may hold");
      return false;
    }
    reader.place(u.name, {&diagnostics, p.offset}, static_cast<gspn::Tokens>(u.initial), p.name);
  }
  bool ok = true;
  std::vector<bool> failed(net.transitions().size(), false);
  std::vector<gspn::TransitionId> ids;
  ids.reserve(unfolding.transitions.size());
  for (const coloured::Unfolding::Transition& u : unfolding.transitions) {
    if (failed[u.coloured]) continue;
    const auto id = declare(u);
    if (id) ids.push_back(*id);
    if (!id) {
      failed[u.coloured] = true;
      ok = false;
      continue;
    }
    const Site at{&diagnostics, net.transitions()[u.coloured].offset};
    for (const auto& [kind, arcs] :
         {std::pair{ArcKind::Input, &u.inputs}, std::pair{ArcKind::Output, &u.outputs},
          std::pair{ArcKind::Inhibitor, &u.inhibitors}})
      for (const coloured::Unfolding::Arc& a : *arcs)
        reader.arc(kind, *id, unfolding.places[a.place].name, at,
                   gspn::Expression::constant(static_cast<double>(a.weight)), at);
  }
  if (ok) reader.declareSymmetry(declaredSymmetry(net, unfolding, firstPlace, ids));
  return ok;
}

}  // namespace mmt::io
