#include "compiler/templates.hpp"

#include <algorithm>
#include <map>
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
  if (m.isWrite)
    return ports.dataNodes[m.data].in[positionOf(system.dataNodes[m.data].writers, id)];
  return ports.actors[m.actor].ready[positionOf(system.actors[m.actor].reads, id)];
}

/// Tokens of a source's `ready[start]` at time 0.
gspn::Tokens startTokens(const Workload& w) {
  switch (w.kind) {
    case Workload::Kind::Closed:
      return w.population;
    case Workload::Kind::Open:
      return 0;
    case Workload::Kind::Stream:
      return 1;
    case Workload::Kind::Batch:
      return w.population;
  }
  return 0;
}

/// Pushes Σ #p over `places` (postfix).
void pushSum(gspn::Expression& e, const std::vector<gspn::PlaceId>& places) {
  for (std::size_t i = 0; i < places.size(); ++i) {
    e.push({gspn::Expression::Op::Tokens, places[i]});
    if (i > 0) e.push({gspn::Expression::Op::Add});
  }
}

}  // namespace

ProcessorPorts translateProcessor(gspn::NetBuilder& net, const Processor& p) {
  if (p.policy != Policy::Fcfs) return {};
  return {net.addPlace(p.name + kIdle, p.servers, p.name)};
}

LinkPorts translateLink(gspn::NetBuilder& net, const Link& l) {
  return {net.addPlace(l.name + kFree, l.channels, l.name)};
}

ActorPorts translateActor(gspn::NetBuilder& net, const System& system, const Actor& a) {
  ActorPorts ports;
  for (Index m : a.reads)
    ports.ready.push_back(net.addPlace(
        a.name + ".ready[" + system.dataNodes[system.messages[m].data].name + "]", 0, a.name));
  if (a.reads.empty())
    ports.ready.push_back(
        net.addPlace(a.name + ".ready[" + kStart + "]", startTokens(system.workload), a.name));
  ports.running = net.addPlace(a.name + kRunning, 0, a.name);

  ports.begin = net.addImmediate(a.name + kBegin, 1.0, 1, a.name);
  for (gspn::PlaceId r : ports.ready) net.addInput(ports.begin, r);
  net.addOutput(ports.begin, ports.running);

  // Each execution in progress is served on its own, so the rate scales with the number
  // of executions: infinite-server semantics on `running`. An actor of demand 0 takes no
  // time: its execution is immediate.
  ports.exec = a.demand ? net.addTimed(a.name + kExec, 1.0, a.name, gspn::ServerSemantics::Infinite)
                        : net.addImmediate(a.name + kExec, 1.0, 1, a.name);
  net.addInput(ports.exec, ports.running);
  return ports;
}

void bindFcfs(gspn::NetBuilder& net, const System& system, Index processor, const Ports& ports) {
  const Processor& p = system.processors[processor];
  const gspn::PlaceId idle = *ports.processors[processor].idle;
  for (Index a : p.actors) {
    const ActorPorts& actor = ports.actors[a];
    net.addInput(actor.begin, idle);
    if (const auto& demand = system.actors[a].demand)
      net.setDelay(actor.exec, demand->scaled(1 / p.speed));
    net.addOutput(actor.exec, idle);
  }
}

void bindProcessorSharing(gspn::NetBuilder& net, const System& system, Index processor,
                          const Ports& ports) {
  using Op = gspn::Expression::Op;
  const Processor& p = system.processors[processor];
  std::vector<gspn::PlaceId> running;
  for (Index a : p.actors) running.push_back(ports.actors[a].running);
  for (Index a : p.actors) {
    if (!system.actors[a].demand) continue;
    gspn::Expression rate;
    rate.push({Op::Tokens, ports.actors[a].running});
    rate.push({Op::Constant, 0, p.speed / system.actors[a].demand->mean()});
    rate.push({Op::Multiply});
    pushSum(rate, running);
    rate.push({Op::Constant, 0, double(p.servers)});
    rate.push({Op::Min, 2});
    rate.push({Op::Multiply});
    pushSum(rate, running);
    rate.push({Op::Divide});
    net.setRateExpression(ports.actors[a].exec, std::move(rate));
  }
}

void bindStatic(gspn::NetBuilder& net, const System& system, Index processor, const Ports& ports) {
  const Processor& p = system.processors[processor];
  const double share = p.speed / double(p.sharers());
  for (Index a : p.actors)
    if (const auto& demand = system.actors[a].demand)
      net.setDelay(ports.actors[a].exec, demand->scaled(1 / share));
  for (Index t : p.tasks)
    net.setDelay(ports.tasks[t].process, system.tasks[t].work.scaled(1 / share));
}

TaskPorts translateTask(gspn::NetBuilder& net, const Task& t) {
  TaskPorts ports;
  ports.idle = net.addPlace(t.name + kIdle, 1, t.name);
  ports.busy = net.addPlace(t.name + ".busy", 0, t.name);
  ports.full = net.addPlace(t.name + ".full", 0, t.name);
  ports.process = net.addTimed(t.name + ".process", 1.0, t.name);
  net.addInput(ports.process, ports.busy);
  net.addOutput(ports.process, ports.full);
  return ports;
}

SkeletonPorts translateSkeleton(gspn::NetBuilder& net, const System& system,
                                const std::vector<Move>& moves, Index k, const Ports& ports) {
  using Op = gspn::Expression::Op;
  const Skeleton& skeleton = system.skeletons[k];
  const std::string group = system.skeletonNodes[skeleton.root].name;
  SkeletonPorts out;
  // Deal turns: one place per replica, the first holding the turn.
  std::map<std::pair<Index, std::size_t>, gspn::PlaceId> turns;
  auto turn = [&](Index deal, std::size_t position) {
    auto [it, added] = turns.try_emplace({deal, position});
    if (added) {
      const SkeletonNode& d = system.skeletonNodes[deal];
      it->second = net.addPlace(d.name + ".turn[" + std::to_string(position + 1) + "]",
                                position == 0 ? 1 : 0, d.name);
    }
    return it->second;
  };
  for (const Move& move : moves) {
    // The places each transfer needs: the sender's full, the receiver's idle, the turns.
    std::vector<std::vector<gspn::PlaceId>> needs;
    for (const Transfer& t : move.transfers) {
      std::vector<gspn::PlaceId> places;
      for (Index f : t.from) places.push_back(ports.tasks[f].full);
      for (Index r : t.to) places.push_back(ports.tasks[r].idle);
      for (const auto& [deal, position] : t.turns) places.push_back(turn(deal, position));
      needs.push_back(std::move(places));
    }
    std::vector<TransferPorts> transfers;
    for (std::size_t i = 0; i < move.transfers.size(); ++i) {
      const Transfer& t = move.transfers[i];
      TransferPorts p;
      p.exec = t.time ? net.addTimed(t.name + kExec, 1.0, group)
                      : net.addImmediate(t.name + kExec, 1.0, 1, group);
      for (gspn::PlaceId place : needs[i]) net.addInput(p.exec, place);
      for (Index f : t.from) net.addOutput(p.exec, ports.tasks[f].idle);
      for (Index r : t.to) net.addOutput(p.exec, ports.tasks[r].busy);
      for (const auto& [deal, position] : t.turns)
        net.addOutput(p.exec,
                      turn(deal, (position + 1) % system.skeletonNodes[deal].members.size()));
      if (t.time && move.transfers.size() == 1) {
        net.setDelay(p.exec, *t.time);
      } else if (t.time) {
        // [Benoit05]'s network offers each move at its rate λ, shared evenly by the pairs
        // that could make it: rate λ / Σ_u Π_{p needed by u} #p (every place here is safe).
        // The places every pair needs (a scatter's sender) are factored out of the sum,
        // λ / (Π_common #p · Σ_u Π_{other p of u} #p): the same integer denominator, with
        // half the terms to evaluate in every marking.
        std::vector<gspn::PlaceId> common;
        for (gspn::PlaceId p : needs[0])
          if (std::all_of(needs.begin(), needs.end(), [&](const auto& n) {
                return std::find(n.begin(), n.end(), p) != n.end();
              }))
            common.push_back(p);
        gspn::Expression rate;
        rate.push({Op::Constant, 0, 1 / t.time->mean()});
        for (std::size_t j = 0; j < common.size(); ++j) {
          rate.push({Op::Tokens, common[j]});
          if (j > 0) rate.push({Op::Multiply});
        }
        for (std::size_t u = 0; u < needs.size(); ++u) {
          std::size_t factors = 0;
          for (gspn::PlaceId p : needs[u]) {
            if (std::find(common.begin(), common.end(), p) != common.end()) continue;
            rate.push({Op::Tokens, p});
            if (factors++ > 0) rate.push({Op::Multiply});
          }
          if (factors == 0) rate.push({Op::Constant, 0, 1.0});
          if (u > 0) rate.push({Op::Add});
        }
        if (!common.empty()) rate.push({Op::Multiply});
        rate.push({Op::Divide});
        net.setRateExpression(p.exec, std::move(rate));
      }
      transfers.push_back(p);
    }
    out.moves.push_back(std::move(transfers));
  }
  return out;
}

DataNodePorts translateDataNode(gspn::NetBuilder& net, const System& system, const DataNode& d) {
  DataNodePorts ports;
  for (Index m : d.writers) {
    const std::string writer = system.actors[system.messages[m].actor].name;
    ports.in.push_back(net.addPlace(d.name + ".in[" + writer + "]", d.initial, d.name));
    if (d.capacity)
      ports.space.push_back(
          net.addPlace(d.name + ".space[" + writer + "]", *d.capacity - d.initial, d.name));
  }
  ports.fork = net.addImmediate(d.name + kFork, 1.0, 1, d.name);
  for (gspn::PlaceId in : ports.in) net.addInput(ports.fork, in);
  return ports;
}

void bindCapacity(gspn::NetBuilder& net, const System& system, Index data, const Ports& ports) {
  const DataNode& d = system.dataNodes[data];
  const DataNodePorts& node = ports.dataNodes[data];
  for (std::size_t w = 0; w < d.writers.size(); ++w)
    net.addInput(ports.actors[system.messages[d.writers[w]].actor].begin, node.space[w]);
  if (d.readers.empty()) return;
  auto giveBack = [&](gspn::TransitionId t) {
    for (gspn::PlaceId space : node.space) net.addOutput(t, space);
  };
  if (d.readers.size() == 1) {
    giveBack(ports.actors[system.messages[d.readers[0]].actor].begin);
    return;
  }
  const gspn::TransitionId release = net.addImmediate(d.name + ".release", 1.0, 1, d.name);
  for (Index m : d.readers) {
    const std::string reader = system.actors[system.messages[m].actor].name;
    const gspn::PlaceId taken = net.addPlace(d.name + ".taken[" + reader + "]", 0, d.name);
    net.addOutput(ports.actors[system.messages[m].actor].begin, taken);
    net.addInput(release, taken);
  }
  giveBack(release);
}

MessagePorts translateMessage(gspn::NetBuilder& net, const System& system,
                              const MessageRoute& route, Index id, const Ports& ports) {
  const Message& m = system.messages[id];
  MessagePorts out;
  out.sender = m.isWrite ? ports.actors[m.actor].exec : ports.dataNodes[m.data].fork;
  gspn::TransitionId previous = out.sender;
  for (const Hop& hop : route.hops) {
    const std::string suffix =
        route.hops.size() == 1 ? "" : "[" + system.links[hop.links.front()].name + "]";
    HopPorts h;
    h.wait = net.addPlace(m.name + kWait + suffix, 0, m.name);
    h.transfer = net.addPlace(m.name + kTransfer + suffix, 0, m.name);
    h.begin = net.addImmediate(m.name + kBegin + suffix, 1.0, 1, m.name);
    h.exec = net.addTimed(m.name + kExec + suffix, 1.0, m.name, gspn::ServerSemantics::Infinite);
    net.setDelay(h.exec, hop.transfer);
    net.addOutput(previous, h.wait);
    net.addInput(h.begin, h.wait);
    for (Index l : hop.links) net.addInput(h.begin, ports.links[l].free);
    net.addOutput(h.begin, h.transfer);
    net.addInput(h.exec, h.transfer);
    for (Index l : hop.links) net.addOutput(h.exec, ports.links[l].free);
    previous = h.exec;
    out.hops.push_back(h);
  }
  net.addOutput(previous, receiverPlace(system, id, ports));
  return out;
}

namespace {

/// The sinks' `workload.done[A]` places, fed by their exec, joined by `join`.
void joinSinks(gspn::NetBuilder& net, const System& system, const Ports& ports, WorkloadPorts& out,
               gspn::TransitionId join) {
  for (Index a : system.sinks) {
    gspn::PlaceId done =
        net.addPlace("workload.done[" + system.actors[a].name + "]", 0, "workload");
    out.done.push_back(done);
    net.addOutput(ports.actors[a].exec, done);
    net.addInput(join, done);
  }
}

}  // namespace

WorkloadPorts translateClosedWorkload(gspn::NetBuilder& net, const System& system,
                                      const Ports& ports) {
  WorkloadPorts out;
  out.restart = net.addImmediate("workload.restart", 1.0, 1, "workload");
  joinSinks(net, system, ports, out, *out.restart);
  for (Index a : system.sources) net.addOutput(*out.restart, ports.actors[a].ready.back());
  return out;
}

WorkloadPorts translateOpenWorkload(gspn::NetBuilder& net, const System& system,
                                    const Ports& ports) {
  const Workload& w = system.workload;
  WorkloadPorts out;
  out.inside = net.addPlace("workload.inside", 0, "workload");
  out.arrive = net.addTimed("workload.arrive", w.arrivalRate, "workload");
  net.addInhibitor(*out.arrive, *out.inside, w.limit);
  net.addOutput(*out.arrive, *out.inside);
  for (Index a : system.sources) net.addOutput(*out.arrive, ports.actors[a].ready.back());
  out.restart = net.addImmediate("workload.leave", 1.0, 1, "workload");
  joinSinks(net, system, ports, out, *out.restart);
  net.addInput(*out.restart, *out.inside);
  return out;
}

WorkloadPorts translateBatchWorkload(gspn::NetBuilder& net, const System& system,
                                     const Ports& ports) {
  const Workload& w = system.workload;
  WorkloadPorts out;
  out.remaining = net.addPlace("workload.remaining", w.total - w.population, "workload");
  out.inside = net.addPlace("workload.inside", w.population, "workload");
  out.restart = net.addImmediate("workload.restart", 1.0, 1, "workload");
  joinSinks(net, system, ports, out, *out.restart);
  net.addInput(*out.restart, *out.remaining);
  for (Index a : system.sources) net.addOutput(*out.restart, ports.actors[a].ready.back());
  out.finish = net.addImmediate("workload.finish", 1.0, 1, "workload");
  for (gspn::PlaceId done : out.done) net.addInput(*out.finish, done);
  net.addInhibitor(*out.finish, *out.remaining, 1);
  net.addInput(*out.finish, *out.inside);
  return out;
}

void bindBatchSkeleton(gspn::NetBuilder& net, const System& system, Index k, SkeletonPorts& ports) {
  const Workload& w = system.workload;
  const std::string name = system.skeletonNodes[system.skeletons[k].root].name;
  ports.remaining = net.addPlace("workload.remaining[" + name + "]", w.total, "workload");
  ports.inside = net.addPlace("workload.inside[" + name + "]", 0, "workload");
  for (const TransferPorts& t : ports.moves.front()) {
    net.addInput(t.exec, *ports.remaining);
    net.addOutput(t.exec, *ports.inside);
    net.addInhibitor(t.exec, *ports.inside, w.population);
  }
  for (const TransferPorts& t : ports.moves.back()) net.addInput(t.exec, *ports.inside);
}

WorkloadPorts translateStreamWorkload(gspn::NetBuilder& net, const System& system,
                                      const Ports& ports) {
  for (Index a : system.sources) net.addOutput(ports.actors[a].exec, ports.actors[a].ready.back());
  return {};
}

Ports instantiateTemplates(gspn::NetBuilder& net, const System& system, const Routing& routing) {
  Ports ports;
  for (const Processor& p : system.processors)
    ports.processors.push_back(translateProcessor(net, p));
  for (const Link& l : system.links) ports.links.push_back(translateLink(net, l));
  for (const Actor& a : system.actors) ports.actors.push_back(translateActor(net, system, a));
  for (const Task& t : system.tasks) ports.tasks.push_back(translateTask(net, t));
  for (Index p = 0; p < system.processors.size(); ++p) {
    switch (system.processors[p].policy) {
      case Policy::Fcfs:
        bindFcfs(net, system, p, ports);
        break;
      case Policy::ProcessorSharing:
        bindProcessorSharing(net, system, p, ports);
        break;
      case Policy::Static:
        bindStatic(net, system, p, ports);
        break;
    }
  }
  for (const DataNode& d : system.dataNodes)
    ports.dataNodes.push_back(translateDataNode(net, system, d));
  for (Index d = 0; d < system.dataNodes.size(); ++d)
    if (system.dataNodes[d].capacity) bindCapacity(net, system, d, ports);
  for (Index id = 0; id < system.messages.size(); ++id)
    ports.messages.push_back(translateMessage(net, system, routing.messages[id], id, ports));
  for (Index k = 0; k < system.skeletons.size(); ++k) {
    ports.skeletons.push_back(translateSkeleton(net, system, routing.moves[k], k, ports));
    if (system.workload.kind == Workload::Kind::Batch)
      bindBatchSkeleton(net, system, k, ports.skeletons.back());
  }
  if (!system.sources.empty()) {
    switch (system.workload.kind) {
      case Workload::Kind::Closed:
        ports.workload = translateClosedWorkload(net, system, ports);
        break;
      case Workload::Kind::Open:
        ports.workload = translateOpenWorkload(net, system, ports);
        break;
      case Workload::Kind::Stream:
        ports.workload = translateStreamWorkload(net, system, ports);
        break;
      case Workload::Kind::Batch:
        ports.workload = translateBatchWorkload(net, system, ports);
        break;
    }
  }
  return ports;
}

}  // namespace mmt::compiler
