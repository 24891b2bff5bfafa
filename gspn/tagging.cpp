#include "gspn/tagging.hpp"

namespace mmt::gspn {

TaggedNet tagFirings(const Net& net, TransitionId t) {
  const Transition& tr = net.transition(t);
  NetBuilder b = copyNet(net);
  TaggedNet out;
  out.even = b.addPlace(tr.name + ".even", 1, tr.group);
  out.odd = b.addPlace(tr.name + ".odd", 0, tr.group);
  out.twin = tr.kind == TransitionKind::Immediate
                 ? b.addImmediate(tr.name + "'", tr.weight, tr.priority, tr.group)
                 : b.addTimed(tr.name + "'", tr.rate, tr.group, tr.servers, tr.serverCount);
  if (tr.kind != TransitionKind::Immediate) {
    if (tr.declaredDelay) b.setDelay(out.twin, *tr.declaredDelay);
    if (!tr.rateExpression.empty()) b.setRateExpression(out.twin, tr.rateExpression);
  }
  if (!tr.guard.empty()) b.setGuard(out.twin, tr.guard);
  copyArcs(net, t, b, out.twin);
  b.addInput(t, out.even);
  b.addOutput(t, out.odd);
  b.addInput(out.twin, out.odd);
  b.addOutput(out.twin, out.even);
  out.net = b.freeze();
  return out;
}

std::vector<char> parityEdges(const TangibleReachabilityGraph& g, PlaceId odd) {
  std::vector<char> parity(g.stateCount());
  for (std::uint32_t s = 0; s < g.stateCount(); ++s) parity[s] = g.marking(s)[odd] != 0;
  std::vector<char> out(g.source.size(), 0);
  for (std::uint32_t j = 0; j < g.stateCount(); ++j)
    for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k)
      out[std::size_t(k)] = parity[g.sourceOf(std::size_t(k))] != parity[j];
  return out;
}

}  // namespace mmt::gspn
