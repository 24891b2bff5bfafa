#pragma once
/// \file
/// The state space of a model on its own, without solving it: what a Petri-net user checks
/// first, and the Model Checking Contest's "StateSpace" examination. The tangible
/// reachability graph is explored as for a solution (docs/modelling.md, "Exploration"),
/// then its markings are read once for the bounds and the firings, and its bottom strongly
/// connected components found (solver::bottomComponents). Failures are thrown as the types
/// of api/errors.hpp, as api::solve throws them.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/model.hpp"
#include "api/settings.hpp"
#include "api/symmetry.hpp"

namespace mmt::api {

/// What `mmt statespace` reports. On a chain lumped by symmetry (Settings::symmetry and a
/// model with interchangeable replicas, docs/symmetry.md) the counts are of orbits, and
/// each `unlumped` figure is the sum of the orbits' sizes: the count of the net's own
/// markings, never enumerated.
struct StateSpace {
  std::string name;
  bool system = false;
  /// Tangible markings (the CTMC's states) and the distinct vanishing markings met.
  std::uint64_t tangible = 0;
  std::uint64_t vanishing = 0;
  /// The CTMC's edges: parallel firings between two markings merged, self-loops dropped.
  std::uint64_t edges = 0;
  /// The reachability graph's edges counted as firings, as the Model Checking Contest
  /// counts them: Σ over tangible markings of the timed transitions enabled there with a
  /// positive rate (a firing back into its own marking included). Vanishing markings'
  /// immediate firings are not counted.
  std::uint64_t firings = 0;
  /// Each place's bound: the most tokens it holds in any reachable tangible marking.
  struct PlaceBound {
    std::string place;
    std::uint64_t bound = 0;
  };
  std::vector<PlaceBound> bounds;
  /// The most tokens in one place (the largest bound) and in one marking (Σ over places).
  std::uint64_t maxTokensInPlace = 0;
  std::uint64_t maxTokensPerMarking = 0;
  /// Dead markings (no transition enabled with a positive rate): how many, and the first
  /// kFirstDead of them in exploration order, written as `net.describe` writes markings.
  std::uint64_t deadMarkings = 0;
  std::vector<std::string> firstDead;
  static constexpr std::size_t kFirstDead = 5;
  /// The bottom strongly connected components, in exploration order of their first
  /// markings; a dead marking is one of one marking.
  struct BottomComponent {
    std::uint64_t markings = 0;
    /// Σ of its orbits' sizes (lumped chains only).
    std::optional<double> unlumpedMarkings;
    bool dead = false;
    /// Its first marking.
    std::string witness;
  };
  std::vector<BottomComponent> bottomComponents;
  /// Tangible markings in no bottom component.
  std::uint64_t transientMarkings = 0;
  /// What was lumped, and the unlumped counts (set when the chain was lumped).
  SymmetryReport symmetry;
  std::optional<double> unlumpedFirings;
  std::optional<double> unlumpedDeadMarkings;
  double explorationSeconds = 0;
  double analysisSeconds = 0;
  double peakMemoryMegabytes = 0;

  /// "mmt/statespace/1" (docs/schema/statespace.json).
  nlohmann::ordered_json json() const;
};

/// Explores `model`'s tangible reachability graph and reports its state space. Uses
/// settings.maxStates, maxMemoryBytes, threads, progress, interrupt and symmetry; the
/// solver's settings are not read. Throws StateLimitError, MemoryLimitError, ModelError and
/// the other failures of exploration (api/errors.hpp), InterruptedError.
StateSpace exploreStateSpace(const Model& model, const Settings& settings);

}  // namespace mmt::api
