#include "sim/stopping.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>

namespace mmt::sim {

namespace {

/// The ratio estimator Σ A_r x_r / Σ A_r and its regenerative half-width (RatioEstimates).
Estimate ratioEstimate(const std::vector<double>& values, const std::vector<double>& lengths,
                       double confidence) {
  double total = 0, weighted = 0;
  for (std::size_t r = 0; r < values.size(); ++r) {
    total += lengths[r];
    weighted += lengths[r] * values[r];
  }
  const double ratio = weighted / total;
  std::vector<double> deviations(values.size());
  for (std::size_t r = 0; r < values.size(); ++r) deviations[r] = lengths[r] * (values[r] - ratio);
  const double meanLength = total / double(values.size());
  return {ratio, estimate(deviations, confidence).halfWidth / meanLength};
}

}  // namespace

SampleSummary summarizeSamples(const std::vector<Sample>& replications, double confidence,
                               double precision, const RatioEstimates* ratios) {
  SampleSummary out;
  if (replications.empty()) return out;
  const std::size_t count = replications.front().size();
  for (const Sample& s : replications)
    if (s.size() != count) throw std::logic_error("replications with different numbers");
  out.numbers.resize(count);
  std::vector<double> values(replications.size());
  for (std::size_t i = 0; i < count; ++i) {
    NumberSummary& n = out.numbers[i];
    for (std::size_t r = 0; r < replications.size(); ++r) {
      values[r] = replications[r][i];
      n.undefinedIn += std::isnan(values[r]);
    }
    if (n.undefinedIn > 0) {
      // Leaving those replications out would bias the mean towards the runs where the
      // element was fast, so the number has no estimate.
      if (n.undefinedIn < replications.size() && !out.firstUndefined) out.firstUndefined = i;
      out.undefined += n.undefinedIn < replications.size();
      continue;
    }
    const bool ratio = ratios && ratios->numbers && i < ratios->numbers->size() &&
                       (*ratios->numbers)[i] && ratios->lengths.size() == values.size();
    n.estimate =
        ratio ? ratioEstimate(values, ratios->lengths, confidence) : estimate(values, confidence);
    const double relative =
        n.estimate.mean != 0 ? n.estimate.halfWidth / std::abs(n.estimate.mean) : 0.0;
    if (relative > precision && n.estimate.halfWidth > 1e-12) {
      ++out.imprecise;
      if (relative > out.worstRelative) {
        out.worstRelative = relative;
        out.worst = i;
      }
    }
  }
  return out;
}

ReplicatedRun replicateUntilPrecise(const gspn::Net& net, const ReplicationSettings& settings,
                                    const StoppingRule& rule,
                                    const std::function<Sample(const Replication&)>& reduce,
                                    const std::function<void(const ReplicatedRun&)>& progress) {
  // One replication reduced to its numbers and its counts, in the worker thread.
  struct Reduced {
    Sample sample;
    std::uint64_t events = 0;
    double time = 0;
  };
  const std::function<Reduced(const Replication&)> reduceOne = [&](const Replication& r) {
    return Reduced{reduce(r), r.events(), r.observedTime()};
  };
  ReplicatedRun out;
  RatioEstimates ratios{rule.ratios, {}};
  out.threads = std::max(1u, std::thread::hardware_concurrency());
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const std::size_t budget = rule.maxReplications;
  std::size_t batch = rule.fixed ? *rule.fixed : std::min(rule.firstBatch, budget);
  const auto interrupted = [&] { return rule.run.interrupted(); };
  for (;;) {
    std::vector<Reduced> batchResults = runReplications(net, settings, out.samples.size(), batch,
                                                        out.threads, reduceOne, rule.run.interrupt);
    if (interrupted()) {
      out.interrupted = true;  // the batch may be incomplete: none of it is kept
      break;
    }
    for (Reduced& r : batchResults) {
      out.events += r.events;
      out.simulatedTime += r.time;
      out.samples.push_back(std::move(r.sample));
      ratios.lengths.push_back(r.time);
    }
    out.summary = summarizeSamples(out.samples, rule.confidence, rule.precision,
                                   rule.ratios ? &ratios : nullptr);
    if (rule.fixed || out.summary.imprecise == 0 || out.samples.size() >= budget ||
        elapsed() > rule.timeLimit)
      break;
    if (progress) progress(out);
    batch = std::min(out.samples.size(), budget - out.samples.size());
  }
  out.seconds = elapsed();
  out.reached = out.summary.imprecise == 0;
  return out;
}

}  // namespace mmt::sim
