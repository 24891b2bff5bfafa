#pragma once
/// \file
/// The compound templates of MMT ([MMT] §3.2; docs/modelling.md, "Templates"), one function
/// per element and variant. Each adds its places and transitions to the builder, names them
/// after the element (`A4.begin`, `D1->A3.transfer`, …), groups them under the element for
/// Graphviz, and returns its *ports*: the places and transitions other templates connect to.
///
/// The axes: the processor policy decides how an actor's execution is served
/// (bindFcfs / bindProcessorSharing / bindStatic), the link kinds decide how a message's
/// route is cut into hops (route pass; one hop template), the workload decides how
/// iterations start and end (translateClosedWorkload / Open / Stream).

#include <optional>
#include <vector>

#include "compiler/model.hpp"
#include "gspn/net.hpp"

namespace mmt::compiler {

/// fcfs processor: `P.idle` holds one token per free server. ps and static processors have
/// no place of their own: their actors' `running` places are their state.
struct ProcessorPorts {
  std::optional<gspn::PlaceId> idle;
};

/// Link: `L.free` holds one token per free channel (every kind).
struct LinkPorts {
  gspn::PlaceId free;
};

/// Actor: one `A.ready[X]` place per read arc (X = the data node) or, for a source actor,
/// `A.ready[start]`; immediate `A.begin` takes one token from each ready place (and what
/// the processor policy and bounded data nodes add) into `A.running`; timed `A.exec` ends
/// the execution and emits the actor's writes.
struct ActorPorts {
  std::vector<gspn::PlaceId> ready;  ///< in the order of Actor::reads, then start
  gspn::PlaceId running;
  gspn::TransitionId begin;
  gspn::TransitionId exec;
};

/// Data node: one `D.in[A]` place per writer (holding the `initial` items at time 0);
/// immediate `D.fork` joins one item from every writer and sends one read message to every
/// reader. With a capacity, `D.space[A]` per writer holds the items writer A may still
/// begin to produce; a reader's `begin` gives the slot back (through `D.taken[R]` and the
/// join `D.release` when there are several readers).
struct DataNodePorts {
  std::vector<gspn::PlaceId> in;     ///< in the order of DataNode::writers
  std::vector<gspn::PlaceId> space;  ///< with a capacity: in the order of writers
  gspn::TransitionId fork;
};

/// One hop of a message: `M.wait`; immediate `M.begin` takes one channel of every link of
/// the hop into `M.transfer`; timed `M.exec` (rate 1 / transfer time per message) releases
/// them and passes the message on. A message of several hops suffixes each hop's names
/// with its first link, `M.wait[L12]`.
struct HopPorts {
  gspn::PlaceId wait, transfer;
  gspn::TransitionId begin, exec;
};

/// Message. Local (no time): no net elements, the sender's transition feeds the receiver
/// directly. Remote: its hops in route order.
struct MessagePorts {
  gspn::TransitionId sender;  ///< the transition whose firing sends the message
  std::vector<HopPorts> hops;
  /// The transition whose firing delivers it: the last hop's exec, or the sender.
  gspn::TransitionId delivery() const { return hops.empty() ? sender : hops.back().exec; }
};

/// How iterations start and end. closed(k): sinks put a token in `workload.done[A]` when
/// they end; immediate `workload.restart` joins one from every sink and starts every source
/// again. open(rate, limit): timed `workload.arrive` (inhibited by `limit` tokens in
/// `workload.inside`) starts every source and adds to `inside`; immediate `workload.leave`
/// joins the sinks' `done` and removes one. stream: each source's exec refills its own
/// `ready[start]`; sinks just end.
struct WorkloadPorts {
  /// closed, open and batch: in the order of System::sinks
  std::vector<gspn::PlaceId> done;
  std::optional<gspn::TransitionId> restart;  ///< closed and batch: restart; open: leave
  std::optional<gspn::TransitionId> arrive;   ///< open
  std::optional<gspn::PlaceId> inside;        ///< open: iterations admitted; batch: in flight
  /// batch: iterations not yet started (beyond the k the sources start with)
  std::optional<gspn::PlaceId> remaining;
  std::optional<gspn::TransitionId> finish;  ///< batch: an iteration ends, none to start
};

/// Skeleton task ([Benoit05] §3): `T.idle` (waiting for an item; one token at time 0),
/// `T.busy` (processing it), `T.full` (done, waiting for the next stage to take it); timed
/// `T.process` from busy to full, its delay set by the processor's bind function.
struct TaskPorts {
  gspn::PlaceId idle, busy, full;
  gspn::TransitionId process;
};

/// One transfer of a move: `X->Y.exec` takes the sender's `full` and the receiver's `idle`
/// (and the deal turns it needs) to the sender's `idle` and the receiver's `busy`, in one
/// step as in [Benoit05]'s PEPA model (the transfer blocks both while it lasts). Timed by
/// the transfer time; when the move has several transfers, its rate λ is shared evenly by
/// those enabled (Benoit's network offers each move once); immediate when it takes no time.
/// Into a map it takes every partition's receiver's `idle` at once (a scatter), out of one
/// every partition's sender's `full` (a gather).
struct TransferPorts {
  gspn::TransitionId exec;
};

/// A top-level skeleton: `D.turn[k]` per deal replica, and the transfers of every move in
/// System order.
struct SkeletonPorts {
  std::vector<std::vector<TransferPorts>> moves;
  /// batch(n, k): the items not yet taken in (n at time 0), and those inside (taken in, not
  /// yet out; at most k).
  std::optional<gspn::PlaceId> remaining, inside;
};

struct Ports {
  std::vector<ProcessorPorts> processors;
  std::vector<LinkPorts> links;
  std::vector<ActorPorts> actors;
  std::vector<DataNodePorts> dataNodes;
  std::vector<MessagePorts> messages;
  std::vector<TaskPorts> tasks;
  std::vector<SkeletonPorts> skeletons;
  WorkloadPorts workload;
};

ProcessorPorts translateProcessor(gspn::NetBuilder& net, const Processor& processor);
LinkPorts translateLink(gspn::NetBuilder& net, const Link& link);
/// The policy-independent part of an actor; its exec has no delay until a bind function runs.
ActorPorts translateActor(gspn::NetBuilder& net, const System& system, const Actor& actor);

/// fcfs: `A.begin` takes a server from `P.idle`, `A.exec` (demand / speed per execution,
/// infinite-server on `running`: each execution holds its own server) gives it back.
void bindFcfs(gspn::NetBuilder& net, const System& system, Index processor, const Ports& ports);
/// ps ([MMT] §2; Kleinrock 1976 §4.4): with n = Σ #A.running over the mapped actors and k
/// servers, `A.exec` has rate #A.running · (speed / E[demand]) · min(n, k) / n.
void bindProcessorSharing(gspn::NetBuilder& net, const System& system, Index processor,
                          const Ports& ports);
/// static ([Benoit05] §3): `A.exec` takes demand · (actors and tasks mapped) / speed per
/// execution, infinite-server, whatever the others do; `T.process` takes work · (actors
/// and tasks mapped) / speed (Benoit's μ = cp_j / nbst_j for work 1).
void bindStatic(gspn::NetBuilder& net, const System& system, Index processor, const Ports& ports);

TaskPorts translateTask(gspn::NetBuilder& net, const Task& task);
/// The moves of skeleton `k`: its deal turns, input and output places, and transfers.
SkeletonPorts translateSkeleton(gspn::NetBuilder& net, const System& system,
                                const std::vector<Move>& moves, Index k, const Ports& ports);

DataNodePorts translateDataNode(gspn::NetBuilder& net, const System& system, const DataNode& data);
/// Connects a bounded data node's slots: writers' begins take one, readers' begins give
/// it back.
void bindCapacity(gspn::NetBuilder& net, const System& system, Index data, const Ports& ports);
/// Connects the sender transition of message `id` to its receiver place, through its hops
/// when it is not local.
MessagePorts translateMessage(gspn::NetBuilder& net, const System& system,
                              const MessageRoute& route, Index id, const Ports& ports);
WorkloadPorts translateClosedWorkload(gspn::NetBuilder& net, const System& system,
                                      const Ports& ports);
WorkloadPorts translateOpenWorkload(gspn::NetBuilder& net, const System& system,
                                    const Ports& ports);
/// batch(n, k): the sources start with k iterations; `workload.restart` starts one more as
/// each ends while `workload.remaining` (n − k at time 0) lasts, `workload.finish` ends the
/// others; `workload.inside` counts the iterations in flight. The run ends in the marking
/// where both are empty and every element is idle.
WorkloadPorts translateBatchWorkload(gspn::NetBuilder& net, const System& system,
                                     const Ports& ports);
/// batch(n, k) on skeleton `k` of the system: its input takes at most n items in all
/// (`workload.remaining[S]`) and holds at most k at once (`workload.inside[S]`, inhibiting
/// the input's transfers at k; the output's transfers take one away).
void bindBatchSkeleton(gspn::NetBuilder& net, const System& system, Index skeleton,
                       SkeletonPorts& ports);
WorkloadPorts translateStreamWorkload(gspn::NetBuilder& net, const System& system,
                                      const Ports& ports);

/// Applies every template in dependency order.
/// `routing` is the route pass's output for `system`.
Ports instantiateTemplates(gspn::NetBuilder& net, const System& system, const Routing& routing);

}  // namespace mmt::compiler
