#pragma once
/// \file
/// The checked system: hardware, application, mapping and workload with names resolved to
/// indices (docs/language.md; [MMT] §2). Offsets point into the source for diagnostics.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gspn/distribution.hpp"

namespace mmt::compiler {

using Index = std::uint32_t;

/// How a processor shares itself among the actors mapped to it (docs/language.md,
/// "Processors"; [MMT] §2; [Benoit05] §3 for static).
enum class Policy {
  Fcfs,              ///< `servers` actors execute at a time, each at full speed
  ProcessorSharing,  ///< n executing actors each progress at speed · min(n, servers) / n
  Static,            ///< each mapped actor always has speed / (actors mapped), no contention
};

/// How a message crosses a link (docs/language.md, "Links").
enum class LinkKind {
  Circuit,       ///< acquired together with the other circuit links of the route
  StoreForward,  ///< a hop of its own: acquire, transfer, release, then the next hop
  Bus,           ///< one shared medium for two or more processors; acquired as a circuit
};

const char* toString(Policy policy);
const char* toString(LinkKind kind);

struct Processor {
  std::string name;
  std::size_t offset = 0;
  Policy policy = Policy::Fcfs;
  double speed = 1.0;  ///< work units per time unit
  std::uint32_t servers = 1;
  /// Data units per time unit between two skeleton tasks on this processor; infinite (the
  /// default): such a transfer takes no time.
  double localBandwidth = HUGE_VAL;
  bool policyGiven = false;   ///< `policy` was written (otherwise a task host is static)
  std::vector<Index> actors;  ///< actors mapped here
  std::vector<Index> tasks;   ///< skeleton tasks mapped here
  /// Actors and tasks that share a static processor's speed.
  std::size_t sharers() const { return actors.size() + tasks.size(); }
};

struct Link {
  std::string name;
  std::size_t offset = 0;
  LinkKind kind = LinkKind::Circuit;
  double bandwidth = 1.0;  ///< data units per time unit
  double latency = 0.0;    ///< time units per message
  std::uint32_t channels = 1;
  /// The processors it connects: two for a point-to-point link, two or more for a bus.
  std::vector<Index> ends;

  bool touches(Index processor) const {
    return std::find(ends.begin(), ends.end(), processor) != ends.end();
  }
};

struct Actor {
  std::string name;
  std::size_t offset = 0;
  /// Work units (exponential with mean 1 by default); none: `demand: 0`, the actor takes no
  /// time (its execution is an immediate transition).
  std::optional<gspn::Distribution> demand;
  std::optional<Index> processor;
  std::vector<Index> reads;   ///< messages D -> this actor
  std::vector<Index> writes;  ///< messages this actor -> D
};

struct DataNode {
  std::string name;
  std::size_t offset = 0;
  std::optional<Index> processor;
  /// Items it may hold or have reserved, not yet taken by every reader; empty: unbounded.
  std::optional<std::uint32_t> capacity;
  std::uint32_t initial = 0;   ///< complete items present at time 0
  std::vector<Index> writers;  ///< messages A -> this node
  std::vector<Index> readers;  ///< messages this node -> A
};

/// A stretch of a message's route crossed in one timed step: a maximal run of circuit and
/// bus links (acquired all at once), or one store-and-forward link.
struct Hop {
  std::vector<Index> links;
  /// latency sum + size / smallest bandwidth of the hop's links.
  gspn::Distribution transfer;
};

/// One arc of the dataflow graph: a write `A -> D` or a read `D -> A`. It becomes a message
/// between the processors hosting its two ends.
struct Message {
  std::string name;  ///< "A1->D1" / "D1->A2"
  std::size_t offset = 0;
  bool isWrite = true;
  Index actor = 0;
  Index data = 0;
  std::optional<gspn::Distribution> size;  ///< data units; empty for no data
  /// The route the mapping gives with `via`, as written (the route pass checks it).
  std::vector<Index> via;
  std::optional<std::size_t> viaOffset;  ///< set when the mapping gives `via`
};

/// What the route pass gives a message: its links, in order from sender to receiver, and
/// their hops; no hops when the message takes no time (same processor, or nothing to send
/// and no latency).
struct MessageRoute {
  std::vector<Index> links;
  std::vector<Hop> hops;
  bool local() const { return hops.empty(); }
};

/// How iterations of the application enter (docs/language.md, "Workload").
struct Workload {
  enum class Kind {
    Closed,  ///< closed(k): k iterations always in flight
    Open,    ///< open(rate, limit): Poisson arrivals, admitted while fewer than limit inside
    Stream,  ///< stream: every source starts again as soon as it ends
    Batch,   ///< batch(n, k): n iterations in all, at most k in flight; the run then ends
  };
  Kind kind = Kind::Closed;
  std::size_t offset = 0;
  std::uint32_t population = 1;  ///< closed(k), batch(n, k): iterations in flight
  std::uint32_t total = 0;       ///< batch(n, k): iterations in all
  double arrivalRate = 0;        ///< open: iterations per time unit
  std::uint32_t limit = 0;       ///< open: iterations admitted at once
};

/// A task of a skeleton ([Benoit05] §3; docs/language.md, "Skeletons"): it receives one
/// item, processes it, and holds it until the next stage takes it.
struct Task {
  std::string name;
  std::size_t offset = 0;
  gspn::Distribution work;                 ///< work units per item (`rate: r` is work 1 / r)
  std::optional<gspn::Distribution> size;  ///< data units of each item it receives; none: 0
  std::optional<Index> processor;
  Index skeleton = 0;  ///< the top-level skeleton it belongs to
};

/// A node of a skeleton tree: a pipeline of stages, a farm, deal or map of replicas, or a
/// task.
struct SkeletonNode {
  enum class Kind { Pipeline, Farm, Deal, Map, Task };
  Kind kind = Kind::Task;
  std::string name;
  std::size_t offset = 0;
  std::vector<Index> members;  ///< nodes: a pipeline's stages, a farm's, deal's or map's replicas
  Index task = 0;              ///< Task: the task
};

/// Where a skeleton's inputs come from or its outputs go.
struct Endpoint {
  enum class Kind {
    None,       ///< the first stage makes its inputs / the last consumes its outputs
    Local,      ///< the processor of the task that receives or sends them
    Processor,  ///< a named processor
  };
  Kind kind = Kind::None;
  Index processor = 0;
};

/// One way an item may cross a move: from its sender tasks (none: the skeleton's input) to
/// its receiver tasks (none: its output destination), in `time` (none: no time at all). A
/// transfer has one sender and one receiver, except into a map (a scatter: one receiver
/// per partition) and out of one (a gather: one sender per partition).
struct Transfer {
  std::string name;  ///< "S1->S2", "input->S1", "S3->output", "S->M" (a scatter into map M)
  std::vector<Index> from, to;
  /// Deals the receiver is entered through: (deal node, replica position); the transfer
  /// needs that replica's turn and passes the turn on.
  std::vector<std::pair<Index, std::size_t>> turns;
  std::optional<gspn::Distribution> time;
};

/// The items passing between two consecutive stages (or in from the input, or out to the
/// output): every (exit task of the sender, entry task of the receiver) pair.
struct Move {
  std::vector<Transfer> transfers;
  /// The pipeline node whose consecutive stages it joins; none for the input and output.
  std::optional<Index> pipeline;
};

/// A top-level skeleton: its tree, and where its items come from and go.
struct Skeleton {
  Index root = 0;  ///< node
  Endpoint input, output;
  std::optional<gspn::Distribution> outputSize;  ///< none: 0
  std::vector<Index> tasks;
};

/// The route pass's output: what exists only once routes are known.
struct Routing {
  std::vector<MessageRoute> messages;  ///< per message
  /// Per skeleton, its moves: in from its input, between consecutive stages at every level
  /// (depth first), out to its output.
  std::vector<std::vector<Move>> moves;
};

struct System {
  std::string name;
  std::vector<Processor> processors;
  std::vector<Link> links;
  std::vector<Actor> actors;
  std::vector<DataNode> dataNodes;
  std::vector<Message> messages;
  std::vector<Task> tasks;
  std::vector<SkeletonNode> skeletonNodes;
  std::vector<Skeleton> skeletons;
  Workload workload;
  std::vector<Index> sources;  ///< actors with no read arcs
  std::vector<Index> sinks;    ///< actors with no write arcs

  Index senderProcessor(const Message& m) const {
    return m.isWrite ? *actors[m.actor].processor : *dataNodes[m.data].processor;
  }
  Index receiverProcessor(const Message& m) const {
    return m.isWrite ? *dataNodes[m.data].processor : *actors[m.actor].processor;
  }
};

}  // namespace mmt::compiler
