#include "compiler/metrics.hpp"

#include <algorithm>
#include <limits>

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
  return measures.expectation([&](gspn::MarkingView m) {
    gspn::Tokens least = m[ports.ready[0]];
    for (gspn::PlaceId p : ports.ready) least = std::min(least, m[p]);
    return static_cast<double>(least);
  });
}

}  // namespace

SystemMetrics computeMetrics(const CompiledSystem& compiled, const gspn::MeasureSource& measures) {
  const System& s = compiled.system;
  const Ports& ports = compiled.ports;
  SystemMetrics out;

  double sinkThroughput = 0;
  for (Index a : s.sinks) sinkThroughput += measures.throughput(ports.actors[a].exec);
  out.application.throughput = s.sinks.empty() ? 0.0 : sinkThroughput / double(s.sinks.size());
  out.application.responseTime = little(s.workload.population, out.application.throughput);

  std::vector<double> actorPopulation(s.actors.size());
  for (Index a = 0; a < s.actors.size(); ++a) {
    const ActorPorts& p = ports.actors[a];
    const double x = measures.throughput(p.exec);
    actorPopulation[a] = completeSets(measures, p) + measures.meanTokens(p.running);
    double partialSets = 0;
    if (p.ready.size() > 1)
      partialSets = measures.expectation([&](gspn::MarkingView m) {
        auto [least, most] = std::minmax_element(
            p.ready.begin(), p.ready.end(),
            [&](gspn::PlaceId x, gspn::PlaceId y) { return m[x] < m[y]; });
        return static_cast<double>(m[*most] - m[*least]);
      });
    out.actors.push_back({s.actors[a].name, x, little(actorPopulation[a], x),
                          little(partialSets, x)});
  }

  for (Index i = 0; i < s.processors.size(); ++i) {
    const Processor& proc = s.processors[i];
    StationMetrics pm{proc.name, 0, 0, 0, 0};
    pm.utilization =
        1.0 - measures.meanTokens(ports.processors[i].idle) / static_cast<double>(proc.servers);
    for (Index a : proc.actors) {
      pm.throughput += out.actors[a].throughput;
      pm.queueLength += actorPopulation[a];
    }
    pm.responseTime = little(pm.queueLength, pm.throughput);
    out.processors.push_back(pm);
  }

  std::vector<double> messagePopulation(s.messages.size(), 0.0);
  for (Index i = 0; i < s.messages.size(); ++i) {
    const MessagePorts& p = ports.messages[i];
    const bool local = s.messages[i].local;
    const double x = measures.throughput(local ? p.sender : *p.exec);
    if (!local) messagePopulation[i] = measures.meanTokens(*p.wait) + measures.meanTokens(*p.transfer);
    out.messages.push_back({s.messages[i].name, x, little(messagePopulation[i], x), local});
  }

  for (Index l = 0; l < s.links.size(); ++l) {
    const Link& link = s.links[l];
    StationMetrics lm{link.name, 0, 0, 0, 0};
    lm.utilization =
        1.0 - measures.meanTokens(ports.links[l].free) / static_cast<double>(link.channels);
    for (Index i = 0; i < s.messages.size(); ++i) {
      const auto& route = s.messages[i].route;
      if (s.messages[i].local || std::find(route.begin(), route.end(), l) == route.end()) continue;
      lm.throughput += out.messages[i].throughput;
      lm.queueLength += messagePopulation[i];
    }
    lm.responseTime = little(lm.queueLength, lm.throughput);
    out.links.push_back(lm);
  }
  return out;
}

}  // namespace mmt::compiler
