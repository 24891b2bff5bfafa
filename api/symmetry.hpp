#pragma once
/// \file
/// Which symmetry a solve lumps its chain by (docs/symmetry.md): the compiler's replicas of
/// a system, checked against the net, when the settings and the question allow it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/model.hpp"
#include "api/settings.hpp"
#include "gspn/reachability.hpp"
#include "gspn/symmetry.hpp"

namespace mmt::api {

/// What a solve says of symmetry: the factors it lumped by, and why others were not used.
struct SymmetryReport {
  struct Factor {
    std::string label;  ///< what a block is ("W")
    gspn::SymmetryFactor::Kind kind;
    std::size_t blocks = 0;
  };
  std::vector<Factor> lumped;
  /// The colour permutations of a coloured net it lumped by (in place of factors): the
  /// classes and the order of the subgroup that maps the net onto itself.
  struct Colours {
    std::vector<gspn::DeclaredSymmetry::Class> classes;
    std::size_t order = 0;  ///< of the subgroup used
    std::size_t tried = 0;  ///< of the classes' group
  };
  std::optional<Colours> colours;
  double log10GroupOrder = 0;
  /// Tangible markings of the unlumped chain, Σ over the orbits of their sizes (exact below
  /// 2^53; infinite past a double's range); set when the chain was lumped.
  std::optional<double> unlumpedTangible;
  /// log10 of that count, finite however large (a farm of 1,000 workers: 477.3); set with it.
  std::optional<double> log10UnlumpedTangible;
  /// Why a proposed factor, or the symmetry as a whole, was not used.
  std::vector<std::string> notes;

  bool used() const { return !lumped.empty() || colours; }
  /// Nothing to say: the model has no interchangeable replicas.
  bool empty() const { return !used() && notes.empty(); }
  /// "12 interchangeable W", "6 {q0} in a ring (its rotations)" (factors joined by " and "),
  /// "the colour classes Srv (its 4 rotations) and R (every permutation of 3), 24
  /// permutations", "..., the 2 of its 6 permutations that map the net onto itself".
  std::string describe() const;
  /// {"lumped": [{"replica", "group", "blocks"}], "log10_group_order", "unlumped_tangible"
  /// (null when not lumped or past a double's range), "log10_unlumped_tangible" (null when
  /// not lumped), "notes": [...]}. A colour group is one "lumped" entry {"replica": the
  /// classes joined by ", ", "group": "colour", "blocks": the group's order, "classes":
  /// [{"class", "group", "colours"}]}.
  nlohmann::ordered_json json() const;
};

/// Why a question cannot be answered on a lumped chain (a passage-time or DSPN solution),
/// or empty when it can (steady state and transient measures from the model's own start).
struct SymmetryQuestion {
  std::string unsupported;
};

/// The group to lump `model`'s chain by when its net is `net`, or nothing: none when
/// Settings::symmetry is off, the question is not one a lumped chain answers, or no
/// proposed factor is a symmetry of `net` (each checked with gspn::symmetryViolation, the
/// initial marking included). A system's group is its compiler's replicas; a raw net's the
/// larger of its automorphism search's (gspn/automorphisms.hpp) and, for an unfolded
/// coloured net, the colour permutations that map it onto itself, initial marking included
/// (gspn::DeclaredSymmetry, each element checked with gspn::permutationViolation). Fills
/// `report` with the group used and the notes.
std::optional<gspn::Symmetry> lumpingGroup(const Model& model, const gspn::Net& net,
                                           const Settings& settings,
                                           const SymmetryQuestion& question,
                                           SymmetryReport& report);

/// The model's interchangeable replicas as symmetric factors, each a symmetry of `net`
/// (gspn::symmetryViolation, the initial marking included): a system's compiler
/// proposals, a raw net's automorphism search's symmetric factors (its rings are not
/// interchangeable replicas). Why others were not used goes to `notes`.
std::vector<gspn::SymmetryFactor> replicaFactors(const Model& model, const gspn::Net& net,
                                                 std::vector<std::string>& notes);

/// Σ over the stored (canonical) markings of their orbit sizes, the unlumped tangible count:
/// sets report.unlumpedTangible and report.log10UnlumpedTangible.
void countUnlumped(const gspn::PackedMarkingStore& markings, const gspn::Symmetry& group,
                   SymmetryReport& report);

}  // namespace mmt::api
