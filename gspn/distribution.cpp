#include "gspn/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "gspn/writers.hpp"

namespace mmt::gspn {
namespace {

struct KindInfo {
  DistributionKind kind;
  const char* name;
  const char* signature;
};

const KindInfo kKinds[] = {
    {DistributionKind::Exponential, "exp", "exp(mean)"},
    {DistributionKind::Constant, "const", "const(value)"},
    {DistributionKind::Erlang, "erlang", "erlang(k, mean)"},
    {DistributionKind::Uniform, "uniform", "uniform(a, b)"},
    {DistributionKind::Normal, "normal", "normal(mean, sd)"},
    {DistributionKind::Lognormal, "lognormal", "lognormal(mean, sd)"},
    {DistributionKind::Gamma, "gamma", "gamma(shape, mean)"},
    {DistributionKind::Hyperexponential, "hyperexp", "hyperexp(p1, mean1, p2, mean2, ...)"},
};

const KindInfo& info(DistributionKind kind) {
  for (const KindInfo& k : kKinds)
    if (k.kind == kind) return k;
  throw std::logic_error("unknown distribution kind");
}

[[noreturn]] void invalid(DistributionKind kind, const std::string& why) {
  throw std::invalid_argument(std::string(info(kind).signature) + ": " + why);
}

/// φ(α) / (1 − Φ(α)) for the standard normal: the inverse Mills ratio at α.
double millsRatio(double alpha) {
  const double density = std::exp(-0.5 * alpha * alpha) / std::sqrt(2 * std::numbers::pi);
  return density / (0.5 * std::erfc(alpha / std::numbers::sqrt2));
}

/// Which parameters of each kind are times (scaled by `scaled`).
bool isTime(DistributionKind kind, std::size_t i) {
  switch (kind) {
    case DistributionKind::Erlang:
    case DistributionKind::Gamma:
      return i == 1;
    case DistributionKind::Hyperexponential:
      return i % 2 == 1;
    default:
      return true;
  }
}

}  // namespace

Distribution Distribution::exponential(double mean) {
  return make(DistributionKind::Exponential, {mean});
}

Distribution Distribution::constant(double value) {
  return make(DistributionKind::Constant, {value});
}

Distribution Distribution::make(DistributionKind kind, std::vector<double> p) {
  auto arity = [&](std::size_t n) {
    if (p.size() != n)
      invalid(kind, "takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + ", not " +
                        std::to_string(p.size()));
  };
  for (double x : p)
    if (!std::isfinite(x)) invalid(kind, "the arguments must be finite numbers");
  auto positive = [&](double x, const char* what) {
    if (!(x > 0)) invalid(kind, std::string(what) + " must be positive, not " + formatNumber(x));
  };
  switch (kind) {
    case DistributionKind::Exponential:
      arity(1);
      positive(p[0], "the mean");
      break;
    case DistributionKind::Constant:
      arity(1);
      positive(p[0], "the value");
      break;
    case DistributionKind::Erlang:
      arity(2);
      if (!(p[0] >= 1) || p[0] != std::floor(p[0]) || p[0] > 1e6)
        invalid(kind, "k must be a whole number of at least 1, not " + formatNumber(p[0]));
      positive(p[1], "the mean");
      break;
    case DistributionKind::Uniform:
      arity(2);
      if (!(p[0] >= 0) || !(p[1] >= p[0]) || !(p[1] > 0))
        invalid(kind, "needs 0 <= a <= b and b > 0, not a = " + formatNumber(p[0]) +
                          ", b = " + formatNumber(p[1]));
      break;
    case DistributionKind::Normal:
    case DistributionKind::Lognormal:
      arity(2);
      positive(p[0], "the mean");
      positive(p[1], "the standard deviation (for 0, write const(mean))");
      break;
    case DistributionKind::Gamma:
      arity(2);
      positive(p[0], "the shape");
      positive(p[1], "the mean");
      break;
    case DistributionKind::Hyperexponential: {
      if (p.size() < 2 || p.size() % 2 != 0)
        invalid(kind, "takes pairs of a probability and a mean, not " + std::to_string(p.size()) +
                          " arguments");
      double total = 0;
      for (std::size_t i = 0; i < p.size(); i += 2) {
        positive(p[i], "a branch probability");
        positive(p[i + 1], "a branch mean");
        total += p[i];
      }
      if (std::abs(total - 1) > 1e-9)
        invalid(kind, "the branch probabilities must add up to 1, not " + formatNumber(total));
      break;
    }
  }
  return Distribution(kind, std::move(p));
}

Distribution Distribution::make(std::string_view name, std::vector<double> p) {
  if (name == "moments") {
    if (p.size() != 2)
      throw std::invalid_argument("moments(mean, variance): takes 2 arguments, not " +
                                  std::to_string(p.size()));
    const double mean = p[0], variance = p[1];
    if (!(mean > 0) || !std::isfinite(mean))
      throw std::invalid_argument("moments(mean, variance): the mean must be positive");
    if (!(variance >= 0) || !std::isfinite(variance))
      throw std::invalid_argument("moments(mean, variance): the variance must be zero or positive");
    if (variance == 0) return constant(mean);
    if (variance == mean * mean) return exponential(mean);
    return make(DistributionKind::Gamma, {mean * mean / variance, mean});
  }
  for (const KindInfo& k : kKinds)
    if (name == k.name) return make(k.kind, std::move(p));
  std::string known;
  for (const std::string& n : names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown distribution '" + std::string(name) + "' (known: " + known +
                              ")");
}

const std::vector<std::string>& Distribution::names() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> out;
    for (const KindInfo& k : kKinds) out.push_back(k.name);
    out.push_back("moments");
    return out;
  }();
  return all;
}

bool Distribution::isName(std::string_view name) {
  const auto& all = names();
  return std::find(all.begin(), all.end(), name) != all.end();
}

double Distribution::mean() const {
  const auto& p = parameters_;
  double m = 0;
  switch (kind_) {
    case DistributionKind::Exponential:
    case DistributionKind::Constant:
      m = p[0];
      break;
    case DistributionKind::Lognormal:
      m = p[0];
      break;
    case DistributionKind::Erlang:
    case DistributionKind::Gamma:
      m = p[1];
      break;
    case DistributionKind::Uniform:
      m = (p[0] + p[1]) / 2;
      break;
    case DistributionKind::Normal:
      m = p[0] + p[1] * millsRatio(-p[0] / p[1]);
      break;
    case DistributionKind::Hyperexponential:
      for (std::size_t i = 0; i < p.size(); i += 2) m += p[i] * p[i + 1];
      break;
  }
  return offset_ + m;
}

double Distribution::variance() const {
  const auto& p = parameters_;
  switch (kind_) {
    case DistributionKind::Exponential:
      return p[0] * p[0];
    case DistributionKind::Constant:
      return 0;
    case DistributionKind::Erlang:
    case DistributionKind::Gamma:
      return p[1] * p[1] / p[0];
    case DistributionKind::Uniform:
      return (p[1] - p[0]) * (p[1] - p[0]) / 12;
    case DistributionKind::Lognormal:
      return p[1] * p[1];
    case DistributionKind::Normal: {
      const double alpha = -p[0] / p[1], lambda = millsRatio(alpha);
      return p[1] * p[1] * (1 + alpha * lambda - lambda * lambda);
    }
    case DistributionKind::Hyperexponential: {
      double first = 0, second = 0;
      for (std::size_t i = 0; i < p.size(); i += 2) {
        first += p[i] * p[i + 1];
        second += p[i] * 2 * p[i + 1] * p[i + 1];
      }
      return second - first * first;
    }
  }
  return 0;
}

Distribution Distribution::scaled(double factor) const {
  if (!(factor > 0) || !std::isfinite(factor))
    throw std::invalid_argument("Distribution::scaled: the factor must be positive");
  Distribution out = *this;
  for (std::size_t i = 0; i < out.parameters_.size(); ++i)
    if (isTime(kind_, i)) out.parameters_[i] *= factor;
  out.offset_ *= factor;
  return out;
}

Distribution Distribution::shifted(double offset) const {
  if (!(offset >= 0) || !std::isfinite(offset))
    throw std::invalid_argument("Distribution::shifted: the offset must be zero or positive");
  Distribution out = *this;
  out.offset_ += offset;
  return out;
}

std::string Distribution::toString() const {
  std::string out = offset_ != 0 ? formatNumber(offset_) + " + " : "";
  out += info(kind_).name;
  out += '(';
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    out += (i ? ", " : "") + formatNumber(parameters_[i]);
  return out + ')';
}

double Distribution::sample(RandomEngine& random) const {
  const auto& p = parameters_;
  double x = 0;
  switch (kind_) {
    case DistributionKind::Exponential:
      x = std::exponential_distribution<double>(1 / p[0])(random);
      break;
    case DistributionKind::Constant:
      x = p[0];
      break;
    case DistributionKind::Erlang:
    case DistributionKind::Gamma:
      x = std::gamma_distribution<double>(p[0], p[1] / p[0])(random);
      break;
    case DistributionKind::Uniform:
      x = p[0] == p[1] ? p[0] : std::uniform_real_distribution<double>(p[0], p[1])(random);
      break;
    case DistributionKind::Normal: {
      // Truncation by rejection: the mean is positive, so each draw is kept with
      // probability above 1/2.
      std::normal_distribution<double> normal(p[0], p[1]);
      do x = normal(random);
      while (x < 0);
      break;
    }
    case DistributionKind::Lognormal: {
      const double sigma2 = std::log1p(p[1] * p[1] / (p[0] * p[0]));
      x = std::lognormal_distribution<double>(std::log(p[0]) - sigma2 / 2,
                                              std::sqrt(sigma2))(random);
      break;
    }
    case DistributionKind::Hyperexponential: {
      double u = std::uniform_real_distribution<double>(0, 1)(random);
      std::size_t i = 0;
      for (; i + 2 < p.size(); i += 2) {
        u -= p[i];
        if (u < 0) break;
      }
      x = std::exponential_distribution<double>(1 / p[i + 1])(random);
      break;
    }
  }
  return offset_ + x;
}

}  // namespace mmt::gspn
