// The relaxations of the steady state: Gauss–Seidel, SOR, IAD (aggregation over a place's
// levels), the power method, and the accuracy check's correction (steady_state_methods.hpp).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <ostream>
#include <sstream>
#include <type_traits>
#include <utility>

#include "gspn/progress.hpp"
#include "gspn/writers.hpp"
#include "solver/accuracy.hpp"
#include "solver/steady_state_methods.hpp"

namespace mmt::solver::methods {
namespace {

/// In-place relaxation sweeps x_j ← (1−ω) x_j + ω Σ_{i≠j} x_i q_ij / |q_jj|: Gauss–Seidel
/// at ω = 1, SOR otherwise (Stewart §3.2.2, §3.3). A chain of at least `blockStates`
/// states is swept as two blocks of consecutive states at once, on two cores: Gauss–Seidel
/// within each block, each block reading the other's values of the previous sweep (block
/// Jacobi between the two; Stewart §3.4). In breadth-first order few edges cross the
/// middle, so the sweeps converge almost as fast as one block's (Kanban N = 5: 200 sweeps
/// against 190) at nearly two cores' speed (19.5 ms a sweep against 34). Only the values
/// the other block reads are copied into the snapshot. The arithmetic does not depend on
/// the thread count: one thread sweeps the two blocks in turn, from the same snapshot. So
/// the sweeper times itself and uses one thread where two have been slower lately, as
/// when another process holds the other core, where OpenMP's barrier waits for a
/// descheduled thread at every sweep. Beside a busy loop the two threads' probes and the
/// extra sweeps cost about a fifth of the time one thread would take.
class RelaxationSweep {
 public:
  RelaxationSweep(const Generator& q, std::size_t blockStates)
      : q_(q), n_(static_cast<Index>(q.size())) {
    if (blockStates == 0 || q.size() < blockStates) return;
    const Index half = n_ / 2;
    std::size_t crossing = 0;
    std::vector<char> read(q.size(), 0);  // a source the other block reads
    for (Index j = 0; j < n_; ++j)
      for (int k = q.offset[j]; k < q.offset[j + 1]; ++k)
        if ((q.source(k) < half) != (j < half)) {
          ++crossing;
          read[std::size_t(q.source(k))] = 1;
        }
    if (crossing > kMostCrossing * static_cast<double>(q.entries())) return;
    half_ = half;
    // Indexed by state but written only at the shared states: left uninitialised, the
    // pages no shared state falls in are never touched and never resident.
    previous_.reset(new double[static_cast<std::size_t>(n_)]);
    for (Index i = 0; i < n_; ++i)
      if (read[std::size_t(i)]) shared_[i < half ? 0 : 1].push_back(i);
  }

  /// One sweep of x at ω. Returns the lowest value it wrote at ω ≠ 1 (negative: x is no
  /// longer a probability vector, as over-relaxation can make it), and 0 at ω = 1.
  double operator()(double* x, double omega = 1.0) {
    if (half_ == 0) return sweep(x, 0, n_, omega, [&](Index j) { return q_.inflow(j, x); });
    const Index bounds[3] = {0, half_, n_};
    double* previous = previous_.get();
    // Two threads, or one where that has been faster lately (another process on the
    // other core): every sixteenth sweep tries the other count. The bits are the same.
    const int threads = ++count_ % 16 == 0 ? 3 - fasterThreads() : fasterThreads();
    const auto start = Clock::now();
    double lowest[2];
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
      for (int b = 0; b < 2; ++b)
        for (Index i : shared_[b]) previous[i] = x[i];
#pragma omp for schedule(static)
      for (int b = 0; b < 2; ++b) {
        const auto lo = static_cast<int>(bounds[b]), hi = static_cast<int>(bounds[b + 1]);
        lowest[b] = sweep(x, lo, hi, omega,
                          [&](Index j) { return q_.inflowSplit(j, x, previous, lo, hi); });
      }
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    double& mean = meanSeconds_[threads - 1];
    mean = mean == 0 ? seconds : 0.75 * mean + 0.25 * seconds;
    return std::min(lowest[0], lowest[1]);
  }

 private:
  /// 2 when two threads are allowed and have swept faster than one lately (or one has
  /// not been timed yet), else 1.
  int fasterThreads() const {
    if (omp_get_max_threads() < 2) return 1;
    return meanSeconds_[0] == 0 || meanSeconds_[1] == 0 || meanSeconds_[1] < meanSeconds_[0] ? 2
                                                                                             : 1;
  }

  /// Sweeps states [lo, hi) of x with `inflow(j)`, the flow into j (one block: read from
  /// x alone, without the test of inflowSplit on every entry); returns the lowest value
  /// written at ω ≠ 1, and 0 at ω = 1 (Gauss–Seidel writes none below 0).
  template <typename Inflow>
  double sweep(double* x, Index lo, Index hi, double omega, Inflow inflow) const {
    if (omega == 1.0) {
      for (Index j = lo; j < hi; ++j) x[j] = inflow(j) / q_.exitRate[j];
      return 0;
    }
    double lowest = INFINITY;
    for (Index j = lo; j < hi; ++j) {
      x[j] = (1 - omega) * x[j] + omega * inflow(j) / q_.exitRate[j];
      lowest = std::min(lowest, x[j]);
    }
    return lowest;
  }

  /// Most entries crossing between the halves, as a fraction of all, for two blocks.
  /// Measured (solution seconds, one block -> two): Kanban N = 5, 5.5 % of the entries
  /// cross, 190 -> 200 sweeps, 1.6 times as fast per sweep; the ring, K = 8 N = 22, 3.5 %,
  /// 260 -> 310 sweeps, 2.3 -> 1.9-2.7 s; FMS N = 6, whose breadth-first order puts 68 % of
  /// the entries more than n/20 states from their column, 15.5 %, 180 -> 240 sweeps,
  /// 1.2 -> 1.45 s: there one block is kept.
  static constexpr double kMostCrossing = 0.1;

  const Generator& q_;
  Index n_;
  Index half_ = 0;  ///< first state of the second block; 0 when swept as one block
  std::unique_ptr<double[]> previous_;  ///< the shared states' values at the start of the sweep
  std::vector<Index> shared_[2];        ///< the states of each block the other block reads
  std::size_t count_ = 0;               ///< two-block sweeps so far
  double meanSeconds_[2] = {0, 0};      ///< recent seconds per sweep on 1 and 2 threads
};

/// Chains of up to this many blocks are aggregated into a dense coupling matrix solved by
/// GTH (8 MB, about 0.1 s at the limit); larger ones are solved by solveSteadyState.
constexpr std::size_t kDenseCouplingLimit = 1000;

/// Solves the aggregated chain of a coupling matrix too large for GTH by Auto, to the
/// caller's tolerance, without levels of its own; the vector is empty when that fails.
std::function<Vector(const Generator&)> coarseSolver(const SteadyStateSettings& s) {
  return [s](const Generator& c) {
    SteadyStateSettings inner = s;
    inner.method = Method::Auto;
    inner.run.progress = nullptr;
    inner.levels = nullptr;
    SteadyStateResult cr = solveSteadyState(c, inner);
    return cr.status == Status::Converged ? cr.pi : Vector();
  };
}

/// The error estimate of Gauss–Seidel and SOR (Relaxation::settled) against the tolerance.
constexpr double kErrorEstimateRatio = 10;

/// Gauss–Seidel (ω = 1) or SOR: π_j ← (1−ω) π_j + ω Σ_{i≠j} π_i q_ij / |q_jj|, in place
/// (Stewart §3.2.2, §3.3). With no relaxation factor given, SOR adapts ω: starting from
/// Gauss–Seidel it raises ω by 0.1 after each residual check while the residual falls
/// faster than at the previous ω, and steps back and keeps ω once it does not (or once an
/// iterate stops being a probability vector, which restores the last good iterate). In
/// `stallCheck` mode it gives up as soon as the recent rate of decrease predicts more than
/// 2000 further sweeps, or before the trial below more than 5000 (farBehind), so that Auto
/// can switch method. With a `trialRelaxation` ω > 1
/// (Gauss–Seidel under Auto), once the residual has fallen at two checks in a row, the
/// next two checking periods are swept at ω from a copy of the iterate (the first period
/// after a change of ω is a transient): SOR is kept if it ends below 0.7 times where
/// Gauss–Seidel's last rate would have taken the residual, and otherwise, or as soon as
/// the residual grows tenfold, the copy is restored and Gauss–Seidel goes on. A kept SOR
/// is dropped, back to its best iterate, if its residual stays above its best for two
/// checks; either is dropped if an iterate stops being a probability vector (the trial at
/// the sweep that writes a negative value, not at the next check). The note
/// says what became of the trial. With `levels` (Method::IAD), every
/// residual check is followed by one aggregation–disaggregation step over those blocks
/// (Stewart §6.3: the sweeps are its disaggregation smoothing), the first before any sweep;
/// given the `startResidual` of its start (Auto's trial of a candidate place), it gives up
/// unless its residual after kAggregationTrialChecks checks is below a tenth of that.
class Relaxation {
 public:
  Relaxation(const Generator& q, const SteadyStateSettings& s, Method method, bool stallCheck,
             Vector start, const BlockPartition* levels, double trialRelaxation,
             double startResidual)
      : q_(q),
        s_(s),
        method_(method),
        stallCheck_(stallCheck),
        levels_(levels),
        trialRelaxation_(trialRelaxation),
        startResidual_(startResidual),
        n_(static_cast<Index>(q.size())),
        omega_(method == Method::SOR && s.relaxation > 0 ? s.relaxation : 1.0),
        adapting_(method == Method::SOR && !(s.relaxation > 0)),
        progress_(s.run.progress),
        name_(method == Method::SOR   ? "SOR"
              : method == Method::IAD ? "IAD"
                                      : "Gauss-Seidel"),
        checkEvery_(n_ > 100'000 ? 10 : 5),
        trial_(trialRelaxation > 1 && method == Method::GaussSeidel ? Trial::Waiting : Trial::Over),
        coarse_(coarseSolver(s)),
        relax_(q, s.blockSweepStates) {
    r_.method = method;
    r_.pi =
        start.size() == n_ ? std::move(start) : Vector::Constant(n_, 1.0 / static_cast<double>(n_));
    if (adapting_) good_ = r_.pi;
  }

  /// Sweeps to the end; called once, as the result is moved out of the object.
  SteadyStateResult run() {
    for (std::size_t sweep = 1; sweep <= s_.maxIterations; ++sweep) {
      if (s_.run.interrupted()) return interruptedResult(std::move(r_));
      if (levels_ && (sweep - 1) % checkEvery_ == 0 && !aggregate()) return std::move(r_);
      const double lowest = relax_(r_.pi.data(), omega_);
      r_.iterations = sweep;
      // A trial of over-relaxation that makes a probability negative ends at that sweep,
      // not at the check (FMS N = 6 and the ring: at its first or second sweep).
      if (trial_ == Trial::Running && !(lowest >= 0)) {
        endTrial("it produced values that are not probabilities");
        continue;
      }
      if (sweep % checkEvery_ != 0 && sweep != s_.maxIterations) continue;
      if (!normalise(r_.pi)) {
        if (backOff()) continue;
        return std::move(r_);
      }
      r_.residual = relativeResidual(q_, r_.pi);
      progress_.report(solvingLine(trialSweeping() ? "SOR at " + gspn::formatNumber(omega_) : name_,
                                   sweep, r_.residual));
      if (settled()) return converged();
      if (startResidual_ > 0 && sweep == kAggregationTrialChecks * checkEvery_ &&
          r_.residual > 0.1 * startResidual_)
        return notConverged("IAD " + gspn::formatNumber(double(sweep)) +
                            " sweeps lowered the residual from " + show(startResidual_) + " to " +
                            show(r_.residual) + ", not tenfold");
      // Within the tolerance but not yet the error estimate: a residual that stops
      // falling ends the sweeps with what it has.
      const bool stuck = watch_.stuck(r_.residual);
      if (r_.residual <= s_.tolerance && (stuck || sweep == s_.maxIterations)) return converged();
      if (stuck)
        return notConverged(
            watch_.note(toString(r_.method), checkEvery_, "sweeps") +
            (omega_ != 1.0 ? " (relaxation " + gspn::formatNumber(omega_) + ")" : std::string()));
      if (trial_ == Trial::Running) {
        judgeTrial();
        continue;
      }
      if (extrapolate(sweep)) continue;
      if (trial_ == Trial::Kept && !keepSor(sweep)) continue;
      if (const double left = stallCheck_ && trial_ == Trial::Waiting ? farBehind() : 0;
          left > kTrialGain * kStallSweeps)
        return notConverged(toString(r_.method) + " would take some " +
                            gspn::formatNumber(std::round(left)) + " more sweeps at its rate " +
                            "(residual " + show(r_.residual) + " after " + std::to_string(sweep) +
                            " sweeps)");
      if (startTrial(sweep)) continue;
      adapt();
      history_.push_back(r_.residual);
      if (stallCheck_ && stalled())
        return notConverged(toString(r_.method) +
                            (r_.residual <= s_.tolerance
                                 ? " reached the tolerance but its error estimate " +
                                       show(r_.errorEstimate) +
                                       " falls too slowly (a slowly mixing chain)"
                                 : " stalled at residual " + show(r_.residual)) +
                            " after " + std::to_string(sweep) + " sweeps");
      if (!trialSweeping()) {
        // The check's iterate, for the next check's error estimate and extrapolation.
        saved_ = r_.pi;
        savedIsLastCheck_ = true;
        if (trial_ == Trial::Over && !adapting_ && !levels_) previousAt_ = sweep;
      }
    }
    r_.iterationLimit = true;
    return notConverged(toString(r_.method) + " did not reach the tolerance in " +
                        std::to_string(s_.maxIterations) + " sweeps");
  }

 private:
  /// Auto's trial of over-relaxation: Waiting for Gauss–Seidel's rate to settle, Running
  /// (the two periods swept at trialRelaxation), Kept (SOR from then on), Over
  /// (Gauss–Seidel from then on).
  enum class Trial { Waiting, Running, Kept, Over };

  /// Sweeping at trialRelaxation: SOR for the note, the progress line and the result.
  bool trialSweeping() const { return trial_ == Trial::Running || trial_ == Trial::Kept; }

  /// One aggregation–disaggregation step (IAD); false, with the result set, on failure.
  bool aggregate() {
    if (!normalise(r_.pi)) {
      r_.status = Status::NumericalIssue;
      r_.note = "iad produced values that are not probabilities";
      return false;
    }
    if (!aggregateDisaggregate(q_, *levels_, r_.pi, kDenseCouplingLimit, coarse_)) {
      r_.status = Status::NumericalIssue;
      r_.note = "iad could not solve the aggregated chain of " +
                std::to_string(levels_->blockCount) + " levels";
      return false;
    }
    return true;
  }

  /// An iterate that is not a probability vector: the trial is dropped, or an over-relaxed
  /// SOR backs off to its last good iterate (true: sweep on); otherwise the result says so.
  bool backOff() {
    if (trialSweeping()) {
      endTrial("it produced values that are not probabilities");
      return true;
    }
    if (omega_ > 1.0 && good_.size() == n_) {  // over-relaxed too far: back off
      r_.pi = good_;
      savedIsLastCheck_ = false;
      omega_ = tenths(std::max(1.0, omega_ - 0.2));
      adapting_ = false;
      return true;
    }
    r_.status = Status::NumericalIssue;
    r_.note = toString(method_) + " produced values that are not probabilities";
    if (omega_ != 1.0) r_.note += " (relaxation " + gspn::formatNumber(omega_) + ")";
    return false;
  }

  /// At every residual check: whether the residual is within the tolerance and the
  /// estimate of the error too. The iteration contracts the error by about ρ per checking
  /// period (the residual's ratio over the last one), so ‖π_k − π*‖₁ ≈ ‖π_k − π_{k−1}‖₁ ρ /
  /// (1 − ρ) (Stewart §3.2.4); it must be at most kErrorEstimateRatio times the tolerance.
  /// Kanban N = 4 at the residual's 1e-10 alone: throughputs 1.4e-8 from a 1e-14 solve
  /// (estimate 1.8e-8); ten sweeps on, 1.3e-11. π_{k−1} is saved_ where it holds the last
  /// check's iterate (savedIsLastCheck_), so no vector of its own is held; where the trial
  /// of over-relaxation holds an older one there, no estimate is made and sweeps go on.
  bool settled() {
    const double rho = std::min(r_.residual / checkResidual_, 0.999);
    double estimate = INFINITY;
    if (savedIsLastCheck_ && saved_.size() == n_ && rho >= 0)
      estimate = (r_.pi - saved_).lpNorm<1>() * rho / (1 - rho);
    savedIsLastCheck_ = false;
    checkResidual_ = r_.residual;
    r_.errorEstimate = estimate;
    if (!(r_.residual <= s_.tolerance)) return false;
    if (withinAt_ == 0) withinAt_ = r_.iterations;
    return estimate <= kErrorEstimateRatio * s_.tolerance;
  }

  SteadyStateResult converged() {
    r_.status = Status::Converged;
    r_.relaxation = omega_;
    if (method_ == Method::SOR) {
      r_.note = "relaxation factor " + gspn::formatNumber(omega_);
    } else if (trialSweeping()) {
      r_.method = Method::SOR;
      r_.note = std::to_string(trialSweep_) + " Gauss-Seidel sweeps, then SOR at " +
                gspn::formatNumber(omega_) + " (faster than Gauss-Seidel in a trial)";
    } else {
      r_.note = trialNote_;  // empty without a trial
    }
    noteExtrapolations();
    noteErrorEstimate();
    return std::move(r_);
  }

  /// Sweeps past the residual's tolerance for the error estimate, or an estimate that
  /// stayed above its target (the residual stopped falling first).
  void noteErrorEstimate() {
    std::string note;
    if (!(r_.errorEstimate <= kErrorEstimateRatio * s_.tolerance))
      note = "error estimate " + show(r_.errorEstimate) + " above " +
             show(kErrorEstimateRatio * s_.tolerance) + ": the residual stopped falling first";
    else if (withinAt_ > 0 && r_.iterations > withinAt_)
      note = std::to_string(r_.iterations - withinAt_) +
             " sweeps past the residual's tolerance, for the error estimate (" +
             show(r_.errorEstimate) + ")";
    if (!note.empty()) r_.note += (r_.note.empty() ? "" : "; ") + note;
  }

  void noteExtrapolations() {
    if (extrapolations_ > 0) r_.note += (r_.note.empty() ? "" : "; ") + extrapolationCount();
  }
  std::string extrapolationCount() const {
    return std::to_string(extrapolations_) +
           (extrapolations_ == 1 ? " extrapolation" : " extrapolations") +
           " along the slowest mode";
  }

  /// A result that is not converged: its note, after what became of the trial.
  SteadyStateResult notConverged(std::string note) {
    r_.status = Status::NoConvergence;
    if (extrapolations_ > 0) note += " (" + extrapolationCount() + ")";
    r_.note = trialNote_.empty() ? std::move(note) : trialNote_ + "; " + note;
    return std::move(r_);
  }

  void endTrial(const std::string& why) {
    r_.pi = std::move(saved_);
    saved_ = Vector();
    savedIsLastCheck_ = false;
    r_.residual = savedResidual_;
    omega_ = 1.0;
    trial_ = Trial::Over;
    r_.method = Method::GaussSeidel;
    trialNote_ = "SOR at " + gspn::formatNumber(trialRelaxation_) + " tried after " +
                 std::to_string(trialSweep_) + " sweeps and dropped (" + why + ")";
  }

  /// A check of the running trial. The first period at ω is a transient, judged after
  /// the second (unless the residual grew tenfold); after two, SOR is kept only if
  /// clearly ahead of Gauss–Seidel's pace.
  void judgeTrial() {
    if (++trialChecks_ == 1 && r_.residual <= 10 * savedResidual_) return;
    if (trialChecks_ == 2 && r_.residual <= 0.7 * expected_) {
      trial_ = Trial::Kept;
      saved_ = r_.pi;
      savedIsLastCheck_ = true;
      savedResidual_ = r_.residual;
      history_.clear();
    } else {
      endTrial(trialChecks_ == 1 ? "its residual grew tenfold" : "it was slower");
    }
  }

  /// A check of a kept SOR: its best iterate remembered; false when it is dropped, its
  /// residual above its best for two checks.
  bool keepSor(std::size_t sweep) {
    if (r_.residual < savedResidual_) {
      saved_ = r_.pi;
      savedIsLastCheck_ = true;
      savedResidual_ = r_.residual;
      previousAt_ = sweep;
      worseChecks_ = 0;
    } else if (++worseChecks_ == 2) {
      endTrial("its residual stopped falling");
      history_.clear();  // the rate changes with the method
      return false;
    }
    return true;
  }

  /// Extrapolation along the slowest mode, at a check once Auto's trial is over (or
  /// without one) and once SOR keeps its factor: where the residual fell by the same ratio R
  /// (within 5 %) over the last two checking periods, the error left is dominated by one
  /// mode that shrinks by R a period, about (π − π') R / (1 − R) summed over the periods
  /// to come, π' the previous check's iterate, and it is added at once unless a
  /// probability would turn negative (Aitken's Δ² extrapolation, vector-wise, as Kamvar,
  /// Haveliwala, Manning and Golub, "Extrapolation methods for accelerating PageRank
  /// computations", WWW 2003, §3, do for the power method). The sweeps after it damp
  /// what it adds to the faster modes. A period after it that ends above the residual it
  /// started from ends extrapolation for good. π' is the trial's saved iterate, which a
  /// kept SOR updates at every check where it improves, so no vector is added to the
  /// trial's. True when π was extrapolated (the check ends there).
  bool extrapolate(std::size_t sweep) {
    const double ratio = r_.residual / lastCheckResidual_, earlier = lastRatio_;
    lastCheckResidual_ = r_.residual;
    lastRatio_ = ratio;
    if (settling_ > 0) {
      if (--settling_ == 0 && r_.residual > beforeExtrapolation_) extrapolating_ = false;
      return false;
    }
    if (!extrapolating_ || trial_ == Trial::Waiting || adapting_ || levels_ ||
        previousAt_ + checkEvery_ != sweep || saved_.size() != n_ || !(ratio < 1) ||
        !(std::abs(ratio - earlier) <= 0.05 * ratio))
      return false;
    const double gain = ratio / (1 - ratio);
    double lowest = INFINITY;
    for (Index j = 0; j < n_; ++j)
      lowest = std::min(lowest, r_.pi[j] + gain * (r_.pi[j] - saved_[j]));
    if (!(lowest >= 0)) return false;
    // saved_ becomes the iterate before the extrapolation, the best so far.
    for (Index j = 0; j < n_; ++j) {
      const double extrapolated = r_.pi[j] + gain * (r_.pi[j] - saved_[j]);
      saved_[j] = r_.pi[j];
      r_.pi[j] = extrapolated;
    }
    normalise(r_.pi);
    savedResidual_ = beforeExtrapolation_ = r_.residual;
    previousAt_ = sweep;
    lastCheckResidual_ = lastRatio_ = INFINITY;
    settling_ = 1;
    savedIsLastCheck_ = true;
    ++extrapolations_;
    return true;
  }

  /// Starts the trial once Gauss–Seidel's residual has fallen at two checks in a row.
  bool startTrial(std::size_t sweep) {
    if (trial_ != Trial::Waiting || history_.size() < 2 || !(r_.residual < history_.back()) ||
        !(history_.back() < history_[history_.size() - 2]))
      return false;
    trial_ = Trial::Running;
    trialSweep_ = sweep;
    saved_ = r_.pi;
    savedIsLastCheck_ = true;
    savedResidual_ = r_.residual;
    expected_ = r_.residual * std::pow(r_.residual / history_.back(), 2);
    omega_ = trialRelaxation_;
    history_.push_back(r_.residual);
    return true;
  }

  /// SOR's adaptive factor. The check right after a change of ω is a warm-up; the next
  /// one measures its rate. Early checks see the fast decay of the start-up error, not the
  /// asymptotic rate: adaptation begins at the fourth check.
  void adapt() {
    if (method_ == Method::SOR && omega_ > 1.0) good_ = r_.pi;
    const double rate = r_.residual / last_;
    last_ = r_.residual;
    if (adapting_ && history_.size() >= 3 && std::isfinite(rate) && !(warmup_ = !warmup_)) {
      if (rate < 0.95 * bestRate_ && omega_ < 1.9) {
        bestRate_ = rate;
        omega_ = tenths(std::min(1.9, omega_ + 0.1));
        good_ = r_.pi;
      } else {
        omega_ = tenths(std::max(1.0, omega_ - 0.1));
        adapting_ = false;
      }
    }
  }

  /// At the rate of the last five checks, reaching the tolerance would take more than
  /// kStallSweeps further sweeps (or the residual is not falling at all).
  bool stalled() const {
    const std::size_t h = history_.size();
    if (h < 6) return false;
    const double perCheck = std::pow(history_[h - 1] / history_[h - 6], 1.0 / 5);
    return !(perCheck < 1) || sweepsLeft(perCheck) > kStallSweeps;
  }

  /// Before Auto's trial of over-relaxation, the sweeps Gauss–Seidel still needs at the
  /// slower of its last two rates, where it fell at both (else 0). A rate measured this
  /// early is faster than the asymptotic one, as the start-up error decays first; past
  /// kTrialGain · kStallSweeps not even the trial's best gain would bring it within
  /// kStallSweeps, and it stalls at once. The tandem queue, c = 1023: 0.972 and 0.995 a
  /// check by sweep 30, some 14,000 sweeps to go, so 40 sweeps and the trial are spared
  /// before IAD; Kanban, FMS and the ring fall by 0.4 to 0.75 a check there.
  double farBehind() const {
    const std::size_t h = history_.size();
    if (h < 2 || !(r_.residual < history_[h - 1]) || !(history_[h - 1] < history_[h - 2])) return 0;
    return sweepsLeft(std::max(r_.residual / history_[h - 1], history_[h - 1] / history_[h - 2]));
  }

  /// The sweeps that falling by `perCheck` (< 1) a check takes to the tolerance, or within
  /// it to the error estimate's target.
  double sweepsLeft(double perCheck) const {
    const double behind = r_.residual <= s_.tolerance
                              ? kErrorEstimateRatio * s_.tolerance / r_.errorEstimate
                              : s_.tolerance / r_.residual;
    return std::log(behind) / std::log(perCheck) * double(checkEvery_);
  }

  /// Sweeps still to go past which a method stalls (stallCheck), so that Auto switches.
  static constexpr double kStallSweeps = 2000;
  /// The most over-relaxation has cut Gauss–Seidel's sweeps by in the benchmarks (Kanban
  /// N = 5 at ω = 1.2: 200 to 80).
  static constexpr double kTrialGain = 2.5;

  const Generator& q_;
  const SteadyStateSettings& s_;
  const Method method_;
  const bool stallCheck_;
  const BlockPartition* levels_;
  const double trialRelaxation_;
  const double startResidual_;  // Auto's IAD: the start's residual, for the trial (0: none)
  const Index n_;
  SteadyStateResult r_;
  std::string trialNote_;  // what became of Auto's trial of over-relaxation
  double omega_;
  bool adapting_;
  Vector good_;
  double bestRate_ = INFINITY, last_ = INFINITY;
  bool warmup_ = true;
  gspn::ProgressLine progress_;
  const std::string name_;
  // The residual costs about half a sweep (it runs on every core): check every few sweeps.
  const std::size_t checkEvery_;
  std::vector<double> history_;
  ProgressWatch watch_;
  Trial trial_;
  // Running: the iterate before the trial; Kept: the best SOR iterate; otherwise the last
  // check's iterate (for the error estimate and the extrapolation)
  Vector saved_;
  bool savedIsLastCheck_ = false;  // saved_ holds the last check's iterate
  double checkResidual_ = INFINITY;
  std::size_t withinAt_ = 0;  // the first sweep whose residual met the tolerance
  double savedResidual_ = INFINITY, expected_ = 0;
  std::size_t trialSweep_ = 0, trialChecks_ = 0, worseChecks_ = 0;
  // Extrapolation: the sweep whose iterate saved_ holds (0: none), the last check's
  // residual and its ratio to the one before, checks left before the ratios mean
  // anything again, and the residual the last extrapolation started from.
  std::size_t previousAt_ = 0, extrapolations_ = 0;
  double lastCheckResidual_ = INFINITY, lastRatio_ = INFINITY, beforeExtrapolation_ = INFINITY;
  int settling_ = 0;
  bool extrapolating_ = s_.extrapolate;
  const std::function<Vector(const Generator&)> coarse_;
  RelaxationSweep relax_;
};

}  // namespace

SteadyStateResult solveRelaxation(const Generator& q, const SteadyStateSettings& s, Method method,
                                  bool stallCheck, Vector start, const BlockPartition* levels,
                                  double trialRelaxation, double startResidual) {
  return Relaxation(q, s, method, stallCheck, std::move(start), levels, trialRelaxation,
                    startResidual)
      .run();
}

/// Power method on the uniformised chain P = I + Q/Λ, Λ = 1.02 · max exit rate (Stewart
/// §3.1): π ← π P. Each step is one product with Q, split across cores.
SteadyStateResult solvePower(const Generator& q, const SteadyStateSettings& s) {
  const Index n = static_cast<Index>(q.size());
  SteadyStateResult r;
  r.method = Method::Power;
  r.pi = Vector::Constant(n, 1.0 / static_cast<double>(n));
  Vector next(n);
  const double lambda = 1.02 * q.exitRate.largest();
  gspn::ProgressLine progress(s.run.progress);
  const std::size_t checkEvery = 10;
  ProgressWatch watch;
  for (std::size_t step = 1; step <= s.maxIterations; ++step) {
    if (s.run.interrupted()) return interruptedResult(std::move(r));
    const double* x = r.pi.data();
#pragma omp parallel for schedule(static) if (n >= kParallelStates)
    for (Index j = 0; j < n; ++j) next[j] = x[j] + (q.inflow(j, x) - x[j] * q.exitRate[j]) / lambda;
    r.pi.swap(next);
    r.iterations = step;
    if (step % checkEvery != 0 && step != s.maxIterations) continue;
    if (!normalise(r.pi)) {
      r.status = Status::NumericalIssue;
      r.note = "the power method produced values that are not probabilities";
      return r;
    }
    r.residual = relativeResidual(q, r.pi);
    progress.report(solvingLine("power", step, r.residual));
    if (r.residual <= s.tolerance) {
      r.status = Status::Converged;
      return r;
    }
    if (watch.stuck(r.residual)) {
      r.status = Status::NoConvergence;
      r.note = watch.note("the power method", checkEvery, "steps");
      return r;
    }
  }
  r.status = Status::NoConvergence;
  r.iterationLimit = true;
  r.note = "the power method did not reach the tolerance in " + std::to_string(s.maxIterations) +
           " steps";
  return r;
}

namespace {

/// True when the two partitions group the states alike (block numbers aside), as the
/// levels of complementary places do.
bool samePartition(const BlockPartition& a, const BlockPartition& b) {
  if (a.blockCount != b.blockCount) return false;
  std::vector<std::uint32_t> image(a.blockCount, UINT32_MAX);
  for (std::size_t i = 0; i < a.blockOf.size(); ++i) {
    std::uint32_t& to = image[a.blockOf[i]];
    if (to == UINT32_MAX)
      to = b.blockOf[i];
    else if (to != b.blockOf[i])
      return false;
  }
  return true;  // a map between equally many non-empty blocks that is onto: a bijection
}

}  // namespace

/// The places whose levels IAD tries, best first, at most `limit`. Aggregation pays where
/// the slow modes of Gauss–Seidel are the masses of the levels: the transitions between
/// levels carry at most half of the chain's total rate (Stewart §6.3 asks for weak
/// coupling between the blocks), there are at least two levels and at least 8 states per
/// level on average (else the aggregated chain is nearly the chain itself). More levels
/// first (the longer the aggregated chain, the slower the modes GS leaves in it), then
/// less rate between levels; a partition already listed is skipped. Only the
/// `kPlacesExamined` places with the widest token range are examined (each costs a pass
/// over the states and one over the generator; a ring of 1,500 places would otherwise
/// cost 1,500 passes).
std::vector<LevelCandidate> levelCandidates(const Generator& q, const LevelSource& source,
                                            std::size_t limit) {
  constexpr std::size_t kPlacesExamined = 16;
  const std::size_t n = q.size();
  double total = 0;
  for (std::size_t k = 0; k < q.entries(); ++k) total += q.rate(k);
  std::vector<LevelCandidate> out;
  auto better = [](const LevelCandidate& a, const LevelCandidate& b) {
    if (a.partition.blockCount != b.partition.blockCount)
      return a.partition.blockCount > b.partition.blockCount;
    return a.crossFraction < b.crossFraction;
  };
  const std::vector<std::uint64_t> spans = source.spans();
  std::vector<std::size_t> places;
  for (std::size_t p = 0; p < spans.size(); ++p)
    if (spans[p] >= 2) places.push_back(p);
  std::stable_sort(places.begin(), places.end(),
                   [&](std::size_t a, std::size_t b) { return spans[a] > spans[b]; });
  if (places.size() > kPlacesExamined) places.resize(kPlacesExamined);
  for (std::size_t p : places) {
    LevelCandidate c{source.placeName(p), source.levels(p), 0};
    const std::uint32_t blocks = c.partition.blockCount;
    if (blocks < 2 || std::size_t(blocks) * 8 > n) continue;
    double cross = 0;
    for (std::size_t j = 0; j < n; ++j)
      for (int k = q.offset[j]; k < q.offset[j + 1]; ++k)
        if (c.partition.blockOf[std::size_t(q.source(k))] != c.partition.blockOf[j])
          cross += q.rate(k);
    c.crossFraction = total > 0 ? cross / total : 1.0;
    if (c.crossFraction > 0.5) continue;
    if (std::any_of(out.begin(), out.end(), [&](const LevelCandidate& o) {
          return samePartition(o.partition, c.partition);
        }))
      continue;
    out.insert(std::upper_bound(out.begin(), out.end(), c, better), std::move(c));
    if (out.size() > limit) out.pop_back();
  }
  return out;
}

/// "over the levels of place sm (1024 levels)"
std::string levelsNote(const LevelCandidate& c) {
  return "over the levels of place " + c.place + " (" + std::to_string(c.partition.blockCount) +
         " levels)";
}

/// Method::IAD on its own: the best candidate place, or NumericalIssue saying why none.
SteadyStateResult solveIAD(const Generator& q, const SteadyStateSettings& s) {
  const std::vector<LevelCandidate> candidates =
      s.levels ? levelCandidates(q, *s.levels, 1) : std::vector<LevelCandidate>{};
  if (candidates.empty()) {
    SteadyStateResult r;
    r.method = Method::IAD;
    r.status = Status::NumericalIssue;
    r.note = s.levels ? "iad found no place whose levels couple weakly (at most half of the "
                        "rate between levels, at least two levels of 8 states on average)"
                      : "iad needs the net's places to group the states by level";
    return r;
  }
  SteadyStateResult r =
      solveRelaxation(q, s, Method::IAD, false, {}, &candidates.front().partition);
  r.note = "aggregated " + levelsNote(candidates.front()) + (r.note.empty() ? "" : "; " + r.note);
  return r;
}

namespace {

/// Rounds of correction (an aggregation–disaggregation step where a block fails, then
/// Gauss–Seidel sweeps) before a result that fails the accuracy check is given up.
constexpr std::size_t kCorrectionRounds = 50;
constexpr int kSweepsPerRound = 10;

/// The accuracy check of solver/accuracy.hpp on a converged result (every state's and every
/// block's flow imbalance, as the probability it displaces, within the tolerance), with its
/// correction:
/// where a block of a nearly-decomposable partition is out of balance, one step of
/// aggregation–disaggregation; then Gauss–Seidel sweeps for the states. A small chain that
/// still fails is solved again by GTH; a larger one becomes Inaccurate, saying where.
}  // namespace

void checkAccuracy(const Generator& q, const SteadyStateSettings& s, SteadyStateResult& r) {
  const double target = s.tolerance;
  const std::vector<BlockPartition> partitions = nearlyDecomposablePartitions(q);
  FlowImbalance worst = flowImbalance(q, r.pi, partitions);
  const FlowImbalance first = worst;
  std::size_t rounds = 0, sweeps = 0;
  bool coarseFailed = false;
  int roundSweeps = kSweepsPerRound;
  RelaxationSweep relax(q, s.blockSweepStates);
  while (worst.error > target && rounds < kCorrectionRounds) {
    ++rounds;
    const bool aggregating = worst.partition != FlowImbalance::kState;
    if (aggregating) {
      if (!aggregateDisaggregate(q, partitions[worst.partition], r.pi, kDenseCouplingLimit,
                                 coarseSolver(s))) {
        coarseFailed = true;
        break;
      }
      ++r.aggregations;
    }
    // At SOR's converged factor: the slow modes it sped up are the ones left (Kanban N = 7:
    // 50 Gauss–Seidel sweeps after SOR at 1.2).
    for (int k = 0; k < roundSweeps; ++k) relax(r.pi.data(), r.relaxation);
    sweeps += std::size_t(roundSweeps);
    if (!normalise(r.pi)) {
      coarseFailed = true;
      break;
    }
    const double before = worst.error;
    worst = flowImbalance(q, r.pi, partitions);
    roundSweeps = aggregating || worst.partition != FlowImbalance::kState
                      ? kSweepsPerRound
                      : correctionSweeps(before, worst.error, roundSweeps, target, kSweepsPerRound);
  }
  r.imbalance = worst.error;
  if (rounds == 0) return;
  r.iterations += sweeps;
  r.residual = relativeResidual(q, r.pi);
  const std::string sweepsName = r.relaxation == 1
                                     ? " Gauss-Seidel sweeps"
                                     : " SOR sweeps at " + gspn::formatNumber(r.relaxation);
  std::ostringstream note;
  note << "the " << toString(r.method) << " result was out of flow balance by " << first.error
       << " at " << first.describe(partitions, s.stateNumber)
       << ", which its residual does not show; ";
  if (worst.error <= target && r.residual <= s.tolerance) {
    note << "corrected by " << r.aggregations << " aggregation-disaggregation step"
         << (r.aggregations == 1 ? "" : "s") << " and " << sweeps << sweepsName << " (imbalance "
         << worst.error << ")";
    r.note += (r.note.empty() ? "" : "; ") + note.str();
    return;
  }
  if (q.size() <= s.directLimit && r.method != Method::GTH) {
    // Small enough to solve again by GTH, which needs no check to be accurate.
    SteadyStateResult exact = solveGTH(q);
    if (exact.status == Status::Converged) {
      note << "solved again by GTH";
      exact.note = (r.note.empty() ? "" : r.note + "; ") + note.str();
      exact.iterations += r.iterations;
      exact.imbalance = flowImbalance(q, exact.pi, partitions).error;
      r = std::move(exact);
      return;
    }
  }
  r.status = Status::Inaccurate;
  if (coarseFailed)
    note << "the aggregated chain could not be solved";
  else
    note << "still " << worst.error << " at " << worst.describe(partitions, s.stateNumber)
         << " after " << r.aggregations << " aggregation-disaggregation steps and " << sweeps
         << sweepsName << " (target " << target << ")";
  r.note += (r.note.empty() ? "" : "; ") + note.str();
}

}  // namespace mmt::solver::methods
