// The simulation's random engine, xoshiro256++: its first words against a separate
// implementation of the paper's recurrence (Blackman and Vigna 2021; the values computed
// in Python with unbounded integers masked to 64 bits), seeding, and the uniformity of
// the doubles and of the top bits the simulator uses.
#include "gspn/random_engine.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>

using mmt::gspn::RandomEngine;

TEST_CASE("xoshiro256++ from the state {1, 2, 3, 4} gives the recurrence's words") {
  RandomEngine random;
  CHECK(random() == 41943041u);  // rotl(1 + 4, 23) + 1
  CHECK(random() == 58720359u);
  CHECK(random() == 3588806011781223u);
  CHECK(random() == 3591011842654386u);
  for (int i = 4; i < 999; ++i) random();
  CHECK(random() == 1045639946057077588u);  // the 1,000th word
}

TEST_CASE("a seed sequence fixes the stream, and different seeds give different streams") {
  std::seed_seq a{1u, 2u, 3u, 4u}, b{1u, 2u, 3u, 4u}, c{1u, 2u, 3u, 5u};
  RandomEngine first(a), second(b), other(c);
  CHECK(first == second);
  for (int i = 0; i < 10; ++i) CHECK(first() == second());
  CHECK(first() != other());
  CHECK(RandomEngine(7) == RandomEngine(7));
  CHECK_FALSE(RandomEngine(7) == RandomEngine(8));
}

TEST_CASE("unitUniform's doubles are the top 53 bits and have the moments of U(0, 1)") {
  // Mean 1/2 and variance 1/12; the standard errors at n = 10^6 are 2.9e-4 and 7.5e-5,
  // so 5 standard errors bound them.
  RandomEngine random(20261127);
  constexpr int n = 1'000'000;
  double sum = 0, squares = 0;
  std::array<int, 16> counts{};  // the top four bits
  int mismatches = 0;            // draws other than the word's top 53 bits times 2^−53
  for (int i = 0; i < n; ++i) {
    RandomEngine copy = random;
    const std::uint64_t word = copy();
    const double u = random.unitUniform();
    mismatches += u != static_cast<double>(word >> 11) * 0x1.0p-53;
    sum += u;
    squares += u * u;
    ++counts[word >> 60];
  }
  CHECK(mismatches == 0);
  const double mean = sum / n, variance = squares / n - mean * mean;
  CHECK(std::abs(mean - 0.5) < 5 * 2.9e-4);
  CHECK(std::abs(variance - 1.0 / 12) < 5 * 7.5e-5);
  // Pearson's χ² over 16 equally likely cells, 15 degrees of freedom: below 37.7 with
  // probability 0.999.
  double chi2 = 0;
  for (int c : counts) chi2 += (c - n / 16.0) * (c - n / 16.0) / (n / 16.0);
  CHECK(chi2 < 37.7);
}

TEST_CASE("the engine drives <random>'s distributions") {
  RandomEngine random(3);
  std::exponential_distribution<double> exponential(2.0);
  double sum = 0;
  constexpr int n = 200'000;
  for (int i = 0; i < n; ++i) sum += exponential(random);
  CHECK(sum / n == doctest::Approx(0.5).epsilon(5 * 0.5 / std::sqrt(n) / 0.5));
}
