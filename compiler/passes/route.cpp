// route: every message between two processors gets its route, the links it crosses, either
// as given (`via`) or the one with the fewest links (docs/language.md, "Routes"), and the
// route is cut into hops, each crossed in one timed step (docs/modelling.md, "Links").
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <climits>
#include <cmath>
#include <map>
#include <ostream>

#include "compiler/passes/passes.hpp"
#include "compiler/property_reader.hpp"

namespace mmt::compiler::passes {
namespace {

/// Transfers one move may have (senders × receivers): a farm of 1,000 after a farm is
/// past it, and far past what an exact solution can hold (each replica triples the state
/// space).
constexpr std::size_t kMaxTransfersPerMove = 1024;

/// A mean delay whose rate, 1 / mean, is a finite positive number too (1e-320 is not).
bool isUsableTime(double mean) {
  return std::isfinite(mean) && mean > 0 && std::isfinite(1 / mean);
}

class RouteMessages final : public Pass {
 public:
  std::string_view name() const override { return "route"; }

  void apply(Compilation& c) const override {
    System& s = c.system;
    Routes routes(s);

    Routing& out = c.routing;
    out.messages.assign(s.messages.size(), {});
    for (Index i = 0; i < s.messages.size(); ++i) {
      const Message& m = s.messages[i];
      MessageRoute& r = out.messages[i];
      const Index from = s.senderProcessor(m), to = s.receiverProcessor(m);
      const std::string arc = describe(s, m);
      if (from == to) {
        if (m.viaOffset)
          c.diagnostics.error(*m.viaOffset, "'" + arc + "' is local (both ends on '" +
                                                s.processors[from].name + "') and needs no route");
        continue;
      }
      if (m.viaOffset) {
        if (!checkExplicit(c, m, from, to, arc)) continue;
        r.links = m.via;
      } else {
        auto path = routes.shortest(from, to);
        if (!path) {
          c.diagnostics.error(m.offset, "no route for '" + arc + "': no chain of links connects '" +
                                            s.processors[from].name + "' to '" +
                                            s.processors[to].name + "'");
          continue;
        }
        r.links = std::move(*path);
      }
      if (!cutIntoHops(c, m, r, arc)) continue;
    }
    for (const Skeleton& k : s.skeletons) out.moves.push_back(routeSkeleton(c, routes, k));
    checkExecutionTimes(c);
  }

  void dump(const Compilation& c, std::ostream& out) const override {
    const System& s = c.system;
    for (Index i = 0; i < s.messages.size(); ++i) {
      const MessageRoute& m = c.routing.messages[i];
      out << "  " << s.messages[i].name;
      if (m.local()) {
        out << " local\n";
        continue;
      }
      out << " via";
      for (const Hop& h : m.hops) {
        for (Index l : h.links) out << ' ' << s.links[l].name;
        out << " ("
            << (h.transfer.isExponential() ? formatNumber(h.transfer.mean())
                                           : h.transfer.toString())
            << " time units)";
      }
      out << '\n';
    }
    for (const auto& moves : c.routing.moves)
      for (const Move& move : moves)
        for (const Transfer& t : move.transfers)
          out << "  " << t.name << ' '
              << (!t.time ? std::string("instantaneous")
                          : (t.time->isExponential() ? formatNumber(t.time->mean())
                                                     : t.time->toString()) +
                                " time units")
              << '\n';
  }

 private:
  static std::string describe(const System& s, const Message& m) {
    return m.isWrite ? s.actors[m.actor].name + " -> " + s.dataNodes[m.data].name
                     : s.dataNodes[m.data].name + " -> " + s.actors[m.actor].name;
  }

  /// The routes between processors: a graph of a vertex per processor and one per link, an
  /// edge from each link to each of its ends, so that a bus of n processors costs n edges
  /// (a clique would cost n(n − 1)/2: 8 million for a bus of 4,000) and a route of k links
  /// is a path of 2k edges. The distances to a destination are found once and kept.
  class Routes {
   public:
    explicit Routes(const System& s) : s_(s), graph_(s.processors.size() + s.links.size()) {
      for (Index l = 0; l < s.links.size(); ++l)
        for (Index e : s.links[l].ends) boost::add_edge(e, s.processors.size() + l, graph_);
    }

    /// The route with the fewest links from `from` to `to` (a bus counts as one link
    /// between any two of its processors); among equally short ones, the
    /// lexicographically smallest sequence of link names. Nothing when no chain of links
    /// connects them.
    std::optional<std::vector<Index>> shortest(Index from, Index to) {
      const std::vector<std::size_t>& distance = distancesTo(to);
      if (distance[from] == SIZE_MAX) return std::nullopt;
      // Walk greedily towards the destination taking the smallest name at each hop (a bus
      // leads to its end nearest the destination, the lowest-numbered on a tie); a link
      // crossed is two edges.
      std::vector<Index> route;
      for (Index at = from; at != to;) {
        std::optional<Index> best, next;
        for (Index l = 0; l < s_.links.size(); ++l) {
          const Link& link = s_.links[l];
          if (!link.touches(at) || (best && s_.links[*best].name < link.name)) continue;
          for (Index e : link.ends)
            if (distance[e] + 2 == distance[at]) {
              best = l;
              next = e;
              break;
            }
        }
        route.push_back(*best);
        at = *next;
      }
      return route;
    }

   private:
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

    const std::vector<std::size_t>& distancesTo(Index to) {
      auto [it, fresh] = distances_.try_emplace(to);
      if (!fresh) return it->second;
      std::vector<std::size_t>& distance = it->second;
      distance.assign(boost::num_vertices(graph_), SIZE_MAX);
      distance[to] = 0;
      boost::breadth_first_search(
          graph_, to,
          boost::visitor(boost::make_bfs_visitor(boost::record_distances(
              boost::make_iterator_property_map(distance.begin(),
                                                boost::get(boost::vertex_index, graph_)),
              boost::on_tree_edge()))));
      return distance;
    }

    const System& s_;
    Graph graph_;
    std::map<Index, std::vector<std::size_t>> distances_;
  };

  /// The time to carry `size` over `links` in one step: latency sum + size / smallest
  /// bandwidth. A declared size distribution keeps its shape, shifted by the latency; a
  /// plain size (exponential) gives an exponential time with the same mean. Nothing when
  /// it takes no time (no size and no latency, `mean` 0) or cannot be a rate (`mean` set).
  static std::optional<gspn::Distribution> carryTime(const System& s,
                                                     const std::vector<Index>& links,
                                                     const std::optional<gspn::Distribution>& size,
                                                     double& mean) {
    double latency = 0, bandwidth = HUGE_VAL;
    for (Index l : links) {
      latency += s.links[l].latency;
      bandwidth = std::min(bandwidth, s.links[l].bandwidth);
    }
    mean = latency + (size ? size->mean() / bandwidth : 0);
    if (!isUsableTime(mean)) return std::nullopt;  // the caller reports a mean other than 0
    return size && !size->isExponential() ? size->scaled(1 / bandwidth).shifted(latency)
                                          : gspn::Distribution::exponential(mean);
  }

  // ---- skeletons ([Benoit05] §3; [Yaikhom07] §3; docs/modelling.md, "Skeletons") -------

  /// One way into or out of a node: a task per partition (one task, except through a
  /// map: one per replica), the deal turns it needs (into a deal's replica), and its name
  /// in a transfer's ("W[2]", the map's "M", or "W[1][2]+W[2][1]" through a map of farms).
  struct Way {
    std::vector<Index> tasks;
    std::vector<std::pair<Index, std::size_t>> turns;
    std::string label;
  };

  /// Every combination of one way of each list: a map's ways are one per partition. Stops
  /// past `kMaxTransfersPerMove` combinations (the caller reports the move as too large).
  static std::vector<Way> combinations(const std::vector<std::vector<Way>>& lists,
                                       const std::string& whole) {
    std::vector<Way> out{Way{}};
    for (const std::vector<Way>& list : lists) {
      std::vector<Way> next;
      for (const Way& a : out)
        for (const Way& b : list) {
          if (next.size() > kMaxTransfersPerMove) break;
          Way w = a;
          w.tasks.insert(w.tasks.end(), b.tasks.begin(), b.tasks.end());
          w.turns.insert(w.turns.end(), b.turns.begin(), b.turns.end());
          w.label += (w.label.empty() ? "" : "+") + b.label;
          next.push_back(std::move(w));
        }
      out = std::move(next);
    }
    // One way through a map of tasks: the map's own name.
    if (out.size() == 1) out.front().label = whole;
    return out;
  }

  /// The ways an item may enter `node` (`in`) or leave it: a pipeline's first stage's or
  /// last stage's; any replica's for a farm or deal (into a deal, each behind its turn);
  /// for a map, one way into or out of every replica at once (the scatter, the gather).
  static std::vector<Way> ways(const System& s, Index node, bool in) {
    const SkeletonNode& n = s.skeletonNodes[node];
    switch (n.kind) {
      case SkeletonNode::Kind::Task:
        return {{{n.task}, {}, s.tasks[n.task].name}};
      case SkeletonNode::Kind::Pipeline:
        return ways(s, in ? n.members.front() : n.members.back(), in);
      case SkeletonNode::Kind::Farm:
      case SkeletonNode::Kind::Deal: {
        const bool turns = in && n.kind == SkeletonNode::Kind::Deal && n.members.size() > 1;
        std::vector<Way> out;
        for (std::size_t k = 0; k < n.members.size(); ++k)
          for (Way e : ways(s, n.members[k], in)) {
            if (turns) e.turns.insert(e.turns.begin(), {node, k});
            out.push_back(std::move(e));
          }
        return out;
      }
      case SkeletonNode::Kind::Map: {
        std::vector<std::vector<Way>> each;
        for (Index m : n.members) each.push_back(ways(s, m, in));
        return combinations(each, n.name);
      }
    }
    return {};
  }

  /// The time of a transfer with several messages, one per (sender, receiver) pair, sent one
  /// after another (a linear scatter or gather): exponential with the sum of the means when
  /// every message's time is exponential, constant when every one is constant, otherwise
  /// the gamma with the sum's mean and variance (moments). Nothing when none takes time.
  static std::optional<gspn::Distribution> sequence(
      const std::vector<gspn::Distribution>& messages) {
    if (messages.empty()) return std::nullopt;
    if (messages.size() == 1) return messages.front();
    double mean = 0, variance = 0;
    bool exponential = true;
    for (const gspn::Distribution& d : messages) {
      mean += d.mean();
      variance += d.variance();
      exponential = exponential && d.isExponential();
    }
    if (exponential) return gspn::Distribution::exponential(mean);
    return gspn::Distribution::make("moments", {mean, variance});
  }

  /// Every move of a skeleton: in from its input, between consecutive stages at every
  /// level, out to its output; each with one transfer per (exit, entry) pair. A transfer
  /// sends one message per (sender, receiver) pair, timed by their hosts, each carrying
  /// the receiver's size (the output size out of the skeleton) over the senders.
  class SkeletonRouter {
   public:
    SkeletonRouter(Compilation& c, Routes& routes, const Skeleton& k)
        : c_(c), s_(c.system), routes_(routes), k_(k) {}

    std::vector<Move> route() {
      const std::vector<Way> firstEntries = ways(s_, k_.root, true);
      move(std::nullopt, nullptr, &firstEntries);
      inner(k_.root);  // depth first, so moves appear in the order items cross them
      const std::vector<Way> lastExits = ways(s_, k_.root, false);
      move(std::nullopt, &lastExits, nullptr);
      return std::move(moves_);
    }

   private:
    void error(const std::string& message) {
      c_.diagnostics.error(s_.skeletonNodes[k_.root].offset, message);
    }

    /// The time of one message of `size` between two hosts: none when either end is none
    /// or it takes no time; an error when no route joins them or the time is no rate.
    std::optional<gspn::Distribution> time(std::optional<Index> fromHost,
                                           std::optional<Index> toHost,
                                           const std::optional<gspn::Distribution>& size,
                                           const std::string& name) {
      if (!fromHost || !toHost) return std::nullopt;  // none: no transfer
      std::optional<gspn::Distribution> out;
      double mean = 0;
      if (*fromHost == *toHost) {
        const double b = s_.processors[*fromHost].localBandwidth;
        if (std::isinf(b) || !size) return std::nullopt;
        mean = size->mean() / b;
        if (isUsableTime(mean))
          out = size->isExponential() ? gspn::Distribution::exponential(mean) : size->scaled(1 / b);
      } else {
        auto path = routes_.shortest(*fromHost, *toHost);
        if (!path) {
          error("no route for the transfer '" + name + "': no chain of links connects '" +
                s_.processors[*fromHost].name + "' to '" + s_.processors[*toHost].name + "'");
          return std::nullopt;
        }
        out = carryTime(s_, *path, size, mean);
        if (!out && mean == 0) return std::nullopt;
      }
      if (!isUsableTime(mean))
        error("the transfer time of '" + name + "' (" + formatNumber(mean) +
              ") is too large or too small for a rate; check the size, bandwidth and latency");
      return out;
    }

    /// The host of a skeleton's input or output for `task`: its own processor when local.
    std::optional<Index> endpointHost(const Endpoint& e, Index task) const {
      switch (e.kind) {
        case Endpoint::Kind::None:
          return std::nullopt;
        case Endpoint::Kind::Local:
          return s_.tasks[task].processor;
        case Endpoint::Kind::Processor:
          return e.processor;
      }
      return std::nullopt;
    }

    /// A transfer's name, from `from` (none: the input) to `to` (none: the output).
    static std::string name(const Way* from, const Way* to) {
      return (from ? from->label : "input") + "->" + (to ? to->label : "output");
    }

    Transfer transfer(const Way* from, const Way* to) {
      Transfer t;
      t.name = name(from, to);
      if (from) t.from = from->tasks;
      if (to) {
        t.to = to->tasks;
        t.turns = to->turns;
      }
      std::vector<gspn::Distribution> messages;
      auto add = [&](std::optional<gspn::Distribution> d) {
        if (d) messages.push_back(std::move(*d));
      };
      const double senders = double(std::max<std::size_t>(1, t.from.size()));
      auto share = [&](const std::optional<gspn::Distribution>& size) {
        return size && senders > 1 ? std::optional(size->scaled(1 / senders)) : size;
      };
      if (!from) {
        for (Index r : t.to)
          add(time(endpointHost(k_.input, r), s_.tasks[r].processor, s_.tasks[r].size, t.name));
      } else if (!to) {
        for (Index f : t.from)
          add(time(s_.tasks[f].processor, endpointHost(k_.output, f), share(k_.outputSize),
                   t.name));
      } else {
        for (Index f : t.from)
          for (Index r : t.to)
            add(time(s_.tasks[f].processor, s_.tasks[r].processor, share(s_.tasks[r].size),
                     t.name));
      }
      t.time = sequence(messages);
      return t;
    }

    /// Each transfer of a move with a choice carries the move's whole sum in its rate
    /// (templates.hpp, TransferPorts), so a move costs the square of its transfers: a move
    /// past kMaxTransfersPerMove is an error, reported once per skeleton.
    bool fits(const std::string& example, std::size_t senders, std::size_t receivers) {
      const std::size_t transfers = senders * receivers;
      if (transfers <= kMaxTransfersPerMove) return true;
      // A list of one more than the limit may have been cut short (combinations).
      const bool cut = std::max(senders, receivers) == kMaxTransfersPerMove + 1;
      if (!tooLarge_)
        error("the move with the transfer '" + example + "' has " +
              (cut ? "more than " + std::to_string(kMaxTransfersPerMove)
                   : std::to_string(transfers)) +
              " transfers (senders × receivers); mmt handles at most " +
              std::to_string(kMaxTransfersPerMove) + " per move: use fewer replicas");
      tooLarge_ = true;
      return false;
    }

    /// The move from the ways `from` (none: the input) to the ways `to` (none: the output).
    void move(std::optional<Index> pipeline, const std::vector<Way>* from,
              const std::vector<Way>* to) {
      Move m;
      m.pipeline = pipeline;
      const std::size_t senders = from ? from->size() : 1, receivers = to ? to->size() : 1;
      const Way* first = from && !from->empty() ? &from->front() : nullptr;
      const Way* firstTo = to && !to->empty() ? &to->front() : nullptr;
      if (fits(name(first, firstTo), senders, receivers))
        for (std::size_t i = 0; i < senders; ++i)
          for (std::size_t j = 0; j < receivers; ++j)
            m.transfers.push_back(transfer(from ? &(*from)[i] : nullptr, to ? &(*to)[j] : nullptr));
      moves_.push_back(std::move(m));
    }

    /// The moves between consecutive stages of every pipeline under `node`.
    void inner(Index node) {
      const SkeletonNode& n = s_.skeletonNodes[node];
      for (std::size_t i = 0; i < n.members.size(); ++i) {
        if (n.kind == SkeletonNode::Kind::Pipeline && i > 0) {
          const std::vector<Way> from = ways(s_, n.members[i - 1], false),
                                 to = ways(s_, n.members[i], true);
          move(node, &from, &to);
        }
        inner(n.members[i]);
      }
    }

    Compilation& c_;
    const System& s_;
    Routes& routes_;
    const Skeleton& k_;
    std::vector<Move> moves_;
    bool tooLarge_ = false;
  };

  static std::vector<Move> routeSkeleton(Compilation& c, Routes& routes, const Skeleton& k) {
    return SkeletonRouter(c, routes, k).route();
  }

  /// Where a route that is at processor `at` stands after crossing `link`: the other end of
  /// a point-to-point link; for a bus, the receiver when it is the last link, else an end
  /// the next link touches.
  static std::optional<Index> crossing(const Link& link, Index at, const Link* nextLink,
                                       Index receiver) {
    if (link.ends.size() == 2) return link.ends[0] == at ? link.ends[1] : link.ends[0];
    for (Index e : link.ends)
      if (e != at && (nextLink ? nextLink->touches(e) : e == receiver)) return e;
    return std::nullopt;
  }

  static bool checkExplicit(Compilation& c, const Message& m, Index from, Index to,
                            const std::string& arc) {
    const System& s = c.system;
    Index at = from;
    for (std::size_t i = 0; i < m.via.size(); ++i) {
      const Link& link = s.links[m.via[i]];
      if (!link.touches(at)) {
        c.diagnostics.error(*m.viaOffset, "route of '" + arc + "': link '" + link.name +
                                              "' does not touch '" + s.processors[at].name +
                                              "', where the route is at that point");
        return false;
      }
      const Link* nextLink = i + 1 < m.via.size() ? &s.links[m.via[i + 1]] : nullptr;
      const auto next = crossing(link, at, nextLink, to);
      if (!next) {
        c.diagnostics.error(
            *m.viaOffset,
            "route of '" + arc + "': bus '" + link.name + "' " +
                (nextLink
                     ? "shares no processor with the next link, '" + nextLink->name + "'"
                     : "does not reach '" + s.processors[to].name + "', where the receiver is"));
        return false;
      }
      at = *next;
    }
    if (at != to) {
      c.diagnostics.error(*m.viaOffset, "route of '" + arc + "' ends at '" + s.processors[at].name +
                                            "', but the receiver is on '" + s.processors[to].name +
                                            "'");
      return false;
    }
    return true;
  }

  /// Cuts the route into hops: each store-and-forward link alone, every maximal run of
  /// circuit and bus links together. A hop takes latency sum + size / smallest bandwidth;
  /// a declared size distribution keeps its shape, shifted by the latency, a plain size
  /// (exponential) gives an exponential transfer with the same mean. Hops that take no
  /// time (no size, no latency) are dropped.
  static bool cutIntoHops(Compilation& c, const Message& m, MessageRoute& r,
                          const std::string& arc) {
    const System& s = c.system;
    std::vector<std::vector<Index>> runs;
    bool circuitOpen = false;
    for (Index l : r.links) {
      const bool alone = s.links[l].kind == LinkKind::StoreForward;
      if (alone || !circuitOpen) runs.emplace_back();
      runs.back().push_back(l);
      circuitOpen = !alone;
    }
    for (const auto& links : runs) {
      double mean = 0;
      auto transfer = carryTime(s, links, m.size, mean);
      if (!transfer && mean == 0) continue;
      if (!transfer) {
        c.diagnostics.error(m.offset, "the transfer time of '" + arc +
                                          "' (latency + size / bandwidth = " + formatNumber(mean) +
                                          ") is too large or too small for a rate; check the "
                                          "size, bandwidth and latency");
        return false;
      }
      r.hops.push_back({links, *transfer});
    }
    return true;
  }

  /// Execution times: the demand's mean over the speed each execution gets.
  static void checkExecutionTimes(Compilation& c) {
    const System& s = c.system;
    for (const Actor& a : s.actors) {
      if (!a.processor || !a.demand) continue;
      const Processor& p = s.processors[*a.processor];
      const double time = a.demand->mean() / p.speed;
      if (!isUsableTime(time))
        c.diagnostics.error(a.offset, "the execution time of actor '" + a.name +
                                          "' (demand / speed = " + formatNumber(time) +
                                          ") is too large or too small for a rate; check its "
                                          "demand and the speed of '" +
                                          p.name + "'");
    }
    for (const Task& t : s.tasks) {
      if (!t.processor) continue;
      const Processor& p = s.processors[*t.processor];
      const double time = t.work.mean() * double(p.sharers()) / p.speed;
      if (!isUsableTime(time))
        c.diagnostics.error(t.offset,
                            "the processing time of task '" + t.name +
                                "' (work · tasks sharing / speed = " + formatNumber(time) +
                                ") is too large or too small for a rate; check its "
                                "work and the speed of '" +
                                p.name + "'");
    }
  }
};

}  // namespace

std::unique_ptr<Pass> route() { return std::make_unique<RouteMessages>(); }

}  // namespace mmt::compiler::passes
