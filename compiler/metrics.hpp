#pragma once
/// \file
/// The MMT output metrics (docs/modelling.md, "Metrics"; [MMT] §3.3), computed from steady-state
/// measures of the compiled net. All times are in model time units (t), throughputs per t.
/// Little's law (R = Q / X) turns mean populations into response times.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compiler/compile.hpp"
#include "gspn/measure_source.hpp"

namespace mmt::compiler {

struct ApplicationMetrics {
  /// X: iterations per t = Σ_sinks X(A.exec) / #sinks; for a cyclic application without
  /// sinks, the mean of its actors' throughputs; without actors, the mean of the
  /// skeletons' throughputs (and their response time when there is one skeleton).
  double throughput;
  /// closed(k): k / X; open and batch: E[workload.inside] / X (Little's law on the
  /// iterations in flight);
  /// a cyclic application: 1 / X (the cycle time); stream: none, an endless stream has no
  /// iterations in flight to count.
  std::optional<double> responseTime;
  /// open(rate, limit) only: the Poisson arrival rate, and the probability that an arrival
  /// finds `limit` iterations inside and is lost (PASTA: P(#inside = limit)).
  std::optional<double> arrivalRate, lossProbability;
  /// batch(n, k) only: the expected time until the n-th iteration ends, in t (set by the
  /// solution of the chain, which ends then: solver/absorption.hpp). The other metrics of a
  /// batch are averages over the run: X = n / makespan, utilizations the busy share of it.
  std::optional<double> makespan;
};

struct ActorMetrics {
  std::string name;
  double throughput;  ///< X_a = throughput of A.exec
  /// (E[complete input sets waiting] + E[executing]) / X_a: from the moment the last input
  /// arrived to the end; a complete set is min over the ready places of their tokens.
  double responseTime;
  /// E[max_i ready_i − min_i ready_i] / X_a: the mean time the earliest input of a set
  /// waits for the last one (0 for one input). Little's law on "partial input sets",
  /// inputs matched first-in first-out.
  double synchronizationDelay;
};

/// A processor or a link seen as a service centre.
struct StationMetrics {
  std::string name;
  /// Processor: fcfs E[busy servers] / servers; ps E[min(n, servers)] / servers with n the
  /// actors executing; static Σ X_a · E[demand_a] / speed over the mapped actors.
  /// Link: E[busy channels] / channels.
  double utilization;
  /// Processor: Σ X_a over mapped actors and tasks. Link: Σ X_m over messages routed over it.
  double throughput;
  /// Processor: Σ (E[complete input sets waiting] + E[executing]) over mapped actors,
  /// plus E[T.busy] over mapped tasks.
  /// Link: Σ (E[M.wait] + E[M.transfer]) over the hops of messages that cross it.
  double queueLength;
  double responseTime;  ///< queueLength / throughput (Little's law)
};

struct MessageMetrics {
  std::string name;
  double throughput;    ///< rate of M.exec (of the sender's transition when local)
  double responseTime;  ///< Σ_hops (E[M.wait] + E[M.transfer]) / X; 0 when local
  bool local;
};

/// A skeleton task ([Benoit05] §4: utilization and throughput; blocking as in [Yaikhom07]).
struct TaskMetrics {
  std::string name;
  double throughput;   ///< X = rate of T.process (items per t)
  double utilization;  ///< P(processing) = E[T.busy]
  /// P(holding a processed item: waiting for the next stage, or sending it) = E[T.full].
  double blocked;
  double blockingTime;  ///< blocked / X: per item, the time from processed to handed over
};

/// A top-level skeleton.
struct SkeletonMetrics {
  std::string name;
  double throughput;  ///< items out per t = Σ X(T.process) over its last tasks
  /// Σ E[T.busy + T.full] / X over its tasks (Little's law): from the end of an item's
  /// input transfer to the end of its output transfer.
  double responseTime;
};

struct SystemMetrics {
  ApplicationMetrics application;
  std::vector<SkeletonMetrics> skeletons;
  std::vector<TaskMetrics> tasks;
  std::vector<ActorMetrics> actors;
  std::vector<StationMetrics> processors;
  std::vector<MessageMetrics> messages;
  std::vector<StationMetrics> links;
};

/// Whether computeMetrics asks `measures` for an expectation over markings: an actor with
/// several inputs (its complete and partial input sets), a processor-sharing processor
/// with actors (E[min(n, servers)]), an open workload (its loss probability). A simulator
/// keeps the time spent in each marking only then.
bool metricsNeedExpectations(const CompiledSystem& compiled);

/// Evaluates every metric of `compiled` from `measures` (exact, simulated or approximated).
/// `taskCopies`, when given (one per task), says how many tasks of the system each task of
/// `compiled` stands for: the mean-field approximation compiles a farm at a few replicas,
/// each standing for N / k (api/meanfield.hpp); a skeleton's throughput and the items it
/// holds sum each task's share times its copies.
SystemMetrics computeMetrics(const CompiledSystem& compiled, const gspn::MeasureSource& measures,
                             std::span<const double> taskCopies = {});

}  // namespace mmt::compiler
