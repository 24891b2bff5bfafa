#include "gspn/writers.hpp"

#include <graphviz/cgraph.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "gspn/graphviz.hpp"

namespace mmt::gspn {
namespace {

// cgraph takes char* for names it copies; these wrappers keep the casts in one place.
void set(void* object, const char* key, const std::string& value) {
  agsafeset(object, const_cast<char*>(key), const_cast<char*>(value.c_str()),
            const_cast<char*>(""));
}

}  // namespace

namespace {

bool isPlainName(const std::string& name) {
  static const char* reserved[] = {"net",      "param", "place", "timed",   "immediate",
                                   "measure",  "rate",  "delay", "servers", "weight",
                                   "priority", "in",    "out",   "inhibit", "infinite"};
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr("_.[]", c)) return false;
  for (const char* word : reserved)
    if (name == word) return false;
  return true;
}

}  // namespace

std::string formatNumber(double x) {
  return Expression::constant(x).format([](Expression::Op, std::uint32_t) { return ""; });
}

std::string textName(const std::string& name) {
  return isPlainName(name) ? name : '"' + name + '"';
}

std::string formatExpression(const Net& net, const Expression& e, Expression::Notation notation,
                             std::string (*name)(const std::string&)) {
  return e.format(
      [&](Expression::Op op, std::uint32_t index) -> std::string {
        switch (op) {
          case Expression::Op::Tokens:
            return "#" + name(net.place(index).name);
          case Expression::Op::Throughput:
            return name(net.transition(index).name);
          case Expression::Op::Measure:
            return name(net.measures().at(index).name);
          default:
            return "?";
        }
      },
      notation);
}

namespace {
/// A name as DOT text: every backslash doubled. In a quoted DOT string a backslash pairs
/// with the next character, so a name ending in one would swallow the closing quote, and
/// in labels `\N`, `\n`, `\l` are escapes; doubled, each stands for itself.
std::string dotName(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '\\') out += '\\';
    out += c;
  }
  return out;
}

using Graph = std::unique_ptr<Agraph_t, int (*)(Agraph_t*)>;

/// The digraph writeDot writes.
Graph netGraph(const Net& net) {
  Graph graph(agopen(const_cast<char*>(dotName(net.name()).c_str()), Agdirected, nullptr), agclose);
  Agraph_t* g = graph.get();
  set(g, "rankdir", "LR");
  set(g, "fontname", "Helvetica");
  // Declare Graphviz's own default so that an empty label is written out explicitly.
  agattr(g, AGNODE, const_cast<char*>("label"), const_cast<char*>("\\N"));

  std::map<std::string, Agraph_t*> clusters;
  auto parentOf = [&](const std::string& group) -> Agraph_t* {
    if (group.empty()) return g;
    auto [it, inserted] = clusters.try_emplace(group, nullptr);
    if (inserted) {
      it->second = agsubg(g, const_cast<char*>(("cluster_" + dotName(group)).c_str()), 1);
      set(it->second, "label", dotName(group));
      set(it->second, "style", "rounded");
      set(it->second, "color", "gray60");
    }
    return it->second;
  };

  std::vector<Agnode_t*> placeNode(net.placeCount()), transitionNode(net.transitionCount());
  for (PlaceId p = 0; p < net.placeCount(); ++p) {
    const Place& pl = net.place(p);
    Agnode_t* n =
        agnode(parentOf(pl.group), const_cast<char*>(("p:" + dotName(pl.name)).c_str()), 1);
    set(n, "shape", "circle");
    set(n, "label", "");
    set(n, "xlabel",
        dotName(pl.name) + (pl.initial ? " (" + std::to_string(pl.initial) + ")" : ""));
    set(n, "width", "0.35");
    set(n, "fixedsize", "true");
    set(n, "fontname", "Helvetica");
    set(n, "fontsize", "10");
    if (pl.initial) set(n, "style", "bold");
    placeNode[p] = n;
  }
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    const Transition& tr = net.transition(t);
    Agnode_t* n =
        agnode(parentOf(tr.group), const_cast<char*>(("t:" + dotName(tr.name)).c_str()), 1);
    set(n, "shape", "box");
    set(n, "fontname", "Helvetica");
    set(n, "fontsize", "10");
    if (tr.kind == TransitionKind::Immediate) {
      set(n, "style", "filled");
      set(n, "fillcolor", "black");
      set(n, "label", "");
      set(n, "xlabel", dotName(tr.name));
      set(n, "width", "0.08");
      set(n, "height", "0.4");
    } else {
      set(n, "label",
          dotName(tr.name) + "\\n" +
              (tr.declaredDelay ? tr.declaredDelay->toString() : "λ=" + formatNumber(tr.rate)));
    }
    transitionNode[t] = n;
  }

  std::size_t edgeNumber = 0;
  auto edge = [&](Agnode_t* from, Agnode_t* to, std::uint32_t multiplicity, bool inhibitor) {
    Agedge_t* e =
        agedge(g, from, to, const_cast<char*>(("e" + std::to_string(edgeNumber++)).c_str()), 1);
    if (multiplicity != 1) set(e, "label", std::to_string(multiplicity));
    if (inhibitor) set(e, "arrowhead", "odot");
  };
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    for (const Arc& a : net.inputs(t))
      edge(placeNode[a.place], transitionNode[t], a.multiplicity, false);
    for (const Arc& a : net.outputs(t))
      edge(transitionNode[t], placeNode[a.place], a.multiplicity, false);
    for (const Arc& a : net.inhibitors(t))
      edge(placeNode[a.place], transitionNode[t], a.multiplicity, true);
  }
  return graph;
}

}  // namespace

void writeDot(const Net& net, const std::string& path) {
  const GraphvizSession graphviz;
  Graph graph = netGraph(net);
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "w"), std::fclose);
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
  if (agwrite(graph.get(), file.get()) != 0)
    throw std::runtime_error("writing '" + path + "' failed");
}

GraphvizSession::GraphvizSession() {
  static std::mutex mutex;
  lock_ = std::unique_lock(mutex);
  static GVC_t* const context = gvContext();
  context_ = context;
}

std::string renderNet(const Net& net, const std::string& format) {
  const GraphvizSession graphviz;
  GVC_t* const gvc = graphviz.context();
  Graph graph = netGraph(net);
  if (gvLayout(gvc, graph.get(), "dot") != 0)
    throw std::runtime_error("Graphviz could not lay out the net");
  char* data = nullptr;
  unsigned length = 0;
  const int failed = gvRenderData(gvc, graph.get(), format.c_str(), &data, &length);
  std::string out = failed ? "" : std::string(data, length);
  if (data) gvFreeRenderData(data);
  gvFreeLayout(gvc, graph.get());
  if (failed) throw std::runtime_error("Graphviz could not render the net as " + format);
  return out;
}

void writePrism(const Net& net, const TangibleReachabilityGraph& g, const std::string& traPath,
                const std::string& staPath, const std::string& labPath) {
  auto open = [&](const std::string& path) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write '" + path + "'");
    out.precision(17);
    return out;
  };
  const std::size_t n = g.stateCount();
  {
    std::ofstream sta = open(staPath);
    sta << '(';
    for (PlaceId p = 0; p < net.placeCount(); ++p) sta << (p ? "," : "") << net.place(p).name;
    sta << ")\n";
    std::vector<Tokens> m(net.placeCount());
    for (std::uint32_t s = 0; s < n; ++s) {
      g.markings.decode(s, m);
      sta << s << ":(";
      for (std::size_t p = 0; p < m.size(); ++p) sta << (p ? "," : "") << m[p];
      sta << ")\n";
    }
    if (!sta) throw std::runtime_error("writing '" + staPath + "' failed");
  }
  {
    // PRISM lists transitions by source: transpose the columns into rows.
    std::vector<std::uint64_t> rowStart(n + 1, 0);
    for (std::size_t k = 0; k < g.source.size(); ++k) ++rowStart[g.sourceOf(k) + 1];
    for (std::size_t i = 0; i < n; ++i) rowStart[i + 1] += rowStart[i];
    std::vector<std::pair<std::uint32_t, double>> rows(g.edgeCount());
    std::vector<std::uint64_t> fill(rowStart.begin(), rowStart.end() - 1);
    for (std::size_t j = 0; j < n; ++j)
      for (std::int32_t k = g.inOffset[j]; k < g.inOffset[j + 1]; ++k)
        rows[fill[g.sourceOf(std::size_t(k))]++] = {static_cast<std::uint32_t>(j),
                                                    g.rateOf(std::size_t(k))};
    std::ofstream tra = open(traPath);
    tra << n << ' ' << g.edgeCount() << '\n';
    for (std::size_t i = 0; i < n; ++i)
      for (std::uint64_t k = rowStart[i]; k < rowStart[i + 1]; ++k)
        tra << i << ' ' << rows[k].first << ' ' << rows[k].second << '\n';
    if (!tra) throw std::runtime_error("writing '" + traPath + "' failed");
  }
  {
    std::ofstream lab = open(labPath);
    lab << "0=\"init\" 1=\"deadlock\"\n";
    for (auto [s, p] : g.initial) lab << s << ": 0\n";
    for (std::size_t s = 0; s < n; ++s)
      if (g.exitRate[s] == 0) lab << s << ": 1\n";
    if (!lab) throw std::runtime_error("writing '" + labPath + "' failed");
  }
}

}  // namespace mmt::gspn
