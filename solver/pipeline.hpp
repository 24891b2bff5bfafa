#pragma once
/// \file
/// The exact solution of a net as one call, for the command line, sweeps and tests alike,
/// in stages a SolvePlan sets: explore the tangible reachability graph, check the chain's
/// structure, solve the steady state (or, for a chain that ends, its absorption), the
/// transient distributions, and hand out the measures (docs/modelling.md, "Exploration",
/// "Solution" and "Chains that end"). Failures are values, not messages on a stream: the
/// caller words them.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gspn/reachability.hpp"
#include "solver/absorption.hpp"
#include "solver/column_order.hpp"
#include "solver/ctmc.hpp"
#include "solver/measures.hpp"
#include "solver/steady_state.hpp"
#include "solver/transient.hpp"

namespace mmt::solver {

/// Every state of `g` in the lexicographic order of their markings, place by place. A
/// firing changes few places, so in this order the states that lead into consecutive
/// states lie in a few runs that advance with them (one per kind of firing), which the
/// hardware prefetches; in breadth-first order they are scattered over the whole vector.
/// The order of the state descriptors' mixed-radix numbers, as PRISM's sparse engine gets
/// from its variable order. The key is that number when the places' spans multiply to
/// under 2^64; otherwise markings are compared counter by counter.
std::vector<std::uint32_t> markingOrder(const gspn::TangibleReachabilityGraph& g,
                                        std::size_t places);

/// The steady state's order of `states` (ascending states of g, every state when null; the
/// generator's numbering): each breadth-first level of g in the lexicographic order of its
/// markings, as markingOrder orders the whole graph. Gauss–Seidel sweeps level after level
/// as in breadth-first order, and within a level reads x in runs, as the transient's
/// products do (solver/column_order.hpp). A graph not explored level by level keeps its
/// order. 4 bytes a state, and a level's keys while it is sorted.
BlockOrder levelMarkingOrder(const gspn::TangibleReachabilityGraph& g,
                             const std::vector<std::uint32_t>* states, std::size_t places);

/// The levels of each place over states of an explored graph (`states`, in the
/// generator's order), for Method::IAD. On a graph of orbits (its markings' symmetry), the
/// "places" are the orbits of places and a level is their tokens summed over the orbit
/// (how many workers are idle: a place of one canonical marking says little of its orbit).
/// Holds references: the net, the graph (its markings) and the state list must outlive it.
class MarkingLevels final : public LevelSource {
 public:
  MarkingLevels(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
                const std::vector<std::uint32_t>& states);
  /// Over every state of `graph`, in its order (no list held).
  MarkingLevels(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph);
  std::string placeName(std::size_t place) const override;
  std::vector<std::uint64_t> spans() const override;
  BlockPartition levels(std::size_t place) const override;

 private:
  MarkingLevels(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
                const std::vector<std::uint32_t>* states, std::size_t count);
  /// The graph's state at position i of the list.
  std::uint32_t state(std::size_t i) const {
    return states_ ? (*states_)[i] : static_cast<std::uint32_t>(i);
  }

  const gspn::Net& net_;
  const gspn::TangibleReachabilityGraph& graph_;
  const std::vector<std::uint32_t>* states_;  // null: every state of the graph
  std::size_t count_;
  /// Per "place" of this source: the net's places it sums (one without a symmetry).
  std::vector<std::vector<gspn::PlaceId>> orbits_;
  /// On a graph of orbits: every orbit's sum in every state (orbit-major), from one pass
  /// over the markings on first use.
  const std::vector<std::uint32_t>& sums() const;
  mutable std::vector<std::uint32_t> sums_;
};

/// A net's exact steady-state solution: its tangible reachability graph (markings and
/// counts; the edges go to the solver), the chain's structure, and π with the solver's
/// account of it. The one exact-solution type: api::Solution is this plus the model's
/// results.
struct ExactSolution {
  gspn::ExplorationResult explored;
  ChainStructure structure;
  /// π over the recurrent states (`structure.recurrent`), method, iterations, residual.
  SteadyStateResult steadyState;
  double explorationSeconds = 0;
  /// The transient solution at the requested times, when any were requested; its
  /// distributions (over every tangible state, graph order) move into
  /// SolvedNet::transientMeasures once it converged.
  std::optional<TransientResult> transientResult;
  /// A chain that ends, solved until it does (SolvePlan::absorption): its bottom
  /// components, the probability of each, the time to absorption; the occupancy and
  /// long-run vectors move into SolvedNet::accumulated and SolvedNet::measures.
  std::optional<AbsorptionResult> absorption;
};

/// Which stages solveNet runs, and their settings.
struct SolvePlan {
  gspn::ExplorationSettings exploration;
  SteadyStateSettings steadyState;
  /// The transient distributions from the initial marking at these times; none: no
  /// transient stage.
  std::optional<TransientSettings> transient;
  /// A chain with dead markings or several bottom components is solved until it ends
  /// (solver/absorption.hpp) instead of stopping at SolvedNet::Stage::Structure (not when
  /// the transient is asked for without the steady state).
  bool absorption = false;
  /// The graph keeps its edges after the solve (for passage times, solver/passage.hpp):
  /// the generators copy them instead of taking them.
  bool keepEdges = false;
  /// Sees the graph with its edges before the solver takes them (to export the chain);
  /// what it throws goes to the caller.
  std::function<void(const gspn::TangibleReachabilityGraph&)> explored;
};

/// What solveNet gives: the solution as far as it got, and the measures under π.
struct SolvedNet {
  SolvedNet() = default;
  // The measures refer to `solution.explored.graph`: the object stays where it was made.
  SolvedNet(const SolvedNet&) = delete;
  SolvedNet& operator=(const SolvedNet&) = delete;

  /// Where it stopped: Ok, or the stage that failed.
  enum class Stage { Ok, Exploration, Structure, Solver, Absorption, Transient };
  Stage stage = Stage::Ok;
  ExactSolution solution;
  /// Mean tokens, throughputs and expectations under π, or for a chain that ends (with
  /// SolvePlan::absorption) under its long-run distribution; set when stage is Ok and the
  /// chain has either (with transient times, a chain without one still reaches Ok, with
  /// its transient distributions and no measures).
  std::unique_ptr<SteadyStateMeasures> measures;
  /// For a chain that ends: the same measures under the occupancy τ, which are totals
  /// until absorption: token-time per place (tokens × time units), firings per transition.
  std::unique_ptr<SteadyStateMeasures> accumulated;
  /// By component of the absorption's bottoms: the measures under its own steady state π_B
  /// (Kwiatkowska, Norman & Parker 2007, §3.3), for a component of more than one marking;
  /// null for a dead marking.
  std::vector<std::unique_ptr<SteadyStateMeasures>> componentMeasures;
  /// The measures under each transient distribution, in the order of the times; set when
  /// stage is Ok and times were asked for (with π's in one pass where both cover every state).
  std::vector<SteadyStateMeasures> transientMeasures;

  /// The failed stage's own words (the explorer's, the structure's, the solver's note).
  std::string message() const;
};

/// Runs `plan`'s stages on `net`, which must outlive the result (the measures refer to it
/// and to the graph). Never throws for a model's fault: a state limit, a deadlock, a
/// non-ergodic chain or a solver that fails are reported in `stage` (a chain without a
/// steady state is no failure when transient times are asked for, or with
/// SolvePlan::absorption). The graph keeps its markings but gives its edges to the
/// generator unless SolvePlan::keepEdges. With transient times, the transient
/// distributions from the initial marking follow the steady state (which tells
/// uniformization when it has converged), on the generator of every tangible state.
std::unique_ptr<SolvedNet> solveNet(const gspn::Net& net, const SolvePlan& plan);

}  // namespace mmt::solver
