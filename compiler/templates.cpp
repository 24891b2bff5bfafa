#include "compiler/templates.hpp"

#include <algorithm>
#include <stdexcept>

namespace mmt::compiler {
namespace {

// Suffixes of generated names; the dot picture and the metrics rely on them.
constexpr const char* kIdle = ".idle";
constexpr const char* kFree = ".free";
constexpr const char* kRunning = ".running";
constexpr const char* kBegin = ".begin";
constexpr const char* kExec = ".exec";
constexpr const char* kFork = ".fork";
constexpr const char* kWait = ".wait";
constexpr const char* kTransfer = ".transfer";
constexpr const char* kStart = "start";

std::size_t positionOf(const std::vector<Index>& list, Index value) {
  auto it = std::find(list.begin(), list.end(), value);
  if (it == list.end()) throw std::logic_error("templates: inconsistent system model");
  return static_cast<std::size_t>(it - list.begin());
}

/// The place message `id` delivers into: the reader's ready place, or the data node's input.
gspn::PlaceId receiverPlace(const System& system, Index id, const Ports& ports) {
  const Message& m = system.messages[id];
  if (m.isWrite) return ports.dataNodes[m.data].in[positionOf(system.dataNodes[m.data].writers, id)];
  return ports.actors[m.actor].ready[positionOf(system.actors[m.actor].reads, id)];
}

}  // namespace

ProcessorPorts translateProcessor(gspn::NetBuilder& net, const Processor& p) {
  return {net.addPlace(p.name + kIdle, p.servers, p.name)};
}

LinkPorts translateLink(gspn::NetBuilder& net, const Link& l) {
  return {net.addPlace(l.name + kFree, l.channels, l.name)};
}

ActorPorts translateActor(gspn::NetBuilder& net, const System& system, const Actor& a,
                          const ProcessorPorts& processor) {
  ActorPorts ports;
  for (Index m : a.reads)
    ports.ready.push_back(
        net.addPlace(a.name + ".ready[" + system.dataNodes[system.messages[m].data].name + "]",
                     0, a.name));
  if (a.reads.empty())
    ports.ready.push_back(net.addPlace(a.name + ".ready[" + kStart + "]",
                                       system.workload.population, a.name));
  ports.running = net.addPlace(a.name + kRunning, 0, a.name);

  ports.begin = net.addImmediate(a.name + kBegin, 1.0, 1, a.name);
  for (gspn::PlaceId r : ports.ready) net.addInput(ports.begin, r);
  net.addInput(ports.begin, processor.idle);
  net.addOutput(ports.begin, ports.running);

  // Each execution in progress holds its own server, so the rate scales with the number
  // of executions: infinite-server semantics on `running`.
  const double speed = system.processors[*a.processor].speed;
  ports.exec = net.addTimed(a.name + kExec, 1.0, a.name, gspn::ServerSemantics::Infinite);
  net.setDelay(ports.exec, a.demand.scaled(1 / speed));
  net.addInput(ports.exec, ports.running);
  net.addOutput(ports.exec, processor.idle);
  return ports;
}

DataNodePorts translateDataNode(gspn::NetBuilder& net, const System& system,
                                const DataNode& d) {
  DataNodePorts ports;
  for (Index m : d.writers)
    ports.in.push_back(
        net.addPlace(d.name + ".in[" + system.actors[system.messages[m].actor].name + "]", 0,
                     d.name));
  ports.fork = net.addImmediate(d.name + kFork, 1.0, 1, d.name);
  for (gspn::PlaceId in : ports.in) net.addInput(ports.fork, in);
  return ports;
}

MessagePorts translateMessage(gspn::NetBuilder& net, const System& system, Index id,
                              const Ports& ports) {
  const Message& m = system.messages[id];
  MessagePorts out;
  out.sender = m.isWrite ? ports.actors[m.actor].exec : ports.dataNodes[m.data].fork;
  const gspn::PlaceId destination = receiverPlace(system, id, ports);
  if (m.local) {
    net.addOutput(out.sender, destination);
    return out;
  }
  out.wait = net.addPlace(m.name + kWait, 0, m.name);
  out.transfer = net.addPlace(m.name + kTransfer, 0, m.name);
  out.begin = net.addImmediate(m.name + kBegin, 1.0, 1, m.name);
  out.exec = net.addTimed(m.name + kExec, 1.0, m.name, gspn::ServerSemantics::Infinite);
  net.setDelay(*out.exec, *m.transfer);
  net.addOutput(out.sender, *out.wait);
  net.addInput(*out.begin, *out.wait);
  for (Index l : m.route) net.addInput(*out.begin, ports.links[l].free);
  net.addOutput(*out.begin, *out.transfer);
  net.addInput(*out.exec, *out.transfer);
  for (Index l : m.route) net.addOutput(*out.exec, ports.links[l].free);
  net.addOutput(*out.exec, destination);
  return out;
}

WorkloadPorts translateClosedWorkload(gspn::NetBuilder& net, const System& system,
                                      const Ports& ports) {
  WorkloadPorts out;
  out.restart = net.addImmediate("workload.restart", 1.0, 1, "workload");
  for (Index a : system.sinks) {
    gspn::PlaceId done =
        net.addPlace("workload.done[" + system.actors[a].name + "]", 0, "workload");
    out.done.push_back(done);
    net.addOutput(ports.actors[a].exec, done);
    net.addInput(out.restart, done);
  }
  for (Index a : system.sources) net.addOutput(out.restart, ports.actors[a].ready.back());
  return out;
}

Ports instantiateTemplates(gspn::NetBuilder& net, const System& system) {
  Ports ports;
  for (const Processor& p : system.processors) ports.processors.push_back(translateProcessor(net, p));
  for (const Link& l : system.links) ports.links.push_back(translateLink(net, l));
  for (const Actor& a : system.actors)
    ports.actors.push_back(translateActor(net, system, a, ports.processors[*a.processor]));
  for (const DataNode& d : system.dataNodes)
    ports.dataNodes.push_back(translateDataNode(net, system, d));
  for (Index id = 0; id < system.messages.size(); ++id)
    ports.messages.push_back(translateMessage(net, system, id, ports));
  ports.workload = translateClosedWorkload(net, system, ports);
  return ports;
}

}  // namespace mmt::compiler
