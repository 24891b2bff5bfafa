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
  for (gspn::PlaceId p = 0; p < bounds.places.size(); ++p)
    if (bounds.places[p] == gspn::Boundedness::Reason::Unproven)
      out.unproven.push_back(net.place(p).name);
  return out;
}

}  // namespace mmt::api
