#include "fluid/ode.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <numeric>
#include <sstream>

namespace mmt::fluid {
namespace {

namespace odeint = boost::numeric::odeint;
namespace ublas = boost::numeric::ublas;
using State = ublas::vector<double>;
using Matrix = ublas::matrix<double>;
using Clock = std::chrono::steady_clock;

Eigen::VectorXd toEigen(const State& x) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) out[static_cast<Eigen::Index>(i)] = x[i];
  return out;
}
State toState(const Eigen::VectorXd& x) {
  State out(static_cast<std::size_t>(x.size()));
  for (Eigen::Index i = 0; i < x.size(); ++i) out[static_cast<std::size_t>(i)] = x[i];
  return out;
}

/// The ODE as Odeint's implicit system: the drift and its Jacobian (the drift does not
/// depend on time).
struct Drift {
  const DriftSystem* system;
  void operator()(const State& x, State& dxdt, double /*t*/) const {
    const Eigen::VectorXd d = system->drift(toEigen(x));
    for (Eigen::Index i = 0; i < d.size(); ++i) dxdt[static_cast<std::size_t>(i)] = d[i];
  }
};
struct DriftJacobian {
  const DriftSystem* system;
  void operator()(const State& x, Matrix& jacobian, double /*t*/, State& dfdt) const {
    const Eigen::MatrixXd j = system->jacobian(toEigen(x));
    for (Eigen::Index r = 0; r < j.rows(); ++r)
      for (Eigen::Index c = 0; c < j.cols(); ++c)
        jacobian(static_cast<std::size_t>(r), static_cast<std::size_t>(c)) = j(r, c);
    std::fill(dfdt.begin(), dfdt.end(), 0.0);
  }
};

/// The component that moves most at y.
Eigen::Index largestDrift(const DriftSystem& system, const Eigen::VectorXd& y) {
  const Eigen::VectorXd d = system.drift(y);
  Eigen::Index at = 0;
  if (d.size() > 0) d.cwiseAbs().maxCoeff(&at);
  return at;
}

std::string show(double v) {
  std::ostringstream out;
  out.precision(3);
  out << v;
  return out.str();
}

/// Integrates one system; checks the interrupt, the time limit and the growth.
class Integration {
 public:
  Integration(const DriftSystem& system, const OdeSettings& settings, Clock::time_point start,
              gspn::ProgressLine& progress)
      : system_(system),
        settings_(settings),
        start_(start),
        progress_(progress),
        stepper_(1e-10 * std::max(1.0, system.initial().lpNorm<Eigen::Infinity>()), 1e-8),
        y_(toState(system.initial())),
        dt_(1e-6 / system.fastestRate()) {}

  /// Advances to model time `until`.
  void advance(double until) {
    const auto ode = std::make_pair(Drift{&system_}, DriftJacobian{&system_});
    while (t_ < until) {
      double dt = std::min(dt_, until - t_);
      const bool clipped = dt < dt_;
      if (stepper_.try_step(ode, y_, t_, dt) == odeint::fail) {
        dt_ = dt;
        continue;
      }
      if (!clipped) dt_ = dt;
      ++steps_;
      if ((steps_ & 63) == 0) check();
    }
  }
  void check() const {
    if (settings_.run.interrupted())
      throw InterruptedError("the " + settings_.label + " integration was interrupted");
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    const Eigen::VectorXd y = amounts();
    if (seconds > settings_.timeLimit) {
      const Eigen::Index most = largestDrift(system_, y);
      throw NotSettledError("the " + settings_.label + " trajectory did not settle in " +
                                show(settings_.timeLimit) + " s of integration: at model time " +
                                show(t_) + " the drift is " + show(relativeDrift(system_, y)) +
                                " of the largest flow, most on " + system_.describe(most) +
                                " (an oscillation, or a model that does not settle)",
                            t_, relativeDrift(system_, y), system_.name(most));
    }
    progress_.report([&](double) {
      return settings_.label + ": model time " + show(t_) + ", " + std::to_string(steps_) +
             " steps, drift " + show(relativeDrift(system_, y));
    });
  }
  Eigen::VectorXd amounts() const { return toEigen(y_); }
  double time() const { return t_; }
  std::uint64_t steps() const { return steps_; }

 private:
  const DriftSystem& system_;
  const OdeSettings& settings_;
  Clock::time_point start_;
  gspn::ProgressLine& progress_;
  odeint::rosenbrock4_controller<odeint::rosenbrock4<double>> stepper_;
  State y_;
  double t_ = 0, dt_;
  std::uint64_t steps_ = 0;
};

}  // namespace

double relativeDrift(const DriftSystem& system, const Eigen::VectorXd& y) {
  const double largest = system.flowScale(y);
  if (!(largest > 0)) return 0;
  return system.drift(y).lpNorm<Eigen::Infinity>() / largest;
}

bool newton(const DriftSystem& system, double tolerance, Eigen::VectorXd& y,
            std::uint64_t& iterations) {
  const Eigen::MatrixXd& basis = system.basis();
  Eigen::VectorXd at = y;
  double drift = relativeDrift(system, at);
  for (int k = 0; k < 60 && drift > tolerance; ++k) {
    const Eigen::VectorXd f = system.drift(at);
    const Eigen::MatrixXd reduced = basis.transpose() * system.jacobian(at) * basis;
    const Eigen::VectorXd step =
        basis * reduced.completeOrthogonalDecomposition().solve(-(basis.transpose() * f));
    const double floor = -1e-12 * std::max(1.0, at.lpNorm<Eigen::Infinity>());
    bool moved = false;
    for (double damping = 1; damping > 1e-6 && !moved; damping /= 2) {
      const Eigen::VectorXd next = at + damping * step;
      if (next.minCoeff() < floor) continue;
      const double nextDrift = relativeDrift(system, next);
      if (!(nextDrift < drift)) continue;
      at = next;
      drift = nextDrift;
      moved = true;
    }
    ++iterations;
    if (!moved) return false;
  }
  if (!(drift <= tolerance)) return false;
  y = at.cwiseMax(0.0);
  return true;
}

Settled settle(const DriftSystem& system, const OdeSettings& settings, Clock::time_point start,
               gspn::ProgressLine& progress) {
  Integration integration(system, settings, start, progress);
  Settled out;
  const double growth = 1e12 * std::max(1.0, system.initial().lpNorm<Eigen::Infinity>());
  for (double horizon = 1 / system.fastestRate();; horizon *= 2) {
    integration.advance(horizon);
    integration.check();
    Eigen::VectorXd y = integration.amounts();
    if (relativeDrift(system, y) < 1e-3 &&
        newton(system, settings.tolerance, y, out.newtonIterations)) {
      out.amounts = std::move(y);
      out.time = integration.time();
      out.steps = integration.steps();
      return out;
    }
    if (y.lpNorm<Eigen::Infinity>() > growth) {
      Eigen::Index at = 0;
      y.maxCoeff(&at);
      throw NotSettledError(
          "the " + settings.label + " trajectory grows without bound: " + system.describe(at) +
              " reaches " + show(y[at]) + " at model time " + show(integration.time()) +
              " (the model is not bounded; no "
              "equilibrium)",
          integration.time(), relativeDrift(system, y), system.name(at));
    }
  }
}

std::vector<Eigen::VectorXd> integrate(const DriftSystem& system, std::span<const double> times,
                                       const OdeSettings& settings, Clock::time_point start,
                                       gspn::ProgressLine& progress, std::uint64_t& steps) {
  for (double t : times)
    if (!(t >= 0) || !std::isfinite(t))
      throw std::invalid_argument("each time must be a finite number at least 0");
  std::vector<std::size_t> order(times.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return times[a] < times[b]; });
  Integration integration(system, settings, start, progress);
  std::vector<Eigen::VectorXd> out(times.size());
  for (std::size_t i : order) {
    integration.advance(times[i]);
    out[i] = integration.amounts();
  }
  steps += integration.steps();
  return out;
}

Stability stability(const DriftSystem& system, const Eigen::VectorXd& y) {
  Stability out;
  const Eigen::MatrixXd& basis = system.basis();
  if (basis.cols() > 0) {
    const Eigen::MatrixXd reduced = basis.transpose() * system.jacobian(y) * basis;
    const Eigen::EigenSolver<Eigen::MatrixXd> eigen(reduced, false);
    out.spectralAbscissa = eigen.eigenvalues().real().maxCoeff();
  }
  out.stable = out.spectralAbscissa < -1e-9 * system.slowestRate();
  out.neutral = !out.stable && out.spectralAbscissa <= 1e-9 * system.slowestRate();
  return out;
}

namespace {

/// The eigenvectors of the Gram matrix V Vᵀ whose eigenvalues are not 0 to rounding.
Eigen::MatrixXd gramRange(const Eigen::MatrixXd& gram) {
  if (gram.rows() == 0) return gram;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(gram);
  const Eigen::VectorXd& values = eigen.eigenvalues();  // ascending
  const double threshold = 1e-9 * std::max(1.0, values.maxCoeff());
  Eigen::Index first = 0;
  while (first < values.size() && values[first] <= threshold) ++first;
  return eigen.eigenvectors().rightCols(values.size() - first);
}

}  // namespace

Eigen::MatrixXd rangeBasis(const Eigen::MatrixXd& v) { return gramRange(v * v.transpose()); }

Eigen::MatrixXd rangeBasis(const Eigen::SparseMatrix<double>& v) {
  return gramRange(Eigen::MatrixXd(v * v.transpose()));
}

}  // namespace mmt::fluid
