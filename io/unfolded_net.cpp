#include "io/unfolded_net.hpp"

#include <limits>
#include <string>
#include <vector>

namespace mmt::io {

bool addUnfolding(
    NetReader& reader, grammar::Diagnostics& diagnostics, const coloured::Net& net,
    const coloured::Unfolding& unfolding,
    const std::function<std::optional<gspn::TransitionId>(const coloured::Unfolding::Transition&)>&
        declare) {
  constexpr auto kMost = std::numeric_limits<gspn::Tokens>::max();
  reader.setUnfolded();
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
  for (const coloured::Unfolding::Transition& u : unfolding.transitions) {
    if (failed[u.coloured]) continue;
    const auto id = declare(u);
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
  return ok;
}

}  // namespace mmt::io
