#pragma once
/// \file
/// What the readers of coloured nets (PNML symmetric nets, GreatSPN's coloured PNPRO pages)
/// share: the unfolding of their coloured::Net built through io::NetReader.

#include <functional>
#include <optional>

#include "coloured/unfold.hpp"
#include "io/net_reader.hpp"

namespace mmt::io {

/// Declares the places of `unfolding` in `reader`, each in its coloured place's group with
/// the tokens of its colour, then per unfolded transition the transition `declare` gives
/// (its rate, kind and priority are the format's) with the unfolded arcs. `declare` reports
/// its own errors and returns nothing after one; the other bindings of that coloured
/// transition are then skipped, as they would repeat it. Returns false after any error.
bool addUnfolding(
    NetReader& reader, grammar::Diagnostics& diagnostics, const coloured::Net& net,
    const coloured::Unfolding& unfolding,
    const std::function<std::optional<gspn::TransitionId>(const coloured::Unfolding::Transition&)>&
        declare);

}  // namespace mmt::io
