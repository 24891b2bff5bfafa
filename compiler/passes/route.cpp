// route: every message between two processors gets its route, the links it crosses, either
// as given (`via`) or the one with the fewest links (docs/language.md, "Routes"), and the
// route is cut into hops, each crossed in one timed step (docs/modelling.md, "Links").
#include <algorithm>
#include <climits>
#include <cmath>
#include <ostream>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>

#include "compiler/passes/passes.hpp"
#include "compiler/property_reader.hpp"

namespace mmt::compiler::passes {
namespace {

/// A mean delay whose rate, 1 / mean, is a finite positive number too (1e-320 is not).
bool isUsableTime(double mean) { return std::isfinite(mean) && mean > 0 && std::isfinite(1 / mean); }

class RouteMessages final : public Pass {
 public:
  std::string_view name() const override { return "route"; }

  void apply(Compilation& c) const override {
    System& s = c.system;
    // Processors are vertices; a point-to-point link is an edge, a bus a clique.
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    Graph graph(s.processors.size());
    for (const Link& l : s.links)
      for (std::size_t i = 0; i < l.ends.size(); ++i)
        for (std::size_t j = i + 1; j < l.ends.size(); ++j) boost::add_edge(l.ends[i], l.ends[j], graph);

    for (Message& m : s.messages) {
      const Index from = s.senderProcessor(m), to = s.receiverProcessor(m);
      const std::string arc = describe(s, m);
      if (from == to) {
        if (m.routeOffset)
          c.diagnostics.error(*m.routeOffset, "'" + arc + "' is local (both ends on '" +
                                                  s.processors[from].name +
                                                  "') and needs no route");
        m.route.clear();
        continue;
      }
      if (m.routeOffset) {
        if (!checkExplicit(c, m, from, to, arc)) continue;
      } else {
        std::vector<std::size_t> distance(s.processors.size(), SIZE_MAX);
        distance[to] = 0;
        boost::breadth_first_search(
            graph, to,
            boost::visitor(boost::make_bfs_visitor(boost::record_distances(
                boost::make_iterator_property_map(distance.begin(),
                                                  boost::get(boost::vertex_index, graph)),
                boost::on_tree_edge()))));
        if (distance[from] == SIZE_MAX) {
          c.diagnostics.error(m.offset, "no route for '" + arc +
                                            "': no chain of links connects '" +
                                            s.processors[from].name + "' to '" +
                                            s.processors[to].name + "'");
          continue;
        }
        // Among the shortest paths, the lexicographically smallest sequence of link names:
        // walk greedily towards the destination taking the smallest name at each hop (a
        // bus leads to its end nearest the destination, the lowest-numbered on a tie).
        for (Index at = from; at != to;) {
          std::optional<Index> best, next;
          for (Index l = 0; l < s.links.size(); ++l) {
            const Link& link = s.links[l];
            if (!link.touches(at) || (best && s.links[*best].name < link.name)) continue;
            for (Index e : link.ends)
              if (distance[e] + 1 == distance[at]) {
                best = l;
                next = e;
                break;
              }
          }
          m.route.push_back(*best);
          at = *next;
        }
      }
      if (!cutIntoHops(c, m, arc)) continue;
    }
    checkExecutionTimes(c);
  }

  void dump(const Compilation& c, std::ostream& out) const override {
    const System& s = c.system;
    for (const Message& m : s.messages) {
      out << "  " << m.name;
      if (m.local()) {
        out << " local\n";
        continue;
      }
      out << " via";
      for (const Hop& h : m.hops) {
        for (Index l : h.links) out << ' ' << s.links[l].name;
        out << " (" << (h.transfer.isExponential() ? formatNumber(h.transfer.mean())
                                                   : h.transfer.toString())
            << " time units)";
      }
      out << '\n';
    }
  }

 private:
  static std::string describe(const System& s, const Message& m) {
    return m.isWrite ? s.actors[m.actor].name + " -> " + s.dataNodes[m.data].name
                     : s.dataNodes[m.data].name + " -> " + s.actors[m.actor].name;
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

  static bool checkExplicit(Compilation& c, Message& m, Index from, Index to,
                            const std::string& arc) {
    const System& s = c.system;
    Index at = from;
    for (std::size_t i = 0; i < m.route.size(); ++i) {
      const Link& link = s.links[m.route[i]];
      if (!link.touches(at)) {
        c.diagnostics.error(*m.routeOffset, "route of '" + arc + "': link '" + link.name +
                                                "' does not touch '" + s.processors[at].name +
                                                "', where the route is at that point");
        return false;
      }
      const Link* nextLink = i + 1 < m.route.size() ? &s.links[m.route[i + 1]] : nullptr;
      const auto next = crossing(link, at, nextLink, to);
      if (!next) {
        c.diagnostics.error(*m.routeOffset,
                            "route of '" + arc + "': bus '" + link.name + "' " +
                                (nextLink ? "shares no processor with the next link, '" +
                                                nextLink->name + "'"
                                          : "does not reach '" + s.processors[to].name +
                                                "', where the receiver is"));
        return false;
      }
      at = *next;
    }
    if (at != to) {
      c.diagnostics.error(*m.routeOffset, "route of '" + arc + "' ends at '" +
                                              s.processors[at].name +
                                              "', but the receiver is on '" +
                                              s.processors[to].name + "'");
      return false;
    }
    return true;
  }

  /// Cuts the route into hops: each store-and-forward link alone, every maximal run of
  /// circuit and bus links together. A hop takes latency sum + size / smallest bandwidth;
  /// a declared size distribution keeps its shape, shifted by the latency, a plain size
  /// (exponential) gives an exponential transfer with the same mean. Hops that take no
  /// time (no size, no latency) are dropped.
  static bool cutIntoHops(Compilation& c, Message& m, const std::string& arc) {
    const System& s = c.system;
    std::vector<std::vector<Index>> runs;
    bool circuitOpen = false;
    for (Index l : m.route) {
      const bool alone = s.links[l].kind == LinkKind::StoreForward;
      if (alone || !circuitOpen) runs.emplace_back();
      runs.back().push_back(l);
      circuitOpen = !alone;
    }
    for (const auto& links : runs) {
      double latency = 0, bandwidth = HUGE_VAL;
      for (Index l : links) {
        latency += s.links[l].latency;
        bandwidth = std::min(bandwidth, s.links[l].bandwidth);
      }
      const double mean = latency + (m.size ? m.size->mean() / bandwidth : 0);
      if (mean == 0) continue;
      if (!isUsableTime(mean)) {
        c.diagnostics.error(m.offset, "the transfer time of '" + arc +
                                          "' (latency + size / bandwidth = " +
                                          formatNumber(mean) +
                                          ") is too large or too small for a rate; check the "
                                          "size, bandwidth and latency");
        return false;
      }
      const gspn::Distribution transfer = m.size && !m.size->isExponential()
                                              ? m.size->scaled(1 / bandwidth).shifted(latency)
                                              : gspn::Distribution::exponential(mean);
      m.hops.push_back({links, transfer});
    }
    return true;
  }

  /// Execution times: the demand's mean over the speed each execution gets.
  static void checkExecutionTimes(Compilation& c) {
    const System& s = c.system;
    for (const Actor& a : s.actors) {
      if (!a.processor) continue;
      const Processor& p = s.processors[*a.processor];
      const double time = a.demand.mean() / p.speed;
      if (!isUsableTime(time))
        c.diagnostics.error(a.offset, "the execution time of actor '" + a.name +
                                          "' (demand / speed = " + formatNumber(time) +
                                          ") is too large or too small for a rate; check its "
                                          "demand and the speed of '" + p.name + "'");
    }
  }
};

}  // namespace

std::unique_ptr<Pass> route() { return std::make_unique<RouteMessages>(); }

}  // namespace mmt::compiler::passes
