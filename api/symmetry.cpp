#include "api/symmetry.hpp"

#include <cmath>
#include <cstdio>

#include "gspn/automorphisms.hpp"

namespace mmt::api {

std::string SymmetryReport::describe() const {
  std::string out;
  for (const Factor& f : lumped) {
    if (!out.empty()) out += " and ";
    out += std::to_string(f.blocks);
    switch (f.kind) {
      case gspn::SymmetryFactor::Kind::Symmetric:
        out += " interchangeable " + f.label;
        break;
      case gspn::SymmetryFactor::Kind::Cyclic:
        out += " " + f.label + " in a ring (its rotations)";
        break;
      case gspn::SymmetryFactor::Kind::Dihedral:
        out += " " + f.label + " in a ring (its rotations and reflections)";
        break;
    }
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
                                {"log10_unlumped_tangible", nullptr},
                                {"notes", notes}};
  if (unlumpedTangible && std::isfinite(*unlumpedTangible))
    out["unlumped_tangible"] = *unlumpedTangible;
  if (log10UnlumpedTangible) out["log10_unlumped_tangible"] = *log10UnlumpedTangible;
  return out;
}

namespace {

/// A raw net's symmetry, found by its automorphisms (gspn/automorphisms.hpp).
std::vector<gspn::SymmetryFactor> searchRawNet(const gspn::Net& net, SymmetryReport& report) {
  gspn::FoundSymmetry found = gspn::findSymmetry(net);
  report.notes = std::move(found.notes);
  if (found.stopped) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", gspn::AutomorphismSettings{}.maxSeconds);
    report.notes.push_back(std::string("the automorphism search stopped after ") + seconds +
                           " s; the symmetry found by then is used");
  }
  return std::move(found.factors);
}

/// The compiler's proposals that are symmetries of `net`.
std::vector<gspn::SymmetryFactor> checkProposals(const std::vector<gspn::SymmetryFactor>& proposed,
                                                 const gspn::Net& net, SymmetryReport& report) {
  std::vector<gspn::SymmetryFactor> out;
  for (const gspn::SymmetryFactor& f : proposed) {
    if (const auto why = gspn::symmetryViolation(net, f))
      report.notes.push_back("the replicas of " + f.label + " are not interchangeable: " + *why);
    else
      out.push_back(f);
  }
  return out;
}

}  // namespace

std::optional<gspn::Symmetry> lumpingGroup(const Model& model, const gspn::Net& net,
                                           const Settings& settings,
                                           const SymmetryQuestion& question,
                                           SymmetryReport& report) {
  // A system says what its compiler proposed and why it is not used; a raw net is searched
  // only when its symmetry would be used.
  const bool proposals = model.compiled && !model.compiled->symmetry.empty();
  if (model.compiled && !proposals) return std::nullopt;
  if (!settings.symmetry || !question.unsupported.empty()) {
    if (proposals)
      report.notes.push_back(!settings.symmetry
                                 ? "off: the full chain is solved"
                                 : "the full chain is solved: " + question.unsupported +
                                       " are not computed on a lumped chain");
    return std::nullopt;
  }
  std::vector<gspn::SymmetryFactor> factors =
      proposals ? checkProposals(model.compiled->symmetry, net, report) : searchRawNet(net, report);
  if (factors.empty()) return std::nullopt;
  for (const gspn::SymmetryFactor& f : factors)
    report.lumped.push_back({f.label, f.kind, f.blockCount()});
  gspn::Symmetry group(net, std::move(factors));
  report.log10GroupOrder = group.log10Order();
  return group;
}

void countUnlumped(const gspn::PackedMarkingStore& markings, const gspn::Symmetry& group,
                   SymmetryReport& report) {
  std::vector<gspn::Tokens> m(markings.placeCount()), key;
  // The store holds keys when it holds orbits; the marking only matters for rings.
  auto read = [&](std::uint32_t s) {
    if (markings.symmetry()) {
      markings.key(s, key);
    } else {
      markings.decode(s, m);
      group.key(m, key);
    }
    if (group.hasRings()) markings.decode(s, m);
  };
  // The log10 of the sum by log-sum-exp, the largest term so far as the scale; and, while
  // the sum so far is exact in a double (below 2^53, 9.007e15), the exact sum, each orbit
  // size a product of binomials. Past that, the count is the log's.
  double scale = -INFINITY, scaled = 0, exact = 0;
  bool whole = true;
  for (std::uint32_t s = 0; s < markings.size(); ++s) {
    read(s);
    const double x = group.log10OrbitSizeOfKey(key, m);
    if (x > scale) {
      scaled = scaled * std::pow(10.0, scale - x) + 1;
      scale = x;
    } else {
      scaled += std::pow(10.0, x - scale);
    }
    whole = whole && scale + std::log10(scaled) < 15.96;
    if (whole) exact += group.orbitSizeOfKey(key, m);
  }
  report.log10UnlumpedTangible = scale + std::log10(scaled);
  const double total = whole ? exact : std::pow(10.0, *report.log10UnlumpedTangible);
  report.unlumpedTangible = total;
}

}  // namespace mmt::api
