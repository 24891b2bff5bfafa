#pragma once
/// \file
/// The settings every call of mmt::api takes: one struct, filled by the command line from
/// its options and by the Python module from keyword arguments. Defaults are those of
/// `mmt solve`.

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>

#include "gspn/net.hpp"
#include "gspn/reachability.hpp"
#include "gspn/run_control.hpp"
#include "solver/steady_state.hpp"

namespace mmt::api {

/// The steady-state methods by their names (`--method`, Python's `method=`): every name,
/// a name read (std::invalid_argument for one that is not a method), a method's name.
using solver::Method;
using solver::methodNames;
using solver::parseMethod;
using solver::toString;

/// A setting out of its range: `setting` is its name in snake case ("tolerance",
/// "max_replications"), which the command line turns into its option (--max-replications)
/// and the Python module into a keyword. A bound set by another setting names it in
/// `other`, with its value: "must be fewer than" `other` "events" (100).
class SettingError : public std::invalid_argument {
 public:
  SettingError(std::string setting, const std::string& requirement, std::string other = "",
               std::string otherValue = "")
      : std::invalid_argument(other.empty() ? requirement
                                            : requirement + " " + other + " (" + otherValue + ")"),
        setting_(std::move(setting)),
        requirement_(requirement),
        other_(std::move(other)),
        otherValue_(std::move(otherValue)) {}
  const std::string& setting() const { return setting_; }
  const std::string& requirement() const { return requirement_; }
  const std::string& other() const { return other_; }
  const std::string& otherValue() const { return otherValue_; }

 private:
  std::string setting_, requirement_, other_, otherValue_;
};

struct Settings {
  /// Steady-state method (solver/steady_state.hpp; Auto: GTH up to 1,000 states, then
  /// Gauss–Seidel with its fallbacks).
  solver::Method method = solver::Method::Auto;
  /// Convergence: relative residual ‖πQ‖∞ / max|q_ii| at most this.
  double tolerance = 1e-10;
  /// Iterations of an iterative method before it gives up.
  std::uint64_t maxIterations = 100'000;
  /// SOR's relaxation factor in (0, 2); 0 adapts it.
  double relaxation = 0;
  /// Gauss–Seidel and SOR extrapolate along the slowest mode (solver::SteadyStateSettings).
  bool extrapolate = true;
  /// Most tangible markings explored. Unset: a net proven bounded (every place covered
  /// by a P-invariant or bounded by an inhibitor arc, gspn/invariants.hpp) grows until
  /// the memory limit stops it; any other stops at kUnprovenStateLimit, since it may be
  /// unbounded.
  std::optional<std::uint64_t> maxStates;
  /// Most resident memory in bytes before exploration stops cleanly. Unset: 90 % of the
  /// physical memory, so that mmt stops before the machine swaps.
  std::optional<std::uint64_t> maxMemoryBytes;
  /// Progress lines of exploration and of the solver (about once a second on long runs);
  /// the interrupt, after which exploration and the iterative solvers stop soon and the
  /// call throws InterruptedError (the Python module sets it on Ctrl-C); the threads of
  /// exploration (0: one per core; the states are numbered the same on any number). Passed
  /// down as it is to every layer.
  RunControl run;

  /// Constant delays (`const(τ)`) solved exactly as a DSPN (solver/dspn.hpp) instead of
  /// as exponential delays of the same mean (`mmt solve --deterministic exact`).
  bool deterministicExact = false;
  /// Lump the chain by the model's interchangeable replicas (docs/symmetry.md): one
  /// marking per orbit, every element still reported (`mmt solve --symmetry off`: false).
  bool symmetry = true;
  /// Fire immediate transitions that commute in every order, so that every reachable
  /// vanishing marking is met and counted, rather than in one (gspn/commuting.hpp; the
  /// results are the same). `mmt statespace --every-order`.
  bool everyOrder = false;

  /// Throws SettingError for a value out of range (tolerance ≤ 0, relaxation outside
  /// (0, 2), a memory limit under a megabyte).
  void check() const;

  /// The default state limit of a net not proven bounded: about two seconds here.
  static constexpr std::uint64_t kUnprovenStateLimit = 2'000'000;
  /// The limit of a net proven bounded: what 32-bit state numbers hold.
  static constexpr std::uint64_t kBoundedStateLimit = 4'294'967'294;
};

/// 90 % of the physical memory, in bytes (0 when the system does not say).
std::uint64_t defaultMemoryLimit();

/// The exploration settings for `net`: the state limit resolved as Settings::maxStates
/// says (computing the net's P-semiflows when it is unset), the memory limit, threads,
/// progress.
gspn::ExplorationSettings explorationSettings(const gspn::Net& net, const Settings& settings);

/// The solver's settings.
solver::SteadyStateSettings steadyStateSettings(const Settings& settings);

}  // namespace mmt::api
