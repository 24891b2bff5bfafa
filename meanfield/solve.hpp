#pragma once
/// \file
/// The mean-field approximation of a net's replicas solved (docs/meanfield.md): the
/// equilibrium of the ODE of meanfield/hybrid.hpp reached from the initial marking, its
/// trajectory at given times, and the measures of the net's places and transitions there.
///
/// The ODE is integrated and its equilibrium found by fluid/ode.hpp (Rosenbrock steps, then
/// Newton's method on the subspace y₀ + range(Z) the events move y in). Each replica's
/// place reports one replica's mean, each member of a transition class its own throughput
/// (the class's flow shared by its members), and an expectation over markings takes the
/// fixed part's distribution p and each replica's local state distributed as x/N,
/// independently ([BHLM13] §3: propagation of chaos).

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "fluid/ode.hpp"
#include "gspn/measure_source.hpp"
#include "gspn/net.hpp"
#include "gspn/run_control.hpp"
#include "meanfield/hybrid.hpp"
#include "meanfield/population.hpp"

namespace mmt::meanfield {

struct Settings {
  /// Newton stops when ‖F(y)‖∞ ≤ tolerance · the largest class flow.
  double tolerance = 1e-10;
  /// Seconds of integration before the search gives up (fluid::NotSettledError).
  double timeLimit = 60;
  RunControl run;
};

struct Equilibrium : fluid::EquilibriumSearch {
  /// y* = (p over the fixed part's tangible markings, x: the counts by class and local
  /// state, replicas).
  Eigen::VectorXd state;
  /// By transition class, firings per model time unit summed over its members.
  std::vector<double> classFlows;
};

/// The equilibrium the trajectory reaches from y₀. Throws fluid::NotSettledError,
/// fluid::InterruptedError, UnsupportedModel.
Equilibrium equilibrium(const Hybrid& hybrid, const Settings& settings);

struct Trajectory {
  std::vector<double> times;  ///< as asked, in that order
  std::vector<Eigen::VectorXd> states;
  std::vector<std::vector<double>> classFlows;
  std::uint64_t steps = 0;
  double seconds = 0;
};

/// y(t) at each time t ≥ 0 (any order). Throws std::invalid_argument for a time that is
/// negative or not finite, fluid::InterruptedError, fluid::NotSettledError (the time limit).
Trajectory trajectory(const Hybrid& hybrid, std::span<const double> times,
                      const Settings& settings);

/// The net's measures at y (a state of `hybrid`, whose population model was read from
/// `net`): E[#p] of a fixed place under p; of a replica's place, one replica's mean
/// Σ_ℓ (x_ℓ / N) · ℓ_p; a transition's throughput, its class's flow over its members
/// (N per slot, times the members per assignment); an expectation over markings with each
/// read replica's local state drawn from x/N independently (NaN when that takes more than
/// 10⁷ terms).
class Measures final : public gspn::MeasureSource {
 public:
  Measures(const gspn::Net& net, const Hybrid& hybrid, Eigen::VectorXd state,
           std::vector<double> classFlows);
  double meanTokens(gspn::PlaceId p) const override;
  double throughput(gspn::TransitionId t) const override;
  double expectation(const std::function<double(gspn::MarkingView)>& f,
                     std::span<const gspn::PlaceId> reads) const override;

 private:
  const gspn::Net& net_;
  const Hybrid& hybrid_;
  Eigen::VectorXd state_;
  std::vector<double> flows_;
};

}  // namespace mmt::meanfield
