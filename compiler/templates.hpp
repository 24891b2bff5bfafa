#pragma once
/// \file
/// The compound templates of MMT ([MMT] §3.2; docs/modelling.md, "Templates"), one function per element
/// kind. Each adds its places and transitions to the builder, names them after the element
/// (`A4.begin`, `D1->A3.transfer`, …), groups them under the element for Graphviz, and
/// returns its *ports*: the places and transitions other templates connect to.

#include <optional>
#include <vector>

#include "compiler/model.hpp"
#include "gspn/net.hpp"

namespace mmt::compiler {

/// fcfs processor: `P.idle` holds one token per free server.
struct ProcessorPorts {
  gspn::PlaceId idle;
};

/// Circuit link: `L.free` holds one token per free channel.
struct LinkPorts {
  gspn::PlaceId free;
};

/// Actor: one `A.ready[X]` place per read arc (X = the data node) or, for a source actor,
/// `A.ready[start]`; immediate `A.begin` takes one token from each ready place and a
/// server of the processor into `A.running`; timed `A.exec` (rate speed / demand per
/// execution) releases the server and emits the actor's writes.
struct ActorPorts {
  std::vector<gspn::PlaceId> ready;  ///< in the order of Actor::reads, then start
  gspn::PlaceId running;
  gspn::TransitionId begin;
  gspn::TransitionId exec;
};

/// Data node: one `D.in[A]` place per writer; immediate `D.fork` joins one item from every
/// writer and sends one read message to every reader.
struct DataNodePorts {
  std::vector<gspn::PlaceId> in;  ///< in the order of DataNode::writers
  gspn::TransitionId fork;
};

/// Message. Local (no time): no net elements, the sender's transition feeds the receiver
/// directly. Circuit: `M.wait`; immediate `M.begin` takes one channel of every link of the
/// route at once into `M.transfer`; timed `M.exec` (rate 1 / transfer time per message)
/// releases the links and delivers.
struct MessagePorts {
  gspn::TransitionId sender;  ///< the transition whose firing sends the message
  std::optional<gspn::PlaceId> wait, transfer;
  std::optional<gspn::TransitionId> begin, exec;
};

/// closed(k): sinks put a token in `workload.done[A]` when they end; immediate
/// `workload.restart` joins one from every sink and starts every source again.
struct WorkloadPorts {
  std::vector<gspn::PlaceId> done;  ///< in the order of System::sinks
  gspn::TransitionId restart;
};

struct Ports {
  std::vector<ProcessorPorts> processors;
  std::vector<LinkPorts> links;
  std::vector<ActorPorts> actors;
  std::vector<DataNodePorts> dataNodes;
  std::vector<MessagePorts> messages;
  WorkloadPorts workload;
};

ProcessorPorts translateProcessor(gspn::NetBuilder& net, const Processor& processor);
LinkPorts translateLink(gspn::NetBuilder& net, const Link& link);
ActorPorts translateActor(gspn::NetBuilder& net, const System& system, const Actor& actor,
                          const ProcessorPorts& processor);
DataNodePorts translateDataNode(gspn::NetBuilder& net, const System& system,
                                const DataNode& data);
/// Connects the sender transition of message `id` to its receiver place, through a circuit
/// over the route when the message is not local.
MessagePorts translateMessage(gspn::NetBuilder& net, const System& system, Index id,
                              const Ports& ports);
WorkloadPorts translateClosedWorkload(gspn::NetBuilder& net, const System& system,
                                      const Ports& ports);

/// Applies every template in dependency order.
Ports instantiateTemplates(gspn::NetBuilder& net, const System& system);

}  // namespace mmt::compiler
