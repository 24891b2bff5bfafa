#include "fluid/solve.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <sstream>

#include "gspn/progress.hpp"

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
  const ContinuousNet* net;
  void operator()(const State& x, State& dxdt, double /*t*/) const {
    const Eigen::VectorXd d = net->drift(toEigen(x));
    for (Eigen::Index i = 0; i < d.size(); ++i) dxdt[static_cast<std::size_t>(i)] = d[i];
  }
};
struct DriftJacobian {
  const ContinuousNet* net;
  void operator()(const State& x, Matrix& jacobian, double /*t*/, State& dfdt) const {
    const Eigen::MatrixXd j = net->jacobian(toEigen(x));
    for (Eigen::Index r = 0; r < j.rows(); ++r)
      for (Eigen::Index c = 0; c < j.cols(); ++c)
        jacobian(static_cast<std::size_t>(r), static_cast<std::size_t>(c)) = j(r, c);
    std::fill(dfdt.begin(), dfdt.end(), 0.0);
  }
};

/// An orthonormal basis of range(C), places × rank: the eigenvectors of C Cᵀ whose
/// eigenvalues are not 0 (to rounding).
Eigen::MatrixXd rangeBasis(const Eigen::SparseMatrix<double>& incidence) {
  const Eigen::MatrixXd gram = Eigen::MatrixXd(incidence * incidence.transpose());
  if (gram.rows() == 0) return gram;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(gram);
  const Eigen::VectorXd& values = eigen.eigenvalues();  // ascending
  const double threshold = 1e-9 * std::max(1.0, values.maxCoeff());
  Eigen::Index first = 0;
  while (first < values.size() && values[first] <= threshold) ++first;
  return eigen.eigenvectors().rightCols(values.size() - first);
}

/// ‖F(x)‖∞ / max_t f_t(x), the relative drift (0 when nothing flows).
double relativeDrift(const ContinuousNet& net, const Eigen::VectorXd& x) {
  const Eigen::VectorXd f = net.flows(x);
  const double largest = f.size() ? f.maxCoeff() : 0.0;
  if (!(largest > 0)) return 0;
  return (net.incidence() * f).lpNorm<Eigen::Infinity>() / largest;
}

/// Damped Newton on Zᵀ F(x) = 0 over x ∈ x + range(Z); true when the relative drift
/// reaches `tolerance` with every amount ≥ 0 (rounding below 0 set to 0).
bool newton(const ContinuousNet& net, const Eigen::MatrixXd& basis, double tolerance,
            Eigen::VectorXd& x, std::uint64_t& iterations) {
  Eigen::VectorXd at = x;
  double drift = relativeDrift(net, at);
  for (int k = 0; k < 60 && drift > tolerance; ++k) {
    const Eigen::VectorXd f = net.drift(at);
    const Eigen::MatrixXd reduced = basis.transpose() * net.jacobian(at) * basis;
    const Eigen::VectorXd step =
        basis * reduced.completeOrthogonalDecomposition().solve(-(basis.transpose() * f));
    const double floor = -1e-12 * std::max(1.0, at.lpNorm<Eigen::Infinity>());
    bool moved = false;
    for (double damping = 1; damping > 1e-6 && !moved; damping /= 2) {
      const Eigen::VectorXd next = at + damping * step;
      if (next.minCoeff() < floor) continue;
      const double nextDrift = relativeDrift(net, next);
      if (!(nextDrift < drift)) continue;
      at = next;
      drift = nextDrift;
      moved = true;
    }
    ++iterations;
    if (!moved) return false;
  }
  if (!(drift <= tolerance)) return false;
  x = at.cwiseMax(0.0);
  return true;
}

std::string largestDriftPlace(const gspn::Net& net, const ContinuousNet& continuous,
                              const Eigen::VectorXd& x) {
  Eigen::Index at = 0;
  const Eigen::VectorXd d = continuous.drift(x);
  if (d.size() == 0) return "";
  d.cwiseAbs().maxCoeff(&at);
  return net.place(static_cast<gspn::PlaceId>(at)).name;
}

std::string show(double v) {
  std::ostringstream out;
  out.precision(3);
  out << v;
  return out.str();
}

/// Integrates one continuous net; checks the interrupt, the time limit and the growth.
class Integration {
 public:
  Integration(const gspn::Net& net, const ContinuousNet& continuous, const FluidSettings& settings,
              Clock::time_point start, gspn::ProgressLine& progress)
      : net_(net),
        continuous_(continuous),
        settings_(settings),
        start_(start),
        progress_(progress),
        stepper_(1e-10 * std::max(1.0, continuous.initial().lpNorm<Eigen::Infinity>()), 1e-8),
        x_(toState(continuous.initial())),
        dt_(1e-6 / continuous.fastestRate()) {}

  /// Advances to model time `until`.
  void advance(double until) {
    const auto system = std::make_pair(Drift{&continuous_}, DriftJacobian{&continuous_});
    while (t_ < until) {
      double dt = std::min(dt_, until - t_);
      const bool clipped = dt < dt_;
      if (stepper_.try_step(system, x_, t_, dt) == odeint::fail) {
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
      throw InterruptedError("the fluid integration was interrupted");
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    const Eigen::VectorXd x = amounts();
    if (seconds > settings_.timeLimit)
      throw NotSettledError(
          "the fluid trajectory did not settle in " + show(settings_.timeLimit) +
              " s of integration: at model time " + show(t_) + " the drift is " +
              show(relativeDrift(continuous_, x)) + " of the largest flow, most on place " +
              largestDriftPlace(net_, continuous_, x) +
              " (an oscillation, or a net that does not settle)",
          t_, relativeDrift(continuous_, x), largestDriftPlace(net_, continuous_, x));
    progress_.report([&](double) {
      return "fluid: model time " + show(t_) + ", " + std::to_string(steps_) + " steps, drift " +
             show(relativeDrift(continuous_, x));
    });
  }
  Eigen::VectorXd amounts() const { return toEigen(x_); }
  double time() const { return t_; }
  std::uint64_t steps() const { return steps_; }

 private:
  const gspn::Net& net_;
  const ContinuousNet& continuous_;
  const FluidSettings& settings_;
  Clock::time_point start_;
  gspn::ProgressLine& progress_;
  odeint::rosenbrock4_controller<odeint::rosenbrock4<double>> stepper_;
  State x_;
  double t_ = 0, dt_;
  std::uint64_t steps_ = 0;
};

void checkSize(const gspn::Net& net, const FluidSettings& settings) {
  if (net.placeCount() > settings.maxPlaces)
    throw UnsupportedNet(net.name(), "the net has " + std::to_string(net.placeCount()) +
                                         " places; the fluid solver holds its Jacobian densely "
                                         "(places × places) for at most " +
                                         std::to_string(settings.maxPlaces));
}

/// The equilibrium of one continuous net: integrated from x₀ over doubling horizons, with
/// Newton's method tried whenever the drift is below 10⁻³ of the largest flow.
Eigen::VectorXd settle(const gspn::Net& net, const ContinuousNet& continuous,
                       const Eigen::MatrixXd& basis, const FluidSettings& settings,
                       Clock::time_point start, gspn::ProgressLine& progress, Equilibrium& out) {
  Integration integration(net, continuous, settings, start, progress);
  const double growth = 1e12 * std::max(1.0, continuous.initial().lpNorm<Eigen::Infinity>());
  for (double horizon = 1 / continuous.fastestRate();; horizon *= 2) {
    integration.advance(horizon);
    integration.check();
    Eigen::VectorXd x = integration.amounts();
    if (relativeDrift(continuous, x) < 1e-3 &&
        newton(continuous, basis, settings.tolerance, x, out.newtonIterations)) {
      out.settledAt = integration.time();
      out.steps += integration.steps();
      return x;
    }
    if (x.lpNorm<Eigen::Infinity>() > growth) {
      Eigen::Index at = 0;
      x.maxCoeff(&at);
      const std::string place = net.place(static_cast<gspn::PlaceId>(at)).name;
      throw NotSettledError("the fluid trajectory grows without bound: place " + place + " holds " +
                                show(x[at]) + " tokens at model time " + show(integration.time()) +
                                " (the net is not bounded; no equilibrium)",
                            integration.time(), relativeDrift(continuous, x), place);
    }
  }
}

}  // namespace

Equilibrium equilibrium(const gspn::Net& net, const FluidSettings& settings) {
  checkSize(net, settings);
  const auto start = Clock::now();
  gspn::ProgressLine progress(settings.run.progress);
  Equilibrium out;
  const ContinuousNet once(net, settings.immediateSpeed);
  const Eigen::MatrixXd basis = rangeBasis(once.incidence());
  Eigen::VectorXd x = settle(net, once, basis, settings, start, progress, out);
  Eigen::VectorXd f = once.flows(x);
  const ContinuousNet* last = &once;
  std::optional<ContinuousNet> twice;
  if (once.hasImmediate()) {
    // Richardson: x*(K) = x* + c/K + O(1/K²).
    twice.emplace(net, 2 * settings.immediateSpeed);
    Eigen::VectorXd x2 = x;
    if (!newton(*twice, basis, settings.tolerance, x2, out.newtonIterations))
      x2 = settle(net, *twice, basis, settings, start, progress, out);
    const Eigen::VectorXd f2 = twice->flows(x2);
    x = (2 * x2 - x).cwiseMax(0.0);
    f = (2 * f2 - f).cwiseMax(0.0);
    last = &*twice;
    out.extrapolated = true;
  }
  out.amounts = x;
  out.flows = f;
  const double largest = f.size() ? f.maxCoeff() : 0.0;
  out.dead = !(largest > 0);
  out.residual = out.dead ? 0 : (once.incidence() * f).lpNorm<Eigen::Infinity>() / largest;
  if (basis.cols() > 0) {
    const Eigen::MatrixXd reduced = basis.transpose() * last->jacobian(x) * basis;
    const Eigen::EigenSolver<Eigen::MatrixXd> eigen(reduced, false);
    out.spectralAbscissa = eigen.eigenvalues().real().maxCoeff();
  }
  out.stable = out.spectralAbscissa < -1e-9 * once.slowestRate();
  out.neutral = !out.stable && out.spectralAbscissa <= 1e-9 * once.slowestRate();
  out.kinks = once.kinks(x, 1e-6);
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

Trajectory trajectory(const gspn::Net& net, std::span<const double> times,
                      const FluidSettings& settings) {
  checkSize(net, settings);
  for (double t : times)
    if (!(t >= 0) || !std::isfinite(t))
      throw std::invalid_argument("each time must be a finite number at least 0");
  const auto start = Clock::now();
  gspn::ProgressLine progress(settings.run.progress);
  Trajectory out;
  out.times.assign(times.begin(), times.end());
  std::vector<std::size_t> order(times.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return times[a] < times[b]; });
  // One run per K; each gives x and f at every time, in the order asked.
  const auto run = [&](double speed, std::vector<Eigen::VectorXd>& amounts,
                       std::vector<Eigen::VectorXd>& flows) {
    const ContinuousNet continuous(net, speed);
    Integration integration(net, continuous, settings, start, progress);
    amounts.assign(times.size(), {});
    flows.assign(times.size(), {});
    for (std::size_t i : order) {
      integration.advance(times[i]);
      amounts[i] = integration.amounts();
      flows[i] = continuous.flows(amounts[i]);
    }
    out.steps += integration.steps();
    return continuous.hasImmediate();
  };
  if (run(settings.immediateSpeed, out.amounts, out.flows)) {
    std::vector<Eigen::VectorXd> amounts, flows;
    run(2 * settings.immediateSpeed, amounts, flows);
    for (std::size_t i = 0; i < times.size(); ++i) {
      out.amounts[i] = (2 * amounts[i] - out.amounts[i]).cwiseMax(0.0);
      out.flows[i] = (2 * flows[i] - out.flows[i]).cwiseMax(0.0);
    }
    out.extrapolated = true;
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

}  // namespace mmt::fluid
