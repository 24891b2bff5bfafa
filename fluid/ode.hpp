#pragma once
/// \file
/// Equilibria and trajectories of an autonomous ODE dy/dt = F(y) over amounts y ≥ 0 that
/// stay on the affine subspace y₀ + range(Z): the engine under the fluid approximation of
/// a net (fluid/solve.hpp) and the mean-field approximation of its replicas
/// (meanfield/solve.hpp).
///
/// The ODE is integrated by Boost.Odeint's Rosenbrock stepper (order 4, with step-size
/// control; E. Hairer, G. Wanner, "Solving Ordinary Differential Equations II", Springer
/// 1996, §IV.7), which takes the stiffness of rates many orders apart. The equilibrium is
/// found by damped Newton's method on Zᵀ F(y) = 0 in the coordinates of the subspace, from
/// the point the integration reached once the drift is below 10⁻³ of the largest flow; a
/// singular reduced Jacobian (a continuum of equilibria) is solved in the least-squares
/// sense by a complete orthogonal decomposition, so Newton stays near that point. Its
/// stability is read from the eigenvalues of Zᵀ J Z.

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gspn/progress.hpp"
#include "gspn/run_control.hpp"

namespace mmt::fluid {

/// The trajectory found no equilibrium: it still moved (`residual`, the relative drift, at
/// model time `time`), grew without bound (`element` the fastest growing), or Newton's
/// method did not converge from where it stopped.
class NotSettledError : public std::runtime_error {
 public:
  NotSettledError(const std::string& message, double time, double residual, std::string element)
      : std::runtime_error(message), time_(time), residual_(residual), place_(std::move(element)) {}
  double time() const { return time_; }
  double residual() const { return residual_; }
  /// The component (a place, a replica's local state) that moves or grows most.
  const std::string& place() const { return place_; }

 private:
  double time_, residual_;
  std::string place_;
};

/// The caller's interrupt flag was set.
class InterruptedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// dy/dt = F(y), y ≥ 0, kept on y₀ + range(basis()).
class DriftSystem {
 public:
  virtual ~DriftSystem() = default;
  /// y₀.
  virtual const Eigen::VectorXd& initial() const = 0;
  /// F(y), per component per model time unit. Negative amounts (an integrator's rounding)
  /// count as 0.
  virtual Eigen::VectorXd drift(const Eigen::VectorXd& y) const = 0;
  /// ∂F/∂y, dimension × dimension (of the piece y lies in where F is piecewise smooth).
  virtual Eigen::MatrixXd jacobian(const Eigen::VectorXd& y) const = 0;
  /// What the drift is measured against: the largest flow at y (firings per model time
  /// unit); 0 when nothing flows.
  virtual double flowScale(const Eigen::VectorXd& y) const = 0;
  /// Z: an orthonormal basis (dimension × rank) of the directions y can move in.
  virtual const Eigen::MatrixXd& basis() const = 0;
  /// The largest and the smallest rate (per model time unit): the first step and the
  /// scale of a zero eigenvalue.
  virtual double fastestRate() const = 0;
  virtual double slowestRate() const = 0;
  /// Component i's name ("p", a place; "W.full"), the element an error names.
  virtual std::string name(Eigen::Index i) const = 0;
  /// Component i in a sentence ("place p").
  virtual std::string describe(Eigen::Index i) const { return name(i); }
};

struct OdeSettings {
  /// Newton stops when ‖F(y)‖∞ ≤ tolerance · flowScale(y).
  double tolerance = 1e-10;
  /// Seconds of integration before the equilibrium search gives up (NotSettledError).
  double timeLimit = 60;
  /// What the progress lines and messages call the trajectory ("fluid", "mean-field").
  std::string label = "fluid";
  RunControl run;
};

/// ‖F(y)‖∞ / flowScale(y), the relative drift (0 when nothing flows).
double relativeDrift(const DriftSystem& system, const Eigen::VectorXd& y);

/// Damped Newton on Zᵀ F(y) = 0 over y + range(Z) from `y`; true (and `y` the root, rounding
/// below 0 set to 0) when the relative drift reaches `tolerance` with every amount ≥ 0.
/// Adds its iterations to `iterations`.
bool newton(const DriftSystem& system, double tolerance, Eigen::VectorXd& y,
            std::uint64_t& iterations);

/// Where the trajectory from y₀ settles: integrated over doubling horizons from 1 /
/// fastestRate(), with Newton tried whenever the drift is below 10⁻³ of the largest flow.
struct Settled {
  Eigen::VectorXd amounts;
  double time = 0;  ///< model time integrated to
  std::uint64_t steps = 0, newtonIterations = 0;
};
/// Throws NotSettledError (the time limit since `start`; growth past 10¹² times the
/// initial scale), InterruptedError. Reports progress about once a second.
Settled settle(const DriftSystem& system, const OdeSettings& settings,
               std::chrono::steady_clock::time_point start, gspn::ProgressLine& progress);

/// y(t) at each time (any order, repeats allowed; each finite and ≥ 0, else
/// std::invalid_argument), in the order asked; adds the integrator's steps to `steps`.
std::vector<Eigen::VectorXd> integrate(const DriftSystem& system, std::span<const double> times,
                                       const OdeSettings& settings,
                                       std::chrono::steady_clock::time_point start,
                                       gspn::ProgressLine& progress, std::uint64_t& steps);

/// The largest real part of an eigenvalue of Zᵀ J(y) Z (per model time unit; 0 when Z has
/// no column), and what it says: stable when below −10⁻⁹ · slowestRate(), neutral (a
/// continuum of equilibria) when within 10⁻⁹ · slowestRate() of 0.
struct Stability {
  double spectralAbscissa = 0;
  bool stable = false, neutral = false;
};
Stability stability(const DriftSystem& system, const Eigen::VectorXd& y);

/// How an equilibrium was reached and what kind it is: what the fluid approximation
/// (fluid/solve.hpp) and the mean-field one (meanfield/solve.hpp) report beside their
/// amounts.
struct EquilibriumSearch {
  /// The drift at the equilibrium, ‖F(y*)‖∞ over the largest flow (0 when nothing flows).
  double residual = 0;
  /// The model time the integration reached before Newton's method took over.
  double settledAt = 0;
  std::uint64_t steps = 0;             ///< integrator steps
  std::uint64_t newtonIterations = 0;  ///< over every Newton solve
  /// The largest real part of an eigenvalue of Zᵀ J Z (per model time unit): the
  /// equilibrium attracts nearby trajectories when it is negative. 0 when Z has no column.
  double spectralAbscissa = 0;
  bool stable = false;
  /// The abscissa is 0 to rounding (within 10⁻⁹ of the slowest rate): the equilibria near
  /// y* form a continuum along some direction, and the one reached depends on y₀.
  bool neutral = false;
  /// What sits on a kink of a min(·) at y*: a critical load, where the exact answer
  /// approaches this one only like N^(−1/2) ([Ying16]).
  std::vector<std::string> kinks;
  /// Every flow is 0 at y*: the limit ends.
  bool dead = false;
  double seconds = 0;

  /// Takes the time, steps and Newton iterations of `settled`.
  void take(const Settled& settled) {
    settledAt = settled.time;
    steps = settled.steps;
    newtonIterations = settled.newtonIterations;
  }
  void take(const Stability& s) {
    spectralAbscissa = s.spectralAbscissa;
    stable = s.stable;
    neutral = s.neutral;
  }
};

/// The ODE settings of a fluid or mean-field solve's settings (its tolerance, time limit
/// and run control), its trajectory called `label`.
template <typename Settings>
OdeSettings odeSettings(const Settings& settings, std::string label) {
  OdeSettings out;
  out.tolerance = settings.tolerance;
  out.timeLimit = settings.timeLimit;
  out.label = std::move(label);
  out.run = settings.run;
  return out;
}

/// An orthonormal basis of range(V), rows × rank: the eigenvectors of V Vᵀ whose eigenvalues
/// are not 0 to rounding.
Eigen::MatrixXd rangeBasis(const Eigen::MatrixXd& v);
Eigen::MatrixXd rangeBasis(const Eigen::SparseMatrix<double>& v);

}  // namespace mmt::fluid
