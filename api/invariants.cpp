#include "api/invariants.hpp"

#include "gspn/invariants.hpp"

namespace mmt::api {

PlaceInvariants placeInvariants(const Model& model) {
  const gspn::Net& net = model.net();
  const gspn::PSemiflows flows = gspn::computePSemiflows(net);
  PlaceInvariants out;
  out.complete = flows.complete;
  for (const auto& f : flows.flows) out.semiflows.push_back(gspn::formatSemiflow(net, f));
  const gspn::Boundedness bounds = gspn::analyzeBoundedness(net, flows);
  out.bounded = bounds.allBounded();
  out.unproven = bounds.unproven(net);
  return out;
}

}  // namespace mmt::api
