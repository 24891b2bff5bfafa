#pragma once
/// \file
/// The fluid approximation of a GSPN (fluid/continuous_net.hpp) solved: its equilibrium,
/// reached from the initial marking, and its trajectory at given times.
///
/// The ODE dx/dt = C f(x) is integrated and its equilibrium found by fluid/ode.hpp, whose
/// Rosenbrock stepper takes the stiffness that immediate transitions K times faster than
/// the timed ones bring. The trajectory stays on x₀ + range(C) (every P-flow y, yᵀC = 0,
/// keeps yᵀx), so Newton's method works in coordinates of that subspace: F is piecewise
/// linear, and Newton ends in a step or two once x is in the right piece. Its stability is
/// read from the eigenvalues of the Jacobian on the subspace (Zᵀ J Z, Z an orthonormal
/// basis of range(C)).
///
/// With immediate transitions the equilibrium x*(K) is solved at K and 2K and
/// extrapolated: x* = 2 x*(2K) − x*(K), exact to O(1/K²) where x*(K) is smooth in 1/K
/// (Richardson; the error of one K is O(1/K)). The same holds for the trajectory.

#include <Eigen/Dense>
#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "fluid/continuous_net.hpp"
#include "fluid/ode.hpp"
#include "gspn/net.hpp"
#include "gspn/run_control.hpp"

namespace mmt::fluid {

struct FluidSettings {
  /// Newton stops when ‖F(x)‖∞ ≤ tolerance · max_t f_t(x): the net drift of every place
  /// against the largest flow.
  double tolerance = 1e-10;
  /// K: immediate transitions flow K times faster than the fastest timed one.
  double immediateSpeed = 1e6;
  /// Most places: the Jacobian and the subspace's basis are dense, places × places.
  std::size_t maxPlaces = 2000;
  /// Seconds of integration before the equilibrium search gives up (NotSettledError).
  double timeLimit = 60;
  /// Progress lines about once a second on long runs; the interrupt, after which the
  /// integration stops soon (InterruptedError).
  RunControl run;
};

struct Equilibrium : EquilibriumSearch {
  Eigen::VectorXd amounts;  ///< x*, per place, tokens
  Eigen::VectorXd flows;    ///< f(x*), per transition, firings per model time unit
  /// Solved at K and 2K and extrapolated (the net has immediate transitions).
  bool extrapolated = false;
};

/// The equilibrium the fluid trajectory of `net` reaches from its initial marking.
/// Throws UnsupportedNet (fluid/continuous_net.hpp; also for more places than
/// settings.maxPlaces), NotSettledError, InterruptedError.
Equilibrium equilibrium(const gspn::Net& net, const FluidSettings& settings);

struct Trajectory {
  std::vector<double> times;             ///< as asked, in the order asked
  std::vector<Eigen::VectorXd> amounts;  ///< x(t) per time, per place
  std::vector<Eigen::VectorXd> flows;    ///< f(x(t)) per time, per transition
  std::uint64_t steps = 0;
  bool extrapolated = false;
  double seconds = 0;
};

/// x(t) and f(x(t)) at each time t ≥ 0 (any order, repeats allowed) from the initial
/// marking. Throws UnsupportedNet, InterruptedError, std::invalid_argument for a time that
/// is negative or not finite.
Trajectory trajectory(const gspn::Net& net, std::span<const double> times,
                      const FluidSettings& settings);

}  // namespace mmt::fluid
