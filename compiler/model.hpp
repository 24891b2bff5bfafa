#pragma once
/// \file
/// The checked system: hardware, application, mapping and workload with names resolved to
/// indices (docs/language.md; [MMT] §2). Offsets point into the source for diagnostics.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gspn/distribution.hpp"

namespace mmt::compiler {

using Index = std::uint32_t;

enum class Policy { Fcfs };
enum class LinkKind { Circuit };

struct Processor {
  std::string name;
  std::size_t offset = 0;
  Policy policy = Policy::Fcfs;
  double speed = 1.0;        ///< work units per time unit
  std::uint32_t servers = 1;
  std::vector<Index> actors;  ///< actors mapped here
};

struct Link {
  std::string name;
  std::size_t offset = 0;
  LinkKind kind = LinkKind::Circuit;
  double bandwidth = 1.0;     ///< data units per time unit
  double latency = 0.0;       ///< time units per message
  std::uint32_t channels = 1;
  Index ends[2] = {0, 0};     ///< the two processors it connects

  bool touches(Index processor) const { return ends[0] == processor || ends[1] == processor; }
  /// The processor across the link from `processor` (one of its ends).
  Index otherEnd(Index processor) const { return ends[0] == processor ? ends[1] : ends[0]; }
};

struct Actor {
  std::string name;
  std::size_t offset = 0;
  gspn::Distribution demand;  ///< work units (exponential with mean 1 by default)
  std::optional<Index> processor;
  std::vector<Index> reads;   ///< messages D -> this actor
  std::vector<Index> writes;  ///< messages this actor -> D
};

struct DataNode {
  std::string name;
  std::size_t offset = 0;
  std::optional<Index> processor;
  std::vector<Index> writers;  ///< messages A -> this node
  std::vector<Index> readers;  ///< messages this node -> A
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
  std::vector<Index> route;          ///< links, in order from sender to receiver
  std::optional<std::size_t> routeOffset;  ///< set when the mapping gives `via`
  bool local = true;                 ///< takes no time (same processor, or nothing to send)
  /// Transfer time: summed latencies + size / smallest bandwidth on the route (circuit);
  /// empty when the message takes no time.
  std::optional<gspn::Distribution> transfer;
};

struct Workload {
  std::size_t offset = 0;
  std::uint32_t population = 1;  ///< closed(k): iterations in flight
};

struct System {
  std::string name;
  std::vector<Processor> processors;
  std::vector<Link> links;
  std::vector<Actor> actors;
  std::vector<DataNode> dataNodes;
  std::vector<Message> messages;
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
