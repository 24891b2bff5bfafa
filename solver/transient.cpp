#include "solver/transient.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "gspn/progress.hpp"
#include "solver/sliced_columns.hpp"
#include "solver/subnormals.hpp"

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

/// Products over the states held (HeldStates) start once kHeldAfter products in a row
/// have left at most 1/kHoldFraction of the chain's states holding probability (so that a
/// distribution that spreads over the chain in its first products never builds the rows),
/// and go on while at most 1/kHeldFraction hold it.
constexpr std::uint64_t kHeldAfter = 32;
constexpr std::size_t kHoldFraction = 32;
constexpr std::size_t kHeldFraction = 16;
/// While many states hold probability, products between two that watch the entries (drop
/// those below the threshold and count those held).
constexpr std::uint64_t kWatchEvery = 8;

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
        // A quarter of ε goes to the window's truncation (the time average gives half of it
        // to each tail), a quarter to states dropped, half to steady-state detection.
        epsilon_(cumulative && lambda > 0 ? epsilon / 8 : epsilon / 4),
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

/// A weighted sum the step adds its iterates to: into += previous · v + weight · next, v the
/// iterate it multiplies and next the one it makes (previous is 0 but where a product over
/// every state pays a weight the product before it left owing: Products).
struct Accumulation {
  double weight;
  double* into;
  double previous = 0;
};

/// into += weight · v for each of `sums`, over n states.
void addWeighted(const std::vector<Accumulation>& sums, const double* v, Index n) {
  for (const Accumulation& a : sums)
#pragma omp parallel for schedule(static) if (n >= 50'000)
    for (Index j = 0; j < n; ++j) a.into[j] += a.weight * v[j];
}

/// What a product with P found besides the next iterate.
struct StepSums {
  double change = 0;     ///< ‖next − v‖₁, when asked for
  double distance = 0;   ///< ‖next − limit‖₁, when a limit is given
  double dropped = 0;    ///< probability set to 0 (entries below the threshold)
  std::size_t held = 0;  ///< entries of next that are not 0
};

/// The generator's columns one at a time, for products where it is not sliced
/// (SlicedColumns::of gives nothing): each its own slice.
struct SingleColumns {
  static constexpr std::size_t kSlice = 1;
  const Generator& q;
  std::size_t slices() const { return q.size(); }
  std::size_t inflows(std::size_t j, const double* x, double* into) const {
    into[0] = q.inflow(j, x);
    return 1;
  }
};

/// next = v P with P = I + Q/rate over `columns` (SlicedColumns or SingleColumns of q),
/// and each accumulation's previous · v + weight · next added to its sum in the same pass
/// (a separate pass would read v and the sum again). When `Watch`, entries below
/// `threshold` are set to 0 (and counted as dropped) and the entries not 0 counted; else
/// only those below 0 (rounding) are. Sums the change ‖next − v‖₁ when `Change` and the
/// distance ‖next − limit‖₁ when `Distance`. Each of the three costs a product over Kanban
/// N = 5 a tenth of its time or more, so the caller asks only when it will look.
template <bool Change, bool Distance, bool Watch, typename Columns>
StepSums uniformizedStep(const Columns& columns, const Generator& q, double rate, const double* x,
                         double* y, Index n, const double* limit, double threshold,
                         const std::vector<Accumulation>& sums) {
  double changed = 0, distance = 0, dropped = 0;
  std::size_t held = 0;
  const double scale = 1 / rate;
  const Accumulation* add = sums.data();
  const std::size_t adds = sums.size();
  const auto slices = static_cast<Index>(columns.slices());
#pragma omp parallel for reduction(+ : changed, distance, dropped, held) schedule(static) if (n >= 50'000)
  for (Index s = 0; s < slices; ++s) {
    double inflow[Columns::kSlice];
    const std::size_t count = columns.inflows(std::size_t(s), x, inflow);
    for (std::size_t c = 0; c < count; ++c) {
      const std::size_t j = std::size_t(s) * Columns::kSlice + c;
      const double sum = x[j] + (inflow[c] - x[j] * q.exitRate[j]) * scale;
      double next = std::max(sum, 0.0);
      if constexpr (Watch) {
        // Without a branch: which entries fall below the threshold need follow no pattern
        // a branch predictor learns. Kept, sum − next is exactly 0.
        const std::uint64_t keep = -std::uint64_t(sum >= threshold);
        next = std::bit_cast<double>(std::bit_cast<std::uint64_t>(sum) & keep);
        dropped += sum - next;
        held += next != 0;
      }
      y[j] = next;
      for (std::size_t a = 0; a < adds; ++a)
        add[a].into[j] += add[a].previous * x[j] + add[a].weight * next;
      if constexpr (Change) changed += std::abs(next - x[j]);
      if constexpr (Distance) distance += std::abs(next - limit[j]);
    }
  }
  return {changed, distance, dropped, held};
}

/// uniformizedStep with the sums asked for: the change when `change`, the distance to the
/// limit when one is given, the entries dropped and held when `watch`.
template <typename Columns>
StepSums uniformizedStep(const Columns& columns, const Generator& q, double rate,
                         const Eigen::VectorXd& v, Eigen::VectorXd& next, bool change,
                         const Eigen::VectorXd* limit, bool watch, double threshold,
                         const std::vector<Accumulation>& sums) {
  const double *x = v.data(), *pi = limit ? limit->data() : nullptr;
  double* y = next.data();
  const Index n = v.size();
  auto run = [&](auto change, auto distance, auto watch) {
    return uniformizedStep<decltype(change)::value, decltype(distance)::value,
                           decltype(watch)::value>(columns, q, rate, x, y, n, pi, threshold, sums);
  };
  auto watching = [&](auto change, auto distance) {
    return watch ? run(change, distance, std::true_type{})
                 : run(change, distance, std::false_type{});
  };
  auto measuring = [&](auto change) {
    return pi ? watching(change, std::true_type{}) : watching(change, std::false_type{});
  };
  return change ? measuring(std::true_type{}) : measuring(std::false_type{});
}

/// The generator's entries by source state (its transpose): where a product with P sends
/// the probability of the few states that hold it. 4 bytes an entry when the generator is
/// packed (the target and the rate's number in one word, as the generator's sources), 12
/// otherwise.
class OutEdges {
 public:
  explicit OutEdges(const Generator& q)
      : shift_(q.sourceBits), table_(q.packed() ? q.value.table().data() : nullptr) {
    const auto* words = reinterpret_cast<const std::uint32_t*>(q.index.data());
    build(q.size(), [&](std::size_t j, auto f) {
      for (auto k = std::size_t(q.offset[j]); k < std::size_t(q.offset[j + 1]); ++k) {
        if (q.packed())
          f(gspn::PackedEdge::state(words[k], shift_), gspn::PackedEdge::number(words[k], shift_),
            0.0);
        else
          f(std::uint32_t(q.source(k)), gspn::EdgeRates::Number{}, q.rate(k));
      }
    });
  }
  explicit OutEdges(const SlicedColumns& columns)
      : shift_(columns.shift()), table_(columns.table().data()) {
    build(columns.size(), [&](std::size_t j, auto f) {
      columns.forEachEntry(
          j, [&](std::uint32_t i, gspn::EdgeRates::Number number) { f(i, number, 0.0); });
    });
  }
  /// f(j, q_ij) for every entry of row i.
  template <typename F>
  void forEach(std::size_t i, F f) const {
    for (std::size_t k = offset_[i]; k < offset_[i + 1]; ++k) {
      if (table_)
        f(gspn::PackedEdge::state(word_[k], shift_),
          table_[gspn::PackedEdge::number(word_[k], shift_)]);
      else
        f(word_[k], rate_[k]);
    }
  }

 private:
  /// The rows from the columns: forEachIn(j, f) calls f(source, rate number, rate) for
  /// each entry of column j (the number where table_ is set, the rate where not).
  template <typename ForEachIn>
  void build(std::size_t n, ForEachIn forEachIn) {
    offset_.assign(n + 1, 0);
    for (std::size_t j = 0; j < n; ++j)
      forEachIn(j, [&](std::uint32_t i, gspn::EdgeRates::Number, double) { ++offset_[i + 1]; });
    for (std::size_t i = 0; i < n; ++i) offset_[i + 1] += offset_[i];
    std::vector<std::size_t> fill(offset_.begin(), offset_.end() - 1);
    word_.resize(offset_[n]);
    if (!table_) rate_.resize(offset_[n]);
    for (std::size_t j = 0; j < n; ++j)
      forEachIn(j, [&](std::uint32_t i, gspn::EdgeRates::Number number, double rate) {
        const std::size_t at = fill[i]++;
        if (table_) {
          word_[at] = gspn::PackedEdge::pack(std::uint32_t(j), number, shift_);
        } else {
          word_[at] = std::uint32_t(j);
          rate_[at] = rate;
        }
      });
  }

  unsigned shift_;
  std::vector<std::size_t> offset_;
  std::vector<std::uint32_t> word_;
  std::vector<double> rate_;
  const double* table_ = nullptr;
};

/// An iterate that is 0 outside a list of states, and the products with P that keep it so:
/// each costs the out-edges of the states held instead of every entry of the generator
/// (the fast adaptive uniformization of Mateescu, Wolf, Didier and Henzinger, "Fast
/// adaptive uniformisation of the chemical master equation", IET Systems Biology 4(6),
/// 2010, with the states below a threshold dropped and their probability counted).
class HeldStates {
 public:
  HeldStates(OutEdges edges, const Eigen::VectorXd& v)
      : edges_(std::move(edges)), mark_(std::size_t(v.size()), 0) {
    for (Index i = 0; i < v.size(); ++i)
      if (v[i] != 0) held_.push_back(std::uint32_t(i));
  }
  std::size_t size() const { return held_.size(); }
  /// As uniformizedStep, over the states held and their successors; `next` must be 0
  /// everywhere and is 0 outside the new list; v is 0 everywhere afterwards.
  StepSums step(const Generator& q, double rate, Eigen::VectorXd& v, Eigen::VectorXd& next,
                bool change, const Eigen::VectorXd* limit, double limitMass, double threshold,
                const std::vector<Accumulation>& sums) {
    const double scale = 1 / rate;
    double* y = next.data();
    auto send = [&](std::uint32_t j, double p) {
      if (!mark_[j]) {
        mark_[j] = 1;
        reached_.push_back(j);
      }
      y[j] += p;
    };
    for (std::uint32_t i : held_) {
      const double p = v[i];
      send(i, p - p * q.exitRate[i] * scale);
      edges_.forEach(i, [&](std::uint32_t j, double r) { send(j, p * r * scale); });
    }
    StepSums out;
    double limitHeld = 0;
    std::size_t kept = 0;
    for (std::uint32_t j : reached_) {
      double& p = y[j];
      if (p < threshold) {
        out.dropped += p;
        p = 0;
        mark_[j] = 0;
        continue;
      }
      reached_[kept++] = j;
      for (const Accumulation& a : sums) a.into[j] += a.weight * p;
      if (change) out.change += std::abs(p - v[j]);
      if (limit) {
        out.distance += std::abs(p - (*limit)[j]);
        limitHeld += (*limit)[j];
      }
    }
    reached_.resize(kept);
    // The limit's mass on states not held is their distance; so is v's on states dropped.
    if (limit) out.distance += std::max(0.0, limitMass - limitHeld);
    for (std::uint32_t i : held_) {
      if (change && !mark_[i]) out.change += v[i];
      v[i] = 0;
    }
    for (std::uint32_t j : reached_) mark_[j] = 0;
    held_.swap(reached_);
    reached_.clear();
    v.swap(next);
    out.held = held_.size();
    return out;
  }

 private:
  OutEdges edges_;
  std::vector<std::uint32_t> held_, reached_;
  std::vector<unsigned char> mark_;
};

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

namespace {

/// The products of one run with P = I + Q/rate: over every entry (in SlicedColumns where q
/// is packed), or over the states held
/// (HeldStates) once kHeldAfter products in a row have left at most 1/kHoldFraction of the
/// states holding probability, until more than 1/kHeldFraction hold it; entries below the
/// threshold dropped until the budget is spent.
///
/// A product over every state that would add its iterate to some sum leaves the weight
/// owing instead, and the next product adds both iterates (the one it multiplies and the
/// one it makes) in the same pass: each sum is read and written once every two products
/// (a product over Kanban N = 5 took 8.3 against 7.55 ms with a sum and without).
class Products {
 public:
  /// Over `sliced` where given, which then holds q's entries (q's own may be gone: its
  /// exit rates are read), else over q's columns.
  Products(const Generator& q, std::optional<SlicedColumns> sliced, double rate, double threshold,
           double budget, bool mayHold)
      : q_(q),
        rate_(rate),
        threshold_(threshold),
        budget_(budget),
        mayHold_(mayHold && threshold > 0),
        sliced_(std::move(sliced)) {}

  /// v ← v P (next is scratch, 0 everywhere between held products), `sums` the weights of
  /// the new v (previous 0), the dropped probability and held products counted into `out`.
  /// The weights may be added by the next step or settle(): call it before reading the sums.
  StepSums step(Eigen::VectorXd& v, Eigen::VectorXd& next, bool change,
                const Eigen::VectorXd* limit, double limitMass,
                const std::vector<Accumulation>& sums, TransientResult& out) {
    const std::size_t n = q_.size();
    if (out.dropped + threshold_ * double(n) > budget_) threshold_ = 0;
    StepSums step;
    if (held_) {
      step = held_->step(q_, rate_, v, next, change, limit, limitMass, threshold_, sums);
      ++out.heldProducts;
      out.mostHeld = std::max(out.mostHeld, step.held);
      // Spread over much of the chain: every entry from here on.
      if (step.held > n / kHeldFraction) {
        held_.reset();
        mayHold_ = false;
      }
    } else {
      // Owing nothing, this product owes its weights; else it pays them with its own.
      const bool owe = owed_.empty();
      paid_.clear();
      if (!owe) {
        for (const Accumulation& a : owed_) paid_.push_back({0.0, a.into, a.weight});
        for (const Accumulation& a : sums) {
          auto same = std::find_if(paid_.begin(), paid_.end(),
                                   [&](const Accumulation& b) { return b.into == a.into; });
          if (same == paid_.end())
            paid_.push_back(a);
          else
            same->weight = a.weight;
        }
      }
      // The entries are watched (dropped below the threshold, those held counted) only
      // while the products may go over the states held, and then every kWatchEvery-th
      // product until one leaves few states holding probability, every product after.
      const bool watch = mayHold_ && (fewHeld_ > 0 || ++unwatched_ >= kWatchEvery);
      if (watch) unwatched_ = 0;
      step = sliced_ ? uniformizedStep(*sliced_, q_, rate_, v, next, change, limit, watch,
                                       threshold_, paid_)
                     : uniformizedStep(SingleColumns{q_}, q_, rate_, v, next, change, limit, watch,
                                       threshold_, paid_);
      owed_ = owe ? sums : std::vector<Accumulation>();
      v.swap(next);
      if (watch) fewHeld_ = step.held <= n / kHoldFraction ? fewHeld_ + 1 : 0;
      if (mayHold_ && fewHeld_ >= kHeldAfter) {
        settle(v);
        held_.emplace(sliced_ ? OutEdges(*sliced_) : OutEdges(q_), v);
        next.setZero();  // the held products add into it
      }
    }
    out.dropped += step.dropped;
    return step;
  }
  /// Adds the weights owed to the iterate v (the last step's) to their sums.
  void settle(const Eigen::VectorXd& v) {
    addWeighted(owed_, v.data(), v.size());
    owed_.clear();
  }
  bool holding() const { return held_.has_value(); }

 private:
  const Generator& q_;
  double rate_, threshold_, budget_;
  bool mayHold_;
  std::uint64_t fewHeld_ = 0;  // products in a row that left few states holding probability
  std::uint64_t unwatched_ = kWatchEvery - 1;  // products since the last watched one
  std::optional<HeldStates> held_;
  std::optional<SlicedColumns> sliced_;  // q's columns in slices, where it is packed
  std::vector<Accumulation> owed_;       // weights of the last iterate, not added yet
  std::vector<Accumulation> paid_;       // the owed weights and a step's own, by sum
};

/// The drop threshold of a run: ε/4 in all over the products of the largest window (an
/// upper bound of its right end, so that the window need not be built), at most
/// threshold · n each; 0 (nothing dropped) when some window is never reached.
double dropThreshold(const TransientSettings& settings, double rate, std::size_t n,
                     bool unreachable) {
  std::uint64_t products = 0;
  for (double t : settings.times)
    products = std::max(products, poissonWindowEnd(rate * t, settings.epsilon / 8));
  if (unreachable || n == 0 || products >= (std::uint64_t(1) << 53)) return 0;
  return settings.epsilon / 4 / (double(products + 1) * double(n));
}

/// a + b of an interval [λ − a, λ + b] that holds at least 1 − ε of Poisson(λ): each tail
/// bound (poissonWindowStart) at ε/2.
double poissonIntervalLength(double lambda, double epsilon) {
  const double tail = std::log(2 / epsilon);
  const double below = std::sqrt(2 * lambda * tail);
  const double above = tail + std::sqrt(tail * tail + 2 * lambda * tail);
  return below + above;
}

}  // namespace

std::uint64_t poissonWindowStart(double lambda, double epsilon) {
  if (!(lambda <= kLargestWindowRate)) return std::numeric_limits<std::uint64_t>::max();
  const double start = std::floor(lambda) - std::ceil(poissonIntervalLength(lambda, epsilon)) - 2;
  return start > 0 ? std::uint64_t(start) : 0;
}

std::uint64_t poissonWindowEnd(double lambda, double epsilon) {
  if (!(lambda <= kLargestWindowRate)) return std::numeric_limits<std::uint64_t>::max();
  return std::uint64_t(std::floor(lambda) + std::ceil(poissonIntervalLength(lambda, epsilon)) + 2);
}

namespace {

/// solveTransient over q's columns, or over `sliced` where given (q's exit rates only are
/// read then).
TransientResult solveTransient(const Generator& q, std::optional<SlicedColumns> sliced,
                               const std::vector<std::pair<std::uint32_t, double>>& initial,
                               const TransientSettings& settings,
                               std::chrono::steady_clock::time_point start) {
  const FlushSubnormals flush;
  const Index n = static_cast<Index>(q.size());
  TransientResult out;
  const double maxExit = q.exitRate.largest();
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
  // Entries below the threshold are dropped, ε/4 in all. The products' copy of the
  // entries is made before the vectors are allocated.
  Products products(q, std::move(sliced), out.rate,
                    dropThreshold(settings, out.rate, q.size(), unreachable), settings.epsilon / 4,
                    q.size() >= settings.heldFrom);
  out.distributions.assign(settings.times.size(), Eigen::VectorXd::Zero(n));
  std::vector<double> given(settings.times.size(), 0.0);

  Eigen::VectorXd v = Eigen::VectorXd::Zero(n), next = Eigen::VectorXd::Zero(n);
  for (const auto& [state, p] : initial) v[state] += p;
  const double limitMass = settings.limit ? settings.limit->sum() : 0;

  StationarityTest stationary(settings.epsilon);
  gspn::ProgressLine progress(settings.run.progress);
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
  addWeighted(sums, v.data(), n);
  for (std::uint64_t k = 0, last = lastIterate(); k < last; ++k) {
    if (settings.run.interrupted()) {
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
    const StepSums step = products.step(v, next, watchChange, checkLimit ? settings.limit : nullptr,
                                        limitMass, sums, out);
    out.iterations = k + 1;
    // P contracts distances between distributions in the 1-norm, so once v is within ε/4
    // of the limit every later iterate is within ε/2 of v.
    if ((checkLimit && step.distance <= settings.epsilon / 4) ||
        (watchChange && stationary(step.change))) {
      // Every later iterate equals v within ε/2: it takes the weight not given yet (this
      // one's is added by the product or by settle below).
      for (std::size_t i = 0; i < weights.size(); ++i)
        out.distributions[i] += std::max(0.0, 1 - given[i]) * v;
      if (k + 1 < last) out.stationaryAt = k + 1;
      break;
    }
    progress.report([&](double) {
      std::ostringstream line;
      line << "transient: iteration " << k + 1;
      if (last != std::numeric_limits<std::uint64_t>::max()) line << " of " << last;
      if (products.holding()) line << ", " << step.held << " states held";
      line << ", change " << step.change;
      return line.str();
    });
  }
  products.settle(v);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

TransientResult solveTransient(const Generator& q,
                               const std::vector<std::pair<std::uint32_t, double>>& initial,
                               const TransientSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  return solveTransient(q, SlicedColumns::of(q), initial, settings, start);
}

TransientResult solveTransient(Generator&& q,
                               const std::vector<std::pair<std::uint32_t, double>>& initial,
                               const TransientSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<SlicedColumns> sliced = SlicedColumns::from(std::move(q));
  return solveTransient(q, std::move(sliced), initial, settings, start);
}

}  // namespace mmt::solver
