#include "sim/warmup.hpp"

#include <algorithm>
#include <vector>

namespace mmt::sim {

std::size_t mserTruncation(std::span<const double> y) {
  const std::size_t n = y.size();
  if (n < 2) return 0;
  // Suffix sums from the end, so that each d costs O(1): the sum of squared deviations of
  // Y_{d+1} .. Y_n is Σ Y² − (Σ Y)² / (n − d). Values are centred on the overall mean
  // first, which keeps the subtraction from cancelling.
  double centre = 0;
  for (double v : y) centre += v;
  centre /= static_cast<double>(n);
  std::vector<double> sum(n + 1, 0.0), squares(n + 1, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    const double v = y[i] - centre;
    sum[i] = sum[i + 1] + v;
    squares[i] = squares[i + 1] + v * v;
  }
  std::size_t best = 0;
  double bestValue = 0;
  for (std::size_t d = 0; d <= n / 2; ++d) {
    const double m = static_cast<double>(n - d);
    const double value = std::max(0.0, squares[d] - sum[d] * sum[d] / m) / (m * m);
    if (d == 0 || value < bestValue) {
      best = d;
      bestValue = value;
    }
  }
  return best;
}

namespace {

/// MSER's choice from one pilot run of `firings` timed firings.
WarmupChoice pilotChoice(const gspn::Net& net, const ReplicationSettings& settings,
                         std::uint64_t firings) {
  constexpr std::uint64_t kMaxBatches = 4'000;
  WarmupChoice out;
  out.pilotFirings = firings;
  out.batchFirings =
      5 * std::max<std::uint64_t>(1, (firings + 5 * kMaxBatches - 1) / (5 * kMaxBatches));
  ReplicationSettings pilot = settings;
  pilot.events = firings;
  pilot.warmupEvents = 0;
  pilot.extraEvents = 0;
  pilot.recordMarkings = false;
  pilot.batchFirings = out.batchFirings;
  const Replication run = simulate(net, pilot, kPilotStream);
  out.pilotEvents = run.events();
  const std::size_t places = net.placeCount();
  const std::size_t batches = places > 0 ? run.batchMeans().size() / places : 0;
  std::vector<double> series(batches);
  std::size_t truncation = 0;
  for (std::size_t p = 0; p < places; ++p) {
    for (std::size_t b = 0; b < batches; ++b) series[b] = run.batchMeans()[b * places + p];
    const std::size_t d = mserTruncation(series);
    truncation = std::max(truncation, d);
    out.atBound = out.atBound || (batches >= 2 && d == batches / 2);
  }
  out.firings = truncation * out.batchFirings;
  return out;
}

}  // namespace

WarmupChoice chooseWarmup(const gspn::Net& net, const ReplicationSettings& settings) {
  constexpr std::uint64_t kShortestPilot = 10'000;
  std::uint64_t firings = std::min(settings.events, std::max(settings.events / 8, kShortestPilot));
  std::uint64_t events = 0;
  for (;;) {
    WarmupChoice out = pilotChoice(net, settings, firings);
    events += out.pilotEvents;
    if (!out.atBound || firings >= settings.events) {
      out.pilotEvents = events;
      return out;
    }
    firings = std::min(settings.events, 2 * firings);
  }
}

}  // namespace mmt::sim
