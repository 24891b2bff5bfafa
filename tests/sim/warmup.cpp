// The warm-up chosen by MSER (sim/warmup.hpp): the truncation point of series whose answer
// is known by hand or by construction, and the pilot run's choice on queues started far
// from and at their steady state.
#include "sim/warmup.hpp"

#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "solve_helpers.hpp"

using namespace mmt;

TEST_CASE("MSER: the truncation point of series known by hand") {
  // d = 0: mean 2, squares 12, over 4² = 0.75; d = 1 and d = 2: no spread, 0. The first
  // minimum is kept.
  CHECK(sim::mserTruncation(std::vector<double>{5, 1, 1, 1}) == 1);
  CHECK(sim::mserTruncation(std::vector<double>{3, 3, 3, 3, 3, 3}) == 0);
  CHECK(sim::mserTruncation(std::vector<double>{}) == 0);
  CHECK(sim::mserTruncation(std::vector<double>{7}) == 0);
  // A decaying start (10 e^{-i/20}) over noise of standard deviation 0.1: cut where the
  // bias has fallen to the noise, about i = 20 ln 100 ≈ 92; never past the middle.
  std::mt19937_64 random(5);
  std::normal_distribution<double> noise(0, 0.1);
  std::vector<double> y(2'000);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = 10 * std::exp(-double(i) / 20) + noise(random);
  const std::size_t d = sim::mserTruncation(y);
  CHECK(d >= 40);
  CHECK(d <= 150);
  // The same noise without the start: a short cut, if any.
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = noise(random);
  CHECK(sim::mserTruncation(y) < 200);
}

TEST_CASE(
    "MSER: an M/M/1 queue started with 50 jobs is cut after it drains, one started empty is not") {
  // Arrivals 0.5, service 1: 50 jobs drain at 0.5 a unit of time, in about 100 t and
  // 150 timed firings; the queue started empty is at its steady state's most likely
  // marking. Over seeds 1 to 20 (the pilot's own stream of each): the full queue is always
  // cut near or past its drain, the empty one mostly not at all. Both runs draw the same
  // numbers, so once the full queue has drained their paths meet, and a long excursion
  // later on (MSER cuts at those) is cut in both alike.
  const gspn::Net full =
      testing::loadGspnText("place q = 50; timed arrive rate 0.5 out q; timed serve rate 1 in q;");
  const gspn::Net empty =
      testing::loadGspnText("place q; timed arrive rate 0.5 out q; timed serve rate 1 in q;");
  int uncut = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    sim::ReplicationSettings settings;
    settings.events = 20'000;
    settings.seed = seed;
    const sim::WarmupChoice drained = sim::chooseWarmup(full, settings);
    CHECK(drained.batchFirings == 5);
    CHECK(drained.firings >= 90);
    CHECK_FALSE(drained.atBound);
    const sim::WarmupChoice steady = sim::chooseWarmup(empty, settings);
    CHECK(steady.firings <= drained.firings);
    uncut += steady.firings == 0;
  }
  CHECK(uncut >= 12);
}

TEST_CASE("MSER's pilot: an eighth of the events, doubled while the truncation is at its bound") {
  // Arrivals 0.5, service 1. Started with 4,000 jobs the queue drains in about 8,000 t,
  // some 12,000 timed firings: past half of a 10,000-firing pilot and of a 20,000 one, so
  // the pilot doubles twice; started empty, the first pilot settles it.
  const gspn::Net full = testing::loadGspnText(
      "place q = 4000; timed arrive rate 0.5 out q; timed serve rate 1 in q;");
  const gspn::Net empty =
      testing::loadGspnText("place q; timed arrive rate 0.5 out q; timed serve rate 1 in q;");
  sim::ReplicationSettings settings;
  settings.events = 80'000;
  const sim::WarmupChoice drained = sim::chooseWarmup(full, settings);
  CHECK(drained.pilotFirings == 40'000);
  CHECK_FALSE(drained.atBound);
  CHECK(drained.firings >= 10'000);  // past the drain
  // Every pilot's firings are counted (no immediate transitions: events are firings).
  CHECK(drained.pilotEvents == 10'000 + 20'000 + 40'000);
  const sim::WarmupChoice steady = sim::chooseWarmup(empty, settings);
  CHECK(steady.pilotFirings == 10'000);
  CHECK(steady.pilotEvents == 10'000);
  // With 16,000 events the second pilot stops at 16,000, still inside the drain.
  settings.events = 16'000;
  const sim::WarmupChoice short_ = sim::chooseWarmup(full, settings);
  CHECK(short_.pilotFirings == 16'000);
  CHECK(short_.atBound);
  CHECK(short_.pilotEvents == 10'000 + 16'000);
}
