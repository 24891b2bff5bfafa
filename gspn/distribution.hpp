#pragma once
/// \file
/// Firing-delay distributions of timed transitions. The numerical solver uses only the mean
/// (an exponential delay with rate 1 / mean, [MMT] §4.3 and docs/language.md, "Delays"); the
/// simulator samples the whole distribution. Every parameter that is a time is in model time units,
/// and every distribution is written by its *mean*, never by a rate (docs/language.md,
/// "Delays").
///
/// Moments and samplers follow A. M. Law, "Simulation Modeling and Analysis", 5th ed.,
/// McGraw-Hill 2015, §6.2 (continuous distributions) and §8.3 (generation); the truncated
/// normal's moments are those of N. L. Johnson, S. Kotz, N. Balakrishnan, "Continuous
/// Univariate Distributions", vol. 1, 2nd ed., Wiley 1994, §13.10.1.

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gspn/random_engine.hpp"

namespace mmt::gspn {

enum class DistributionKind : std::uint8_t {
  Exponential,      ///< exp(mean)
  Constant,         ///< const(value)
  Erlang,           ///< erlang(k, mean): k exponential phases of mean mean/k each
  Uniform,          ///< uniform(a, b), 0 <= a <= b
  Normal,           ///< normal(mean, sd), truncated at 0 (negative draws are redrawn)
  Lognormal,        ///< lognormal(mean, sd): mean and sd of the delay itself
  Gamma,            ///< gamma(shape, mean)
  Hyperexponential  ///< hyperexp(p1, mean1, p2, mean2, ...), Σ p = 1
};

/// A delay distribution `offset + X`, where X is one of DistributionKind with its
/// parameters as written (see the kinds). The offset (default 0) carries a constant
/// latency added to a scaled distribution, such as a message's `latency + size / bandwidth`.
class Distribution {
 public:
  /// Exponential with mean 1.
  Distribution() = default;

  static Distribution exponential(double mean);
  static Distribution constant(double value);
  /// Throws std::invalid_argument, saying what is wrong, when the parameters are invalid.
  static Distribution make(DistributionKind kind, std::vector<double> parameters);
  /// By the name users write: exp, const, erlang, uniform, normal, lognormal, gamma,
  /// hyperexp, or moments(mean, variance), which becomes const(mean) for variance 0,
  /// exp(mean) for variance mean², and gamma(mean² / variance, mean) otherwise (the gamma
  /// matches any two moments exactly). Throws std::invalid_argument for an unknown name or
  /// invalid parameters; the message lists the known names.
  static Distribution make(std::string_view name, std::vector<double> parameters);
  /// The names `make` accepts, for "did you mean" hints.
  static const std::vector<std::string>& names();
  /// True when `name` is a distribution name `make` accepts.
  static bool isName(std::string_view name);

  DistributionKind kind() const { return kind_; }
  std::span<const double> parameters() const { return parameters_; }
  double offset() const { return offset_; }

  /// E[delay], time units (> 0).
  double mean() const;
  /// Var[delay], time units squared.
  double variance() const;
  /// True for an exponential without offset: the solver's assumption holds exactly.
  bool isExponential() const { return kind_ == DistributionKind::Exponential && offset_ == 0; }

  /// The distribution of factor · delay (factor > 0): every time parameter and the offset
  /// are multiplied.
  Distribution scaled(double factor) const;
  /// The distribution of offset + delay (offset >= 0).
  Distribution shifted(double offset) const;

  /// `erlang(3, 2)`, `0.5 + const(4)`: the text form the `.gspn` format reads back.
  std::string toString() const;

  /// One draw, >= 0.
  double sample(RandomEngine& random) const;

  bool operator==(const Distribution&) const = default;

 private:
  Distribution(DistributionKind kind, std::vector<double> parameters)
      : kind_(kind), parameters_(std::move(parameters)) {}

  DistributionKind kind_ = DistributionKind::Exponential;
  std::vector<double> parameters_{1.0};
  double offset_ = 0;
};

}  // namespace mmt::gspn
