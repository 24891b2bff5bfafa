#include "api/symmetry.hpp"

#include <cmath>
#include <cstdio>

#include "gspn/automorphisms.hpp"

namespace mmt::api {

namespace {

/// "Srv (its 4 rotations)", "R (every permutation of 3)".
std::string describeClass(const gspn::DeclaredSymmetry::Class& c) {
  const std::string n = std::to_string(c.colours);
  if (c.group == "cyclic") return c.name + " (its " + n + " rotations)";
  if (c.group == "symmetric") return c.name + " (every permutation of " + n + ")";
  return c.name + " (every permutation of " + n + " within each static subclass)";
}

}  // namespace

std::string SymmetryReport::describe() const {
  std::string out;
  if (colours) {
    out = colours->classes.size() > 1 ? "the colour classes " : "the colour class ";
    for (std::size_t i = 0; i < colours->classes.size(); ++i)
      out += (i == 0                             ? ""
              : i + 1 == colours->classes.size() ? " and "
                                                 : ", ") +
             describeClass(colours->classes[i]);
    out += colours->order == colours->tried
               ? ", " + std::to_string(colours->order) + " permutations"
               : ", the " + std::to_string(colours->order) + " of its " +
                     std::to_string(colours->tried) + " permutations that map the net onto itself";
  }
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
  if (colours) {
    std::string names;
    nlohmann::ordered_json classes = nlohmann::ordered_json::array();
    for (const gspn::DeclaredSymmetry::Class& c : colours->classes) {
      names += (names.empty() ? "" : ", ") + c.name;
      classes.push_back({{"class", c.name}, {"group", c.group}, {"colours", c.colours}});
    }
    factors.push_back({{"replica", names},
                       {"group", "colour"},
                       {"blocks", colours->order},
                       {"classes", classes}});
  }
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

/// A group's order from its log10: "24", "3.6288e+06".
std::string formatOrder(double log10Order) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", std::pow(10.0, log10Order));
  return text;
}

/// A raw net's symmetry, found by its automorphisms (gspn/automorphisms.hpp).
std::vector<gspn::SymmetryFactor> searchRawNet(const gspn::Net& net, SymmetryReport& report) {
  gspn::FoundSymmetry found = gspn::findSymmetry(net);
  report.notes = std::move(found.notes);
  if (found.stopped) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3g", found.seconds);
    report.notes.push_back(std::string("the automorphism search stopped at its budget of "
                                       "work, after ") +
                           seconds + " s; the symmetry found by then is used");
  }
  return std::move(found.factors);
}

/// The colour permutations of an unfolded coloured net that map it onto itself, the initial
/// marking included (gspn::DeclaredSymmetry, each element padded to the whole net): the
/// subgroup of the classes' group that respects the net's guards, constants and marking.
std::vector<gspn::NetPermutation> colourGroup(const gspn::Net& net, SymmetryReport& report) {
  const gspn::DeclaredSymmetry& declared = net.declaredSymmetry();
  std::vector<gspn::NetPermutation> kept;
  if (!declared.refused.empty()) {
    report.notes.push_back("the colour classes are not used (" + declared.refused +
                           ", more than mmt enumerates); the net's automorphisms are searched");
    return kept;
  }
  std::string why;
  for (gspn::NetPermutation g : declared.elements) {
    for (auto p = gspn::PlaceId(g.places.size()); p < net.placeCount(); ++p) g.places.push_back(p);
    for (auto t = gspn::TransitionId(g.transitions.size()); t < net.transitionCount(); ++t)
      g.transitions.push_back(t);
    if (auto violation = gspn::permutationViolation(net, g)) {
      if (why.empty()) why = *violation;
      continue;
    }
    kept.push_back(std::move(g));
  }
  // Why the first element failed: a difference in the unfolded net or, where none was
  // checked, a binding its guard keeps whose image it does not (coloured/symmetry.hpp).
  if (why.empty()) why = "a guard keeps a binding and not its image";
  if (kept.empty())
    report.notes.push_back(
        "no permutation of the colour classes but the identity maps the net onto itself: " + why);
  else if (kept.size() + 1 < declared.tried)
    report.notes.push_back("the net's guards, constants or initial marking tell colours apart: " +
                           why);
  return kept;
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
  if (!proposals && !net.declaredSymmetry().empty()) {
    // The larger of the colour group and the automorphisms found; the search's notes are
    // dropped when the colour group is used.
    SymmetryReport colourReport;
    std::vector<gspn::NetPermutation> elements = colourGroup(net, colourReport);
    const double colourOrder = std::log10(double(elements.size() + 1));
    const double searched = factors.empty() ? 0.0 : gspn::Symmetry(net, factors).log10Order();
    if (!elements.empty() && colourOrder >= searched) {
      report.notes = std::move(colourReport.notes);
      if (!factors.empty() && colourOrder > searched + 1e-9)
        report.notes.push_back("the colour permutations (" + formatOrder(colourOrder) +
                               ") are used; the automorphism search found a group of " +
                               formatOrder(searched));
      report.colours = SymmetryReport::Colours{net.declaredSymmetry().classes, elements.size() + 1,
                                               std::size_t(net.declaredSymmetry().tried)};
      gspn::Symmetry group(net, std::move(elements));
      report.log10GroupOrder = group.log10Order();
      return group;
    }
    report.notes.insert(report.notes.end(), colourReport.notes.begin(), colourReport.notes.end());
    if (!elements.empty())
      report.notes.push_back("the automorphisms found (a group of " + formatOrder(searched) +
                             ") are used, more than the colour permutations' " +
                             formatOrder(colourOrder));
  }
  if (factors.empty()) return std::nullopt;
  for (const gspn::SymmetryFactor& f : factors)
    report.lumped.push_back({f.label, f.kind, f.blockCount()});
  gspn::Symmetry group(net, std::move(factors));
  report.log10GroupOrder = group.log10Order();
  return group;
}

std::vector<gspn::SymmetryFactor> replicaFactors(const Model& model, const gspn::Net& net,
                                                 std::vector<std::string>& notes) {
  SymmetryReport report;
  std::vector<gspn::SymmetryFactor> found =
      model.compiled ? checkProposals(model.compiled->symmetry, net, report)
                     : searchRawNet(net, report);
  notes.insert(notes.end(), report.notes.begin(), report.notes.end());
  std::vector<gspn::SymmetryFactor> out;
  for (gspn::SymmetryFactor& f : found) {
    if (f.kind == gspn::SymmetryFactor::Kind::Symmetric) {
      out.push_back(std::move(f));
      continue;
    }
    notes.push_back(std::to_string(f.blockCount()) + " " + f.label + " in a " +
                    gspn::toString(f.kind) +
                    " ring are not counted: a ring's stations are not interchangeable");
  }
  return out;
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
