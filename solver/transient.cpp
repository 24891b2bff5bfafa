#include "solver/transient.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "gspn/progress.hpp"

namespace mmt::solver {

namespace {

using Index = Eigen::Index;

/// λ beyond which consecutive iterate counts are no longer doubles (2^53): a window there
/// is never reached, and the iterates must become stationary first.
constexpr double kLargestWindowRate = 9007199254740992.0;

/// Products between two looks at the distance to the limit.
constexpr std::uint64_t kLimitCheck = 8;

/// Products after which a limit not yet reached no longer ends the iterations alone.
constexpr std::uint64_t kLimitPatience = 1 << 16;

/// ln p_m for the Poisson(λ) mode m = ⌊λ⌋: −λ + m ln λ − ln m!, written so that no large
/// terms cancel: (m − λ) + m·ln(1 + (λ − m)/m) − (ln m! − m ln m + m), the last bracket by
/// Stirling's series (Abramowitz & Stegun 6.1.41), accurate to 1e-16 relative for m ≥ 10.
double logPoissonMode(double lambda, double m) {
  if (m < 10) return -lambda + m * std::log(lambda) - std::lgamma(m + 1);
  constexpr double kPi = 3.14159265358979323846;
  const double stirling = 0.5 * std::log(2 * kPi * m) + 1 / (12 * m) - 1 / (360 * m * m * m) +
                          1 / (1260 * m * m * m * m * m);
  return (m - lambda) + m * std::log1p((lambda - m) / m) - stirling;
}

/// The weight of iterate k for each requested time: a Poisson window (the distribution at
/// t) or the weights (1 − F(k)) / λ of the time average. The window is computed when the
/// iterations first reach poissonWindowStart: a large λ whose chain becomes stationary long
/// before never builds it (at λ = 10^15 it would hold 4·10^8 weights), and a λ past 2^53,
/// or infinite, never does. Below the window the weights are 0, or 1/λ for the average.
class TimeWeights {
 public:
  TimeWeights(double lambda, double epsilon, bool cumulative)
      : lambda_(lambda),
        // Half of ε goes to truncation, the other half to steady-state detection; the time
        // average gives half of its half to each tail of the window.
        epsilon_(cumulative && lambda > 0 ? epsilon / 4 : epsilon / 2),
        cumulative_(cumulative && lambda > 0),
        start_(poissonWindowStart(lambda, epsilon_)) {
    if (start_ == 0) build();
  }
  /// The last iterate with a weight, or UINT64_MAX while the window is not built.
  std::uint64_t last() const {
    return built_ ? window_.right : std::numeric_limits<std::uint64_t>::max();
  }
  /// Whether some iterate can still get a weight from this time's window.
  bool reachable() const { return start_ != std::numeric_limits<std::uint64_t>::max(); }
  /// Iterate k's weight, for k = 0, 1, 2, … in turn (the window is built at start_).
  double weight(std::uint64_t k) {
    if (!built_ && k >= start_) build();
    if (!built_ || k < window_.left) return cumulative_ ? 1 / lambda_ : 0;
    if (k > window_.right) return 0;
    return (cumulative_ ? average_ : window_.weights)[k - window_.left];
  }

 private:
  void build() {
    built_ = true;
    window_ = poissonWindow(lambda_, epsilon_);
    if (cumulative_) extendForAverage();
  }
  /// Time average: iterate k weighs (1 − F(k)) / λ, and Σ_k (1 − F(k)) = λ. Below the
  /// window F(k) < ε/4, so those iterates weigh 1/λ (an error under ε/4 in all, as there
  /// are at most λ of them). Beyond its right end R the weights left out sum to
  /// Σ_{j>R} (j − R) p_j / λ ≤ p_{R+1} / ((1 − ρ)² λ), ρ = λ / (R + 2): the window grows
  /// until that is under ε/4.
  void extendForAverage() {
    double next = window_.weights.back() * lambda_ / double(window_.right + 1);
    for (;;) {
      const double rho = lambda_ / double(window_.right + 2);
      if (rho < 1 && next / ((1 - rho) * (1 - rho)) <= epsilon_ * lambda_) break;
      window_.weights.push_back(next);
      window_.mass += next;
      ++window_.right;
      next *= lambda_ / double(window_.right + 1);
    }
    // Iterates below the window weigh 1/λ; the table holds the window's own.
    average_.resize(window_.weights.size());
    double below = 0;  // F(k)
    for (std::size_t i = 0; i < average_.size(); ++i) {
      below += window_.weights[i];
      average_[i] = std::max(0.0, 1 - below) / lambda_;
    }
  }

  double lambda_, epsilon_;
  bool cumulative_;
  std::uint64_t start_;
  bool built_ = false;
  PoissonWindow window_;
  std::vector<double> average_;
};

/// Decides when the iterates have stopped changing: the 1-norm changes d_k = ‖v_{k+1} − v_k‖₁
/// of the last kHistory products shrink by at most a factor r < 1 each, so that all later
/// changes together are at most d_k · r / (1 − r) (a geometric tail); stationary when that
/// is at most ε/4, or at once when d_k = 0.
class StationarityTest {
 public:
  explicit StationarityTest(double epsilon) : bound_(epsilon / 4) {}
  bool operator()(double change) {
    if (change == 0) return true;
    changes_.push_back(change);
    if (changes_.size() > kHistory + 1) changes_.pop_front();
    if (changes_.size() <= kHistory) return false;
    double r = 0;
    for (std::size_t i = 1; i < changes_.size(); ++i)
      r = std::max(r, changes_[i] / changes_[i - 1]);
    return r < 1 && change * r / (1 - r) <= bound_;
  }

 private:
  static constexpr std::size_t kHistory = 16;
  double bound_;
  std::deque<double> changes_;
};

/// A weighted sum the step adds its result to: into += weight · next.
struct Accumulation {
  double weight;
  double* into;
};

/// next = v P with P = I + Q/rate, and each accumulation's weight · next added to its sum
/// in the same pass (a separate pass would read v and the sum again). Returns
/// ‖next − v‖₁ when `Change`, and ‖next − limit‖₁ when `Distance` (each 0 otherwise): the
/// extra reads cost a product about a tenth of its time, so the caller asks only when it
/// will look.
template <bool Change, bool Distance>
std::pair<double, double> uniformizedStep(const Generator& q, double rate, const double* x,
                                          double* y, Index n, const double* limit,
                                          const std::vector<Accumulation>& sums) {
  double changed = 0, distance = 0;
  const double scale = 1 / rate;
  const Accumulation* add = sums.data();
  const std::size_t adds = sums.size();
#pragma omp parallel for reduction(+ : changed, distance) schedule(static) if (n >= 50'000)
  for (Index j = 0; j < n; ++j) {
    const double delta = (q.inflow(std::size_t(j), x) - x[j] * q.exitRate[j]) * scale;
    const double next = x[j] + delta;
    y[j] = next;
    for (std::size_t a = 0; a < adds; ++a) add[a].into[j] += add[a].weight * next;
    if constexpr (Change) changed += std::abs(delta);
    if constexpr (Distance) distance += std::abs(next - limit[j]);
  }
  return {changed, distance};
}

/// uniformizedStep with the sums asked for: the change when `change`, the distance to the
/// limit when one is given.
std::pair<double, double> uniformizedStep(const Generator& q, double rate, const Eigen::VectorXd& v,
                                          Eigen::VectorXd& next, bool change,
                                          const Eigen::VectorXd* limit,
                                          const std::vector<Accumulation>& sums) {
  const double *x = v.data(), *pi = limit ? limit->data() : nullptr;
  double* y = next.data();
  const Index n = v.size();
  if (pi && change) return uniformizedStep<true, true>(q, rate, x, y, n, pi, sums);
  if (pi) return uniformizedStep<false, true>(q, rate, x, y, n, pi, sums);
  if (change) return uniformizedStep<true, false>(q, rate, x, y, n, nullptr, sums);
  return uniformizedStep<false, false>(q, rate, x, y, n, nullptr, sums);
}

}  // namespace

PoissonWindow poissonWindow(double lambda, double epsilon) {
  if (!(lambda >= 0) || !std::isfinite(lambda) || lambda > 9e15)
    throw std::invalid_argument("the Poisson rate must be finite and at least 0");
  if (!(epsilon > 0 && epsilon < 1))
    throw std::invalid_argument("the truncation error must be in (0, 1)");
  PoissonWindow out;
  if (lambda == 0) {
    out.weights = {1.0};
    out.mass = 1;
    return out;
  }
  const double mode = std::floor(lambda);
  const double pMode = std::exp(logPoissonMode(lambda, mode));
  std::deque<double> weights{pMode};
  std::uint64_t left = std::uint64_t(mode), right = left;
  double mass = pMode, below = pMode, above = pMode;  // p_left, p_right
  // Grow towards the larger neighbour: the shortest window with the mass.
  while (mass < 1 - epsilon) {
    const double nextBelow = left > 0 ? below * double(left) / lambda : 0;
    const double nextAbove = above * lambda / double(right + 1);
    if (nextBelow == 0 && nextAbove == 0) break;  // underflow: nothing left to add
    if (nextBelow > nextAbove) {
      weights.push_front(nextBelow);
      below = nextBelow;
      --left;
      mass += nextBelow;
    } else {
      weights.push_back(nextAbove);
      above = nextAbove;
      ++right;
      mass += nextAbove;
    }
  }
  out.left = left;
  out.right = right;
  out.weights.assign(weights.begin(), weights.end());
  out.mass = mass;
  return out;
}

std::uint64_t poissonWindowStart(double lambda, double epsilon) {
  if (!(lambda <= kLargestWindowRate)) return std::numeric_limits<std::uint64_t>::max();
  const double tail = std::log(2 / epsilon);
  const double below = std::sqrt(2 * lambda * tail);
  const double above = tail + std::sqrt(tail * tail + 2 * lambda * tail);
  const double start = std::floor(lambda) - std::ceil(below + above) - 2;
  return start > 0 ? std::uint64_t(start) : 0;
}

TransientResult solveTransient(const Generator& q,
                               const std::vector<std::pair<std::uint32_t, double>>& initial,
                               const TransientSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  const Index n = static_cast<Index>(q.size());
  TransientResult out;
  const double maxExit = n > 0 ? q.exitRate.maxCoeff() : 0;
  out.rate = maxExit > 0 ? 1.02 * maxExit : 1;

  std::vector<TimeWeights> weights;
  for (double t : settings.times)
    weights.emplace_back(out.rate * t, settings.epsilon, settings.cumulative);
  // The iterations end at the last window's right end, or go on until the iterates are
  // stationary while some window is not built yet.
  auto lastIterate = [&] {
    std::uint64_t last = 0;
    for (const TimeWeights& w : weights) last = std::max(last, w.last());
    return last;
  };
  const bool unreachable = std::any_of(weights.begin(), weights.end(),
                                       [](const TimeWeights& w) { return !w.reachable(); });
  out.distributions.assign(settings.times.size(), Eigen::VectorXd::Zero(n));
  std::vector<double> given(settings.times.size(), 0.0);

  Eigen::VectorXd v = Eigen::VectorXd::Zero(n), next(n);
  for (const auto& [state, p] : initial) v[state] += p;
  StationarityTest stationary(settings.epsilon);
  gspn::ProgressLine progress(settings.progress);
  // Iterate k's weights: iterate 0 here, each later one added by the product that makes it.
  std::vector<Accumulation> sums;
  auto weigh = [&](std::uint64_t k) {
    sums.clear();
    for (std::size_t i = 0; i < weights.size(); ++i)
      if (const double w = weights[i].weight(k); w > 0) {
        sums.push_back({w, out.distributions[i].data()});
        given[i] += w;
      }
  };
  weigh(0);
  for (const Accumulation& a : sums)
    for (Index j = 0; j < n; ++j) a.into[j] += a.weight * v[j];
  for (std::uint64_t k = 0, last = lastIterate(); k < last; ++k) {
    if (settings.interrupt && settings.interrupt->load(std::memory_order_relaxed)) {
      out.status = Status::Interrupted;
      out.note = "interrupted";
      break;
    }
    // With a limit, the distance to it is looked at every kLimitCheck-th product. A window
    // that is never reached needs the iterates to become stationary, and a limit computed
    // less accurately than ε/4 would never be reached: past kLimitPatience products the
    // changes are watched as well.
    const bool checkLimit = settings.limit && (k + 1) % kLimitCheck == 0;
    const bool watchChange = !settings.limit || (unreachable && k >= kLimitPatience);
    weigh(k + 1);
    last = lastIterate();
    // Not a structured binding: the progress lambda below captures the change.
    double change = 0, distance = 0;
    std::tie(change, distance) = uniformizedStep(q, out.rate, v, next, watchChange,
                                                 checkLimit ? settings.limit : nullptr, sums);
    v.swap(next);
    out.iterations = k + 1;
    // P contracts distances between distributions in the 1-norm, so once v is within ε/4
    // of the limit every later iterate is within ε/2 of v.
    if ((checkLimit && distance <= settings.epsilon / 4) || (watchChange && stationary(change))) {
      // Every later iterate equals v within ε/2: it takes the weight not given yet (this
      // one's was added by the product).
      for (std::size_t i = 0; i < weights.size(); ++i)
        out.distributions[i] += std::max(0.0, 1 - given[i]) * v;
      if (k + 1 < last) out.stationaryAt = k + 1;
      break;
    }
    progress.report([&](double) {
      std::ostringstream line;
      line << "transient: iteration " << k + 1;
      if (last != std::numeric_limits<std::uint64_t>::max()) line << " of " << last;
      line << ", change " << change;
      return line.str();
    });
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace mmt::solver
