#include "compiler/metrics.hpp"

#include <algorithm>
#include <limits>
#include <set>

namespace mmt::compiler {
namespace {

/// R = Q / X (Little's law); undefined (NaN) for an element that never completes, X = 0:
/// the report says "no completions" rather than print a time that was never observed.
double little(double population, double throughput) {
  return throughput > 0 ? population / throughput : std::numeric_limits<double>::quiet_NaN();
}

/// E[complete input sets waiting for the processor] = E[min_i m(ready_i)].
double completeSets(const gspn::MeasureSource& measures, const ActorPorts& ports) {
  if (ports.ready.size() == 1) return measures.meanTokens(ports.ready[0]);
  return measures.expectation(
      [&](gspn::MarkingView m) {
        gspn::Tokens least = m[ports.ready[0]];
        for (gspn::PlaceId p : ports.ready) least = std::min(least, m[p]);
        return static_cast<double>(least);
      },
      ports.ready);
}

/// Utilization of processor i by its policy (metrics.hpp, StationMetrics::utilization).
double utilization(const System& s, Index i, const Ports& ports,
                   const gspn::MeasureSource& measures) {
  const Processor& p = s.processors[i];
  // Nothing mapped here: its idle place never changes, and 1 − E[idle] / servers would
  // give the rounding of Σπ (7.8e−16 on examples/lu_paragon.hdl's unused nodes).
  if (p.sharers() == 0) return 0;
  const double servers = p.servers;
  switch (p.policy) {
    case Policy::Fcfs:
      return 1.0 - measures.meanTokens(*ports.processors[i].idle) / servers;
    case Policy::ProcessorSharing: {
      std::vector<gspn::PlaceId> running;
      for (Index a : p.actors) running.push_back(ports.actors[a].running);
      return measures.expectation(
                 [&](gspn::MarkingView m) {
                   double n = 0;
                   for (gspn::PlaceId r : running) n += m[r];
                   return std::min(n, servers);
                 },
                 running) /
             servers;
    }
    case Policy::Static: {
      double busy = 0;
      for (Index a : p.actors)
        if (s.actors[a].demand)
          busy += measures.throughput(ports.actors[a].exec) * s.actors[a].demand->mean();
      for (Index t : p.tasks)
        busy += measures.throughput(ports.tasks[t].process) * s.tasks[t].work.mean();
      return busy / p.speed;
    }
  }
  return 0;
}

/// Sets `shares[t]` for each task t under `node` to the partitions of an item it shares:
/// `outer` times the sizes of the maps between `node` and it (1 outside maps).
void partitions(const System& s, Index node, double outer, std::vector<double>& shares) {
  const SkeletonNode& n = s.skeletonNodes[node];
  if (n.kind == SkeletonNode::Kind::Task) shares[n.task] = outer;
  if (n.kind == SkeletonNode::Kind::Map) outer *= double(n.members.size());
  for (Index m : n.members) partitions(s, m, outer, shares);
}

/// Tasks and top-level skeletons (metrics.hpp, TaskMetrics and SkeletonMetrics).
void skeletonMetrics(const CompiledSystem& compiled, const gspn::MeasureSource& measures,
                     std::span<const double> copies, SystemMetrics& out) {
  const System& s = compiled.system;
  const Ports& ports = compiled.ports;
  for (Index t = 0; t < s.tasks.size(); ++t) {
    const TaskPorts& p = ports.tasks[t];
    const double x = measures.throughput(p.process);
    const double blocked = measures.meanTokens(p.full);
    out.tasks.push_back(
        {s.tasks[t].name, x, measures.meanTokens(p.busy), blocked, little(blocked, x)});
  }
  for (Index k = 0; k < s.skeletons.size(); ++k) {
    const Skeleton& skeleton = s.skeletons[k];
    // Items leave from the tasks the output transfers take them from; out of a map, every
    // item leaves from one task per partition.
    std::set<Index> senders;
    std::size_t parts = 1;
    for (const Transfer& t : compiled.routing.moves[k].back().transfers) {
      senders.insert(t.from.begin(), t.from.end());
      parts = t.from.size();
    }
    const auto copiesOf = [&](Index t) { return copies.empty() ? 1.0 : copies[t]; };
    double x = 0;
    for (Index t : senders) x += out.tasks[t].throughput * copiesOf(t);
    x /= double(parts);
    // E[busy] + E[full] per task, its utilization and blocked fraction, is the mean number
    // of items it holds; inside a map, an item is held by one task per partition.
    std::vector<double> shares(s.tasks.size(), 1.0);
    partitions(s, skeleton.root, 1, shares);
    double inside = 0;
    for (Index t : skeleton.tasks)
      inside += (out.tasks[t].utilization + out.tasks[t].blocked) * copiesOf(t) / shares[t];
    out.skeletons.push_back({s.skeletonNodes[skeleton.root].name, x, little(inside, x)});
  }
}

/// The application of a system without actors: what its skeletons deliver.
ApplicationMetrics skeletonApplication(const std::vector<SkeletonMetrics>& skeletons) {
  ApplicationMetrics app{0, std::nullopt, std::nullopt, std::nullopt};
  for (const SkeletonMetrics& k : skeletons) app.throughput += k.throughput;
  app.throughput /= double(std::max<std::size_t>(1, skeletons.size()));
  if (skeletons.size() == 1) app.responseTime = skeletons[0].responseTime;
  return app;
}

/// The dataflow application's metrics, as its workload defines them.
ApplicationMetrics dataflowApplication(const System& s, const Ports& ports,
                                       const gspn::MeasureSource& measures) {
  ApplicationMetrics app{0, std::nullopt, std::nullopt, std::nullopt};
  // A cyclic application (no sinks) completes an iteration when all its actors have run.
  std::vector<Index> ends = s.sinks;
  if (ends.empty())
    for (Index a = 0; a < s.actors.size(); ++a) ends.push_back(a);
  double endThroughput = 0;
  for (Index a : ends) endThroughput += measures.throughput(ports.actors[a].exec);
  app.throughput = endThroughput / double(ends.size());
  if (s.sources.empty()) {
    app.responseTime = little(1.0, app.throughput);
    return app;
  }
  switch (s.workload.kind) {
    case Workload::Kind::Closed:
      app.responseTime = little(s.workload.population, app.throughput);
      break;
    case Workload::Kind::Open: {
      const gspn::PlaceId inside = *ports.workload.inside;
      app.responseTime = little(measures.meanTokens(inside), app.throughput);
      app.arrivalRate = s.workload.arrivalRate;
      app.lossProbability = measures.expectation(
          [&](gspn::MarkingView m) { return m[inside] >= s.workload.limit ? 1.0 : 0.0; },
          std::span(&inside, 1));
      break;
    }
    case Workload::Kind::Batch:
      app.responseTime = little(measures.meanTokens(*ports.workload.inside), app.throughput);
      break;
    case Workload::Kind::Stream:
      break;
  }
  return app;
}

}  // namespace

bool metricsNeedExpectations(const CompiledSystem& compiled) {
  const System& s = compiled.system;
  const Ports& ports = compiled.ports;
  for (Index a = 0; a < s.actors.size(); ++a)
    if (ports.actors[a].ready.size() > 1) return true;
  for (const Processor& p : s.processors)
    if (p.policy == Policy::ProcessorSharing && !p.actors.empty()) return true;
  return !s.actors.empty() && !s.sources.empty() && s.workload.kind == Workload::Kind::Open;
}

SystemMetrics computeMetrics(const CompiledSystem& compiled, const gspn::MeasureSource& measures,
                             std::span<const double> taskCopies) {
  const System& s = compiled.system;
  const Ports& ports = compiled.ports;
  SystemMetrics out;

  skeletonMetrics(compiled, measures, taskCopies, out);
  out.application = s.actors.empty() ? skeletonApplication(out.skeletons)
                                     : dataflowApplication(s, ports, measures);

  std::vector<double> actorPopulation(s.actors.size());
  for (Index a = 0; a < s.actors.size(); ++a) {
    const ActorPorts& p = ports.actors[a];
    const double x = measures.throughput(p.exec);
    actorPopulation[a] = completeSets(measures, p) + measures.meanTokens(p.running);
    double partialSets = 0;
    if (p.ready.size() > 1)
      partialSets = measures.expectation(
          [&](gspn::MarkingView m) {
            auto [least, most] =
                std::minmax_element(p.ready.begin(), p.ready.end(),
                                    [&](gspn::PlaceId x, gspn::PlaceId y) { return m[x] < m[y]; });
            return static_cast<double>(m[*most] - m[*least]);
          },
          p.ready);
    out.actors.push_back(
        {s.actors[a].name, x, little(actorPopulation[a], x), little(partialSets, x)});
  }

  for (Index i = 0; i < s.processors.size(); ++i) {
    const Processor& proc = s.processors[i];
    StationMetrics pm{proc.name, 0, 0, 0, 0};
    pm.utilization = utilization(s, i, ports, measures);
    for (Index a : proc.actors) {
      pm.throughput += out.actors[a].throughput;
      pm.queueLength += actorPopulation[a];
    }
    for (Index t : proc.tasks) {
      pm.throughput += out.tasks[t].throughput;
      pm.queueLength += out.tasks[t].utilization;
    }
    pm.responseTime = little(pm.queueLength, pm.throughput);
    out.processors.push_back(pm);
  }

  // Per hop: E[M.wait] + E[M.transfer].
  std::vector<std::vector<double>> hopPopulation(s.messages.size());
  for (Index i = 0; i < s.messages.size(); ++i) {
    const MessagePorts& p = ports.messages[i];
    const double x = measures.throughput(p.delivery());
    double population = 0;
    for (const HopPorts& h : p.hops) {
      hopPopulation[i].push_back(measures.meanTokens(h.wait) + measures.meanTokens(h.transfer));
      population += hopPopulation[i].back();
    }
    out.messages.push_back(
        {s.messages[i].name, x, little(population, x), compiled.routing.messages[i].local()});
  }

  for (Index l = 0; l < s.links.size(); ++l) {
    const Link& link = s.links[l];
    StationMetrics lm{link.name, 0, 0, 0, 0};
    bool routed = false;
    for (Index i = 0; i < s.messages.size(); ++i) {
      const auto& hops = compiled.routing.messages[i].hops;
      for (std::size_t h = 0; h < hops.size(); ++h) {
        if (std::find(hops[h].links.begin(), hops[h].links.end(), l) == hops[h].links.end())
          continue;
        routed = true;
        lm.throughput += out.messages[i].throughput;
        lm.queueLength += hopPopulation[i][h];
      }
    }
    // A link no message crosses is idle: 0, not the rounding of Σπ. A crossed one is
    // clamped, as 1 − (channels free) / channels rounds to −2e−16 when it is nearly idle.
    if (routed)
      lm.utilization = std::max(
          0.0, 1.0 - measures.meanTokens(ports.links[l].free) / static_cast<double>(link.channels));
    lm.responseTime = little(lm.queueLength, lm.throughput);
    out.links.push_back(lm);
  }
  return out;
}

}  // namespace mmt::compiler
