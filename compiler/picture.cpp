#include "compiler/picture.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include "gspn/graphviz.hpp"

namespace mmt::compiler {
namespace {

void set(void* object, const char* key, const std::string& value) {
  agsafeset(object, const_cast<char*>(key), const_cast<char*>(value.c_str()),
            const_cast<char*>(""));
}

std::string number(double x) {
  if (x != x) return "—";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", x);
  return buffer;
}

/// White (idle) to red (saturated), as a Graphviz "H S V" colour.
std::string heat(double utilization) {
  const double u = utilization < 0 ? 0 : utilization > 1 ? 1 : utilization;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0.000 %.3f 1.000", 0.85 * u);
  return buffer;
}

struct Station {
  bool processor;
  std::size_t index;
  double utilization;
};

/// The most utilized station; on a tie within rounding (1e-9 relative), the first
/// processor, then the first link, so that the choice does not depend on the last bit.
Station findBottleneck(const SystemMetrics& m) {
  Station best{true, 0, -1};
  auto consider = [&](bool processor, std::size_t i, double u) {
    if (u > best.utilization + 1e-9 * std::max(1.0, best.utilization)) best = {processor, i, u};
  };
  for (std::size_t i = 0; i < m.processors.size(); ++i)
    consider(true, i, m.processors[i].utilization);
  for (std::size_t i = 0; i < m.links.size(); ++i) consider(false, i, m.links[i].utilization);
  return best;
}

struct GraphDeleter {
  void operator()(Agraph_t* g) const { agclose(g); }
};

/// The system's graph as it is drawn: the nodes of each kind by index, and numbered edges.
struct Drawing {
  Agraph_t* g;
  std::vector<Agnode_t*> anchors;  ///< per processor, a point inside its box
  std::vector<Agraph_t*> boxes;    ///< per processor
  std::vector<Agnode_t*> actors, dataNodes, tasks;
  std::size_t edges = 0;
  Agedge_t* edge(Agnode_t* from, Agnode_t* to) {
    return agedge(g, from, to, const_cast<char*>(("e" + std::to_string(edges++)).c_str()), 1);
  }
};

/// Each processor a box filled by its utilization, the bottleneck outlined.
void drawProcessors(Drawing& d, const System& s, const SystemMetrics& m, const Station& hot) {
  for (std::size_t p = 0; p < s.processors.size(); ++p) {
    const StationMetrics& pm = m.processors[p];
    Agraph_t* box = agsubg(d.g, const_cast<char*>(("cluster_" + s.processors[p].name).c_str()), 1);
    const bool isHot = hot.processor && hot.index == p;
    set(box, "label",
        (isHot ? "BOTTLENECK\n" : "") + s.processors[p].name + " (" +
            toString(s.processors[p].policy) + ")\nU " + number(pm.utilization) + "  Q " +
            number(pm.queueLength));
    set(box, "style", "filled,rounded");
    set(box, "fillcolor", heat(pm.utilization));
    set(box, "color", isHot ? "red3" : "gray40");
    set(box, "penwidth", isHot ? "3" : "1");
    d.boxes.push_back(box);
    // A point to attach links to, so that an idle processor still has a place.
    Agnode_t* anchor = agnode(box, const_cast<char*>(("@" + s.processors[p].name).c_str()), 1);
    set(anchor, "shape", "point");
    set(anchor, "width", "0.05");
    d.anchors.push_back(anchor);
  }
}

/// A white node of `shape` named `name` in `box`, labelled `label`.
Agnode_t* whiteNode(Agraph_t* box, const std::string& name, const char* shape, const char* style,
                    const std::string& label) {
  Agnode_t* n = agnode(box, const_cast<char*>(name.c_str()), 1);
  set(n, "shape", shape);
  set(n, "style", style);
  set(n, "fillcolor", "white");
  set(n, "label", label);
  return n;
}

/// The actors, data nodes and skeleton tasks, each in its processor's box.
void drawElements(Drawing& d, const System& s, const SystemMetrics& m) {
  for (std::size_t a = 0; a < s.actors.size(); ++a) {
    const Actor& actor = s.actors[a];
    d.actors.push_back(whiteNode(d.boxes[*actor.processor], actor.name, "box", "rounded,filled",
                                 actor.name + "\nR " + number(m.actors[a].responseTime)));
  }
  for (const DataNode& data : s.dataNodes)
    d.dataNodes.push_back(
        whiteNode(d.boxes[*data.processor], data.name, "cylinder", "filled", data.name));
  for (std::size_t t = 0; t < s.tasks.size(); ++t) {
    const Task& task = s.tasks[t];
    d.tasks.push_back(whiteNode(d.boxes[*task.processor], task.name, "box", "filled",
                                task.name + "\nU " + number(m.tasks[t].utilization) + "  blocked " +
                                    number(m.tasks[t].blocked)));
  }
}

/// The dataflow: skeleton transfers between two tasks, one edge per pair of tasks items
/// pass between (a scatter has one per partition), and the messages between actors and
/// data nodes; bold when they cross the network.
void drawFlow(Drawing& d, const CompiledSystem& compiled) {
  const System& s = compiled.system;
  std::set<std::pair<Index, Index>> joined;
  for (const auto& moves : compiled.routing.moves)
    for (const Move& move : moves)
      for (const Transfer& t : move.transfers)
        for (Index from : t.from)
          for (Index to : t.to) {
            if (!joined.emplace(from, to).second) continue;
            Agedge_t* e = d.edge(d.tasks[from], d.tasks[to]);
            const bool remote = s.tasks[from].processor != s.tasks[to].processor;
            set(e, "color", remote ? "black" : "gray50");
            if (remote) set(e, "style", "bold");
          }
  for (std::size_t i = 0; i < s.messages.size(); ++i) {
    const Message& msg = s.messages[i];
    const bool local = compiled.routing.messages[i].local();
    Agedge_t* e = msg.isWrite ? d.edge(d.actors[msg.actor], d.dataNodes[msg.data])
                              : d.edge(d.dataNodes[msg.data], d.actors[msg.actor]);
    set(e, "color", local ? "gray50" : "black");
    if (!local) set(e, "style", "bold");
  }
}

/// Each link or bus a node filled by its utilization, joined to the processors it connects.
void drawLinks(Drawing& d, const System& s, const SystemMetrics& m, const Station& hot) {
  for (std::size_t l = 0; l < s.links.size(); ++l) {
    const Link& link = s.links[l];
    const StationMetrics& lm = m.links[l];
    const bool isHot = !hot.processor && hot.index == l;
    Agnode_t* n = agnode(d.g, const_cast<char*>(("link " + link.name).c_str()), 1);
    set(n, "shape", link.kind == LinkKind::Bus ? "box" : "diamond");
    set(n, "style", "filled");
    set(n, "fillcolor", heat(lm.utilization));
    set(n, "color", isHot ? "red3" : "gray30");
    set(n, "penwidth", isHot ? "3" : "1");
    set(n, "label",
        (isHot ? "BOTTLENECK\n" : "") + link.name + " (" + toString(link.kind) + ")\nU " +
            number(lm.utilization) + "  Q " + number(lm.queueLength));
    for (Index p : link.ends) {
      Agedge_t* e = d.edge(d.anchors[p], n);
      set(e, "dir", "none");
      set(e, "penwidth", "2");
      set(e, "color", "steelblue");
    }
  }
}

/// Builds the graph and lays it out; `render` then writes it.
template <typename Render>
void build(const CompiledSystem& compiled, const SystemMetrics& m, Render&& render) {
  const System& s = compiled.system;
  const gspn::GraphvizSession graphviz;
  GVC_t* const gvc = graphviz.context();
  std::unique_ptr<Agraph_t, GraphDeleter> graph(
      agopen(const_cast<char*>(s.name.c_str()), Agdirected, nullptr));
  Agraph_t* g = graph.get();
  const Station hot = findBottleneck(m);
  set(g, "rankdir", "LR");
  set(g, "fontname", "Helvetica");
  set(g, "label",
      "system " + s.name + ": utilization (U) and queue length (Q); bottleneck: " + bottleneck(m));
  set(g, "labelloc", "t");
  agattr(g, AGNODE, const_cast<char*>("fontname"), const_cast<char*>("Helvetica"));
  agattr(g, AGNODE, const_cast<char*>("fontsize"), const_cast<char*>("11"));
  agattr(g, AGEDGE, const_cast<char*>("fontname"), const_cast<char*>("Helvetica"));

  Drawing d{g};
  drawProcessors(d, s, m, hot);
  drawElements(d, s, m);
  drawFlow(d, compiled);
  drawLinks(d, s, m, hot);
  if (gvLayout(gvc, g, "dot") != 0)
    throw std::runtime_error("Graphviz could not lay out the system");
  struct Layout {
    GVC_t* gvc;
    Agraph_t* g;
    ~Layout() { gvFreeLayout(gvc, g); }
  } layout{gvc, g};
  render(gvc, g);
}

}  // namespace

std::string bottleneck(const SystemMetrics& m) {
  const Station hot = findBottleneck(m);
  if (hot.utilization < 0) return "none";
  return hot.processor ? "processor " + m.processors[hot.index].name
                       : "link " + m.links[hot.index].name;
}

void drawSystem(const CompiledSystem& compiled, const SystemMetrics& metrics,
                const std::string& path, const std::string& format) {
  build(compiled, metrics, [&](GVC_t* gvc, Agraph_t* g) {
    if (gvRenderFilename(gvc, g, format.c_str(), path.c_str()) != 0)
      throw std::runtime_error("Graphviz could not write '" + path + "' as " + format);
  });
}

std::string renderSystem(const CompiledSystem& compiled, const SystemMetrics& metrics,
                         const std::string& format) {
  std::string out;
  build(compiled, metrics, [&](GVC_t* gvc, Agraph_t* g) {
    char* data = nullptr;
    unsigned length = 0;
    if (gvRenderData(gvc, g, format.c_str(), &data, &length) != 0)
      throw std::runtime_error("Graphviz could not render the system as " + format);
    out.assign(data, length);
    gvFreeRenderData(data);
  });
  return out;
}

std::string systemDot(const CompiledSystem& compiled, const SystemMetrics& metrics) {
  return renderSystem(compiled, metrics, "dot");
}

}  // namespace mmt::compiler
