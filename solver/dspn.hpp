#pragma once
/// \file
/// The exact steady state of a deterministic and stochastic Petri net (DSPN): timed
/// transitions with a constant delay (`const(τ)`) fire exactly τ after they become enabled
/// (enabling memory: the clock restarts when the transition is disabled before it fires),
/// the others after exponential delays. Solvable exactly when at most one deterministic
/// transition is enabled in every tangible marking (M. Ajmone Marsan and G. Chiola, "On
/// Petri nets with deterministic and exponentially distributed firing times", 1987;
/// G. Ciardo, R. German and C. Lindemann, "A characterization of the stochastic process
/// underlying a stochastic Petri net", IEEE TSE 20(7), 1994; C. Lindemann, "Performance
/// Modelling with Deterministic and Stochastic Petri Nets", Wiley 1998, §2.3):
///
/// The process regenerates whenever it enters a marking with a fresh clock: after an
/// exponential firing in a marking where no deterministic transition is enabled, and when a
/// deterministic transition d becomes enabled. From a marking s where d has just become
/// enabled, the *subordinated* CTMC (the exponential transitions, on the markings where d
/// stays enabled, killed where a firing disables d) runs for τ_d: with Ω = e^{Q_d τ} and
/// Ψ = ∫₀^τ e^{Q_d u} du (uniformization, solver/transient.hpp), the embedded Markov chain
/// (EMC) goes from s to j with probability
///
///     P_sj = Σ_k Ω_sk Δ_kj + Σ_k Ψ_sk R_kj,
///
/// Δ the branching when d fires in k (through its vanishing markings) and R the rates of
/// the firings that disable d; the expected time in k per visit of s is C_sk = Ψ_sk. From a
/// marking without a deterministic transition, P_sj = q_sj / q_s and C_ss = 1 / q_s. With ν
/// the EMC's stationary distribution, π_k = Σ_s ν_s C_sk / Σ_s ν_s Σ_k C_sk. A
/// deterministic transition fires Σ_s ν_s Σ_k Ω_sk times per Σ_s ν_s Σ_k C_sk time units.

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gspn/measure_source.hpp"
#include "gspn/net.hpp"
#include "gspn/reachability.hpp"
#include "gspn/run_control.hpp"
#include "solver/measures.hpp"
#include "solver/steady_state.hpp"

namespace mmt::solver {

struct DspnSolution {
  enum class Status {
    Ok,
    /// Two deterministic transitions enabled in one tangible marking (or one enabled
    /// twice at once with several servers): `first`, `second` and `marking` say where.
    Concurrent,
    /// A timed transition declares a delay that is neither exponential nor constant.
    Unsupported,
    /// A dead marking met: `message` names it.
    Deadlock,
    /// The EMC has several bottom components: `message`.
    MultipleBottomComponents,
    /// The EMC's solver did not converge: `embedded` says how far it got.
    NotConverged,
    Interrupted
  };
  Status status = Status::Ok;
  std::string message;                 ///< why, for every status but Ok
  std::string first, second, marking;  ///< Concurrent: the two transitions, the marking
  /// π over every state of the graph (0 outside the recurrent markings of the DSPN).
  Eigen::VectorXd pi;
  /// Firings per model time unit, by transition (timed and immediate).
  std::vector<double> throughput;
  std::size_t embeddedStates = 0;  ///< markings of the EMC's recurrent class
  /// Markings entered with a fresh deterministic clock (a subordinated CTMC each).
  std::size_t subordinatedSolves = 0;
  std::size_t deterministicTransitions = 0;
  std::uint64_t iterations = 0;  ///< products with P over every subordinated solve
  SteadyStateResult embedded;    ///< the EMC's solution (method, residual)
  double seconds = 0;
};

struct DspnSettings {
  /// Error of each subordinated CTMC's distributions (probability mass).
  double epsilon = 1e-13;
  SteadyStateSettings embedded;  ///< for the EMC
  RunControl run;                ///< its interrupt
};

/// Solves the DSPN of `net` on the tangible markings of `graph` (explored with every
/// timed transition exponential: the same markings; only their markings are read).
DspnSolution solveDspn(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
                       const DspnSettings& settings = {});

/// The measures of a DSPN solution: mean tokens and expectations under π (those of
/// SteadyStateMeasures over every state), throughputs as solveDspn counted them. Holds
/// references to the graph and solution.
class DspnMeasures final : public gspn::MeasureSource {
 public:
  DspnMeasures(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
               const DspnSolution& solution);
  double meanTokens(gspn::PlaceId p) const override { return underPi_.meanTokens(p); }
  double throughput(gspn::TransitionId t) const override { return solution_.throughput[t]; }
  double expectation(const std::function<double(gspn::MarkingView)>& f,
                     std::span<const gspn::PlaceId> reads) const override {
    return underPi_.expectation(f, reads);
  }

 private:
  const DspnSolution& solution_;
  SteadyStateMeasures underPi_;
};

}  // namespace mmt::solver
