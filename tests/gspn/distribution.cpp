// Delay distributions: closed-form moments (hand-computed), the samplers against those
// moments, and the transformations the compiler applies (scale by speed, shift by latency).
#include "gspn/distribution.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>

using mmt::gspn::Distribution;
using mmt::gspn::DistributionKind;
using mmt::gspn::RandomEngine;

namespace {

/// Sample mean and variance of n draws at a fixed seed.
std::pair<double, double> sampleMoments(const Distribution& d, int n = 400'000) {
  RandomEngine random(12345);
  double sum = 0, squares = 0;
  for (int i = 0; i < n; ++i) {
    const double x = d.sample(random);
    REQUIRE(x >= 0);
    sum += x;
    squares += x * x;
  }
  const double mean = sum / n;
  return {mean, squares / n - mean * mean};
}

}  // namespace

TEST_CASE("distribution moments: closed forms") {
  struct Case {
    const char* name;
    std::vector<double> parameters;
    double mean, variance;
  };
  // Hand-computed: erlang k phases of mean m/k each: variance m²/k; uniform (b-a)²/12;
  // hyperexp E[X²] = Σ p·2m²; lognormal and gamma are written by their own mean and sd.
  const Case cases[] = {
      {"exp", {2}, 2, 4},
      {"const", {3}, 3, 0},
      {"erlang", {3, 6}, 6, 12},
      {"uniform", {1, 3}, 2, 1.0 / 3},
      {"lognormal", {2, 0.5}, 2, 0.25},
      {"gamma", {0.5, 2}, 2, 8},
      {"hyperexp", {0.5, 1, 0.5, 3}, 2, 0.5 * 2 + 0.5 * 18 - 4},
      // Truncated at 0: mean μ + σ·φ(α)/(1-Φ(α)) with α = -μ/σ = -1 (Johnson-Kotz §13.10.1):
      // φ(-1) = 0.2419707, 1-Φ(-1) = 0.8413447, ratio 0.2876000.
      {"normal", {1, 1}, 1.2876000, 1 + (-1) * 0.2876000 - 0.2876000 * 0.2876000},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const Distribution d = Distribution::make(c.name, c.parameters);
    CHECK(d.mean() == doctest::Approx(c.mean).epsilon(1e-6));
    CHECK(d.variance() == doctest::Approx(c.variance).epsilon(1e-6));
    // The sampler draws from the distribution the moments describe.
    const auto [mean, variance] = sampleMoments(d);
    CHECK(mean == doctest::Approx(c.mean).epsilon(0.01));
    CHECK(variance == doctest::Approx(c.variance).epsilon(0.03).scale(0.01));
  }
}

TEST_CASE("moments(mean, variance) picks a distribution with both moments") {
  CHECK(Distribution::make("moments", {4, 0}).kind() == DistributionKind::Constant);
  CHECK(Distribution::make("moments", {4, 16}).isExponential());
  for (double variance : {2.0, 40.0}) {
    const Distribution d = Distribution::make("moments", {4, variance});
    CHECK(d.mean() == doctest::Approx(4));
    CHECK(d.variance() == doctest::Approx(variance));
  }
}

TEST_CASE("scaling and shifting: a demand over a speed, a size over a bandwidth plus latency") {
  const Distribution size = Distribution::make("erlang", {2, 20});
  const Distribution transfer = size.scaled(0.5).shifted(1);
  CHECK(transfer.kind() == DistributionKind::Erlang);
  CHECK(transfer.parameters()[0] == 2);  // k is not a time
  CHECK(transfer.mean() == doctest::Approx(11));
  CHECK(transfer.variance() == doctest::Approx(size.variance() / 4));
  CHECK(transfer.toString() == "1 + erlang(2, 10)");
  CHECK(!transfer.isExponential());
  CHECK(!Distribution::exponential(3).shifted(1).isExponential());
  const auto [mean, variance] = sampleMoments(transfer, 100'000);
  CHECK(mean == doctest::Approx(11).epsilon(0.01));
  CHECK(variance == doctest::Approx(50).epsilon(0.03));
}

TEST_CASE("invalid parameters are errors that say what is wrong") {
  auto message = [](const char* name, std::vector<double> p) {
    try {
      Distribution::make(name, std::move(p));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("erlang", {0.5, 1}) ==
        "erlang(k, mean): k must be a whole number of at least 1, not 0.5");
  CHECK(message("exp", {-1}) == "exp(mean): the mean must be positive, not -1");
  CHECK(message("uniform", {2, 1}) ==
        "uniform(a, b): needs 0 <= a <= b and b > 0, not a = 2, b = 1");
  CHECK(message("hyperexp", {0.3, 1, 0.3, 2}) ==
        "hyperexp(p1, mean1, p2, mean2, ...): the branch probabilities must add up to 1, not 0.6");
  CHECK(message("const", {1, 2}) == "const(value): takes 1 argument, not 2");
  CHECK(message("weibull", {1}).starts_with("unknown distribution 'weibull' (known: exp,"));
  CHECK(message("moments", {1, -1}) ==
        "moments(mean, variance): the variance must be zero or positive");
}
