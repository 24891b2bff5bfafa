#pragma once
/// \file
/// The tangible reachability graph of a GSPN, built breadth-first with vanishing markings
/// eliminated on the fly (see vanishing.hpp). Its edges carry the rates of the CTMC over
/// tangible markings ([GSPN95] §6.2): from tangible m, timed transition t with rate λ(m)
/// leads, through the immediate firings, to tangible m' with rate λ(m) · P(m' | m, t).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gspn/net.hpp"

namespace mmt::gspn {

struct TangibleReachabilityGraph {
  std::size_t placeCount = 0;
  /// Tangible markings, row-major: state s is markings[s*placeCount, (s+1)*placeCount).
  std::vector<Tokens> markings;
  /// CTMC off-diagonal rates in CSR form: the edges of state s are
  /// [rowOffset[s], rowOffset[s+1]) in `target`/`rate`, targets ascending, no self-loops,
  /// parallel edges merged. Rates are per model time unit.
  std::vector<std::uint64_t> rowOffset;
  std::vector<std::uint32_t> target;
  std::vector<double> rate;
  /// Initial distribution over tangible states (one entry when the initial marking is
  /// tangible; the resolution of the vanishing initial marking otherwise).
  std::vector<std::pair<std::uint32_t, double>> initial;
  /// Firing rate of immediate transition `transition` caused by the timed firings out of
  /// `state`: Σ_t λ_t(m) · E[firings of the transition | m, t]. Its throughput is
  /// Σ_s π_s · rate over these entries.
  struct ImmediateFlow {
    std::uint32_t state;
    TransitionId transition;
    double rate;
  };
  std::vector<ImmediateFlow> immediateFlows;
  /// Distinct vanishing markings met during exploration.
  std::uint64_t vanishingCount = 0;

  std::size_t stateCount() const { return rowOffset.empty() ? 0 : rowOffset.size() - 1; }
  std::size_t edgeCount() const { return target.size(); }
  MarkingView marking(std::size_t s) const {
    return {markings.data() + s * placeCount, placeCount};
  }
};

struct ExplorationSettings {
  /// Exploration stops with StateLimit once more tangible markings than this are found.
  std::uint64_t maxStates = 20'000'000;
  /// Most vanishing markings a single timed firing may lead through.
  std::uint64_t maxVanishingPerFiring = 1'000'000;
};

struct ExplorationResult {
  enum class Status { Ok, StateLimit, TimelessTrap, TooManyVanishing };
  Status status = Status::Ok;
  /// Human-readable reason when status != Ok.
  std::string message;
  TangibleReachabilityGraph graph;
};

/// Explores the tangible reachability graph of `net` from its initial marking.
ExplorationResult exploreTangible(const Net& net, const ExplorationSettings& settings = {});

}  // namespace mmt::gspn
