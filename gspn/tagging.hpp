#pragma once
/// \file
/// A tag that tells the firings of a transition apart in the tangible reachability graph,
/// where vanishing paths are folded into edges: the parity of the transition's firings, kept
/// in two places. A passage between firings of t (an iteration of a closed workload, from
/// one `workload.restart` to the next) is then a passage between the edges along which the
/// parity changes (solver/passage.hpp). The tag changes no rate, weight or enabling, so
/// the tagged net has the same behaviour and measures; its tangible graph has at most twice
/// the markings (once per parity where both occur).

#include <cstdint>
#include <vector>

#include "gspn/net.hpp"
#include "gspn/reachability.hpp"

namespace mmt::gspn {

/// `net` with places `<t>.even` (one token) and `<t>.odd`, and t split in two: t itself
/// moves the token from even to odd, its twin `<t>'` (the same arcs, weight or rate,
/// priority and guard) from odd to even. Every place, transition and measure keeps its id.
struct TaggedNet {
  Net net;
  PlaceId even = 0, odd = 0;
  TransitionId twin = 0;
};
TaggedNet tagFirings(const Net& net, TransitionId t);

/// By edge of `g` (its incoming order): the edges along which the parity kept in `odd`
/// changes, the jumps whose vanishing path fired the tagged transition an odd number of
/// times.
std::vector<char> parityEdges(const TangibleReachabilityGraph& g, PlaceId odd);

}  // namespace mmt::gspn
