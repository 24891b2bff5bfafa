#include "fluid/solve.hpp"

#include <chrono>
#include <cmath>
#include <optional>

#include "gspn/progress.hpp"

namespace mmt::fluid {
namespace {

using Clock = std::chrono::steady_clock;

/// A continuous net as the ODE engine reads it: its places' amounts, dx/dt = C f(x).
class NetDrift final : public DriftSystem {
 public:
  NetDrift(const gspn::Net& net, const ContinuousNet& continuous, const Eigen::MatrixXd& basis)
      : net_(net), continuous_(continuous), basis_(basis) {}
  const Eigen::VectorXd& initial() const override { return continuous_.initial(); }
  Eigen::VectorXd drift(const Eigen::VectorXd& x) const override { return continuous_.drift(x); }
  Eigen::MatrixXd jacobian(const Eigen::VectorXd& x) const override {
    return continuous_.jacobian(x);
  }
  double flowScale(const Eigen::VectorXd& x) const override {
    const Eigen::VectorXd f = continuous_.flows(x);
    return f.size() ? f.maxCoeff() : 0.0;
  }
  const Eigen::MatrixXd& basis() const override { return basis_; }
  double fastestRate() const override { return continuous_.fastestRate(); }
  double slowestRate() const override { return continuous_.slowestRate(); }
  std::string name(Eigen::Index i) const override {
    return net_.place(static_cast<gspn::PlaceId>(i)).name;
  }
  std::string describe(Eigen::Index i) const override { return "place " + name(i); }

 private:
  const gspn::Net& net_;
  const ContinuousNet& continuous_;
  const Eigen::MatrixXd& basis_;
};

void checkSize(const gspn::Net& net, const FluidSettings& settings) {
  if (net.placeCount() > settings.maxPlaces)
    throw UnsupportedNet(net.name(), "the net has " + std::to_string(net.placeCount()) +
                                         " places; the fluid solver holds its Jacobian densely "
                                         "(places × places) for at most " +
                                         std::to_string(settings.maxPlaces));
}

}  // namespace

Equilibrium equilibrium(const gspn::Net& net, const FluidSettings& settings) {
  checkSize(net, settings);
  const auto start = Clock::now();
  gspn::ProgressLine progress(settings.run.progress);
  const OdeSettings ode = odeSettings(settings, "fluid");
  Equilibrium out;
  const ContinuousNet once(net, settings.immediateSpeed);
  const Eigen::MatrixXd basis = rangeBasis(once.incidence());
  const NetDrift onceDrift(net, once, basis);
  Settled settled = settle(onceDrift, ode, start, progress);
  out.take(settled);
  Eigen::VectorXd x = std::move(settled.amounts);
  Eigen::VectorXd f = once.flows(x);
  const ContinuousNet* last = &once;
  std::optional<ContinuousNet> twice;
  if (once.hasImmediate()) {
    // Richardson: x*(K) = x* + c/K + O(1/K²).
    twice.emplace(net, 2 * settings.immediateSpeed);
    const NetDrift twiceDrift(net, *twice, basis);
    Eigen::VectorXd x2 = x;
    if (!newton(twiceDrift, settings.tolerance, x2, out.newtonIterations)) {
      Settled again = settle(twiceDrift, ode, start, progress);
      out.settledAt = again.time;
      out.steps += again.steps;
      out.newtonIterations += again.newtonIterations;
      x2 = std::move(again.amounts);
    }
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
  out.take(stability(NetDrift(net, *last, basis), x));
  out.kinks = once.kinks(x, 1e-6);
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

Trajectory trajectory(const gspn::Net& net, std::span<const double> times,
                      const FluidSettings& settings) {
  checkSize(net, settings);
  const auto start = Clock::now();
  gspn::ProgressLine progress(settings.run.progress);
  const OdeSettings ode = odeSettings(settings, "fluid");
  Trajectory out;
  out.times.assign(times.begin(), times.end());
  // One run per K; each gives x and f at every time, in the order asked.
  const auto run = [&](double speed, std::vector<Eigen::VectorXd>& amounts,
                       std::vector<Eigen::VectorXd>& flows) {
    const ContinuousNet continuous(net, speed);
    const Eigen::MatrixXd none;
    amounts = integrate(NetDrift(net, continuous, none), times, ode, start, progress, out.steps);
    flows.clear();
    for (const Eigen::VectorXd& x : amounts) flows.push_back(continuous.flows(x));
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
