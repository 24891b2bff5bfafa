#include "api/symmetry.hpp"

namespace mmt::api {

std::string SymmetryReport::describe() const {
  std::string out;
  for (const Factor& f : lumped) {
    if (!out.empty()) out += " and ";
    out += std::to_string(f.blocks) + " interchangeable " + f.label;
    if (f.kind != gspn::SymmetryFactor::Kind::Symmetric)
      out += std::string(" (") + gspn::toString(f.kind) + ")";
  }
  return out;
}

nlohmann::ordered_json SymmetryReport::json() const {
  nlohmann::ordered_json factors = nlohmann::ordered_json::array();
  for (const Factor& f : lumped)
    factors.push_back(
        {{"replica", f.label}, {"group", gspn::toString(f.kind)}, {"blocks", f.blocks}});
  nlohmann::ordered_json out = {{"lumped", factors},
                                {"log10_group_order", log10GroupOrder},
                                {"unlumped_tangible", nullptr},
                                {"notes", notes}};
  if (unlumpedTangible) out["unlumped_tangible"] = *unlumpedTangible;
  return out;
}

std::optional<gspn::Symmetry> lumpingGroup(const Model& model, const gspn::Net& net,
                                           const Settings& settings,
                                           const SymmetryQuestion& question,
                                           SymmetryReport& report) {
  if (!model.compiled || model.compiled->symmetry.empty()) return std::nullopt;
  if (!settings.symmetry) {
    report.notes.push_back("off: the full chain is solved");
    return std::nullopt;
  }
  if (!question.unsupported.empty()) {
    report.notes.push_back("the full chain is solved: " + question.unsupported +
                           " are not computed on a lumped chain");
    return std::nullopt;
  }
  std::vector<gspn::SymmetryFactor> factors;
  for (const gspn::SymmetryFactor& f : model.compiled->symmetry) {
    if (const auto why = gspn::symmetryViolation(net, f)) {
      report.notes.push_back("the replicas of " + f.label + " are not interchangeable: " + *why);
      continue;
    }
    report.lumped.push_back({f.label, f.kind, f.blockCount()});
    factors.push_back(f);
  }
  if (factors.empty()) return std::nullopt;
  gspn::Symmetry group(net, std::move(factors));
  report.log10GroupOrder = group.log10Order();
  return group;
}

double unlumpedCount(const gspn::PackedMarkingStore& markings, const gspn::Symmetry& group) {
  double total = 0;
  std::vector<gspn::Tokens> m(markings.placeCount());
  for (std::uint32_t s = 0; s < markings.size(); ++s) {
    markings.decode(s, m);
    total += group.orbitSize(m);
  }
  return total;
}

}  // namespace mmt::api
