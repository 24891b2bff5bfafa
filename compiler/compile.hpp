#pragma once
/// \file
/// The compiler: a sequence of named passes from a parsed description to a GSPN
/// (docs/modelling.md, "Compiler passes"). Each pass reports user mistakes to the Diagnostics and
/// the pipeline stops after the first pass that reported an error.
///
///   elaborate    evaluate parameters, expand loops and conditions, make names concrete
///   check-names  resolve every name, check properties, build the System model
///   route        give every remote message its route (explicit `via`, else fewest links)
///   instantiate  one compound template per element → the GSPN and its ports

#include <iosfwd>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "compiler/elaborated.hpp"
#include "compiler/model.hpp"
#include "compiler/templates.hpp"
#include "grammar/diagnostics.hpp"
#include "grammar/parameters.hpp"
#include "grammar/parse.hpp"
#include "gspn/net.hpp"
#include "gspn/symmetry.hpp"

namespace mmt::compiler {

/// A system compiled to a net, with the places and transitions of every element.
struct CompiledSystem {
  System system;
  Routing routing;
  gspn::Net net;
  Ports ports;
  /// The replicas made interchangeable (compiler/symmetry.hpp): proposals, to be checked
  /// against the net before use.
  std::vector<gspn::SymmetryFactor> symmetry;
  /// The parameters (`param N = 512;`) with their values, overrides applied, in
  /// declaration order.
  std::vector<std::pair<std::string, double>> parameters;
};

/// Placements given beside the description (by `mmt explore`): task name → processor name.
using Placements = std::vector<std::pair<std::string, std::string>>;

/// Everything the passes share.
struct Compilation {
  const grammar::ParsedSystem& parsed;
  grammar::Diagnostics& diagnostics;
  const grammar::ParameterOverrides& overrides;
  const Placements& placements;
  /// Reading the mapping space (probeSystem): tasks may be left unplaced.
  bool probing = false;
  /// Counting the replicas of farms and maps only (replicaCounts): elaborate reads the
  /// parameters and the application's skeletons, and expands no farm or map of two
  /// replicas or more.
  bool countingReplicas = false;
  elab::System elaborated;
  System system;
  Routing routing;  ///< the route pass's output
  std::optional<CompiledSystem> result;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual void apply(Compilation& compilation) const = 0;
  /// One-line summary of what the pass produced, for `--trace-passes`.
  virtual void dump(const Compilation& compilation, std::ostream& out) const = 0;
};

/// The passes in order.
std::vector<std::unique_ptr<Pass>> standardPasses();

/// Runs the passes; returns the compiled system, or nothing when a pass reported errors.
/// With `trace`, writes each pass's name and summary after it runs.
/// `overrides` set parameters (`-D NAME=VALUE`); naming one the description does not
/// declare is an error.
/// `placements` add to the mapping (each task placed once in all).
std::optional<CompiledSystem> compile(const grammar::ParsedSystem& parsed,
                                      grammar::Diagnostics& diagnostics,
                                      std::ostream* trace = nullptr,
                                      const grammar::ParameterOverrides& overrides = {},
                                      const Placements& placements = {});

/// The System model as far as check-names, with skeleton tasks allowed to be unplaced: what
/// `mmt explore` enumerates mappings from. Nothing when the description has errors.
std::optional<System> probeSystem(const grammar::ParsedSystem& parsed,
                                  grammar::Diagnostics& diagnostics,
                                  const grammar::ParameterOverrides& overrides = {});

/// The replica counts of the description's outermost farms and maps of two replicas or
/// more at `overrides`, in the order of the symmetric factors compiler/symmetry.hpp
/// proposes, with the parameters each count reads: read without expanding their workers,
/// the hardware or the mapping, so that a farm of a million workers is counted in
/// microseconds (the mean-field approximation compiles the system at a few replicas and
/// counts the rest: api/meanfield.hpp). Nothing when the parameters or the application
/// have errors (in `diagnostics`).
std::optional<std::vector<elab::ReplicaCount>> replicaCounts(
    const grammar::ParsedSystem& parsed, grammar::Diagnostics& diagnostics,
    const grammar::ParameterOverrides& overrides = {});

}  // namespace mmt::compiler
