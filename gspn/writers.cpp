#include "gspn/writers.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include <graphviz/cgraph.h>

namespace mmt::gspn {
namespace {

void writeArcs(std::ostream& out, const Net& net, const char* keyword,
               std::span<const Arc> arcs) {
  if (arcs.empty()) return;
  out << "  " << keyword;
  for (const Arc& a : arcs) {
    out << ' ' << net.place(a.place).name;
    if (a.multiplicity != 1) out << '*' << a.multiplicity;
  }
  out << '\n';
}

std::string number(double x) {
  std::ostringstream s;
  s.precision(12);
  s << x;
  return s.str();
}

// cgraph takes char* for names it copies; these wrappers keep the casts in one place.
void set(void* object, const char* key, const std::string& value) {
  agsafeset(object, const_cast<char*>(key), const_cast<char*>(value.c_str()),
            const_cast<char*>(""));
}

}  // namespace

void writeText(const Net& net, std::ostream& out) {
  out << "net " << net.name() << "\n\n";
  for (const Place& p : net.places()) {
    out << "place " << p.name << " = " << p.initial;
    if (!p.group.empty()) out << " @" << p.group;
    out << '\n';
  }
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    const Transition& tr = net.transition(t);
    out << '\n';
    if (tr.kind == TransitionKind::Immediate) {
      out << "immediate " << tr.name << " weight " << number(tr.weight) << " priority "
          << tr.priority;
    } else {
      out << "timed " << tr.name << " rate " << number(tr.rate);
      if (tr.servers == ServerSemantics::Infinite) out << " infinite-server";
      if (tr.servers == ServerSemantics::KServer) out << " servers " << tr.serverCount;
    }
    if (!tr.group.empty()) out << " @" << tr.group;
    out << '\n';
    writeArcs(out, net, "in", net.inputs(t));
    writeArcs(out, net, "out", net.outputs(t));
    writeArcs(out, net, "inhibit", net.inhibitors(t));
  }
}

void writeDot(const Net& net, const std::string& path) {
  std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> graph(
      agopen(const_cast<char*>(net.name().c_str()), Agdirected, nullptr), agclose);
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
      it->second = agsubg(g, const_cast<char*>(("cluster_" + group).c_str()), 1);
      set(it->second, "label", group);
      set(it->second, "style", "rounded");
      set(it->second, "color", "gray60");
    }
    return it->second;
  };

  std::vector<Agnode_t*> placeNode(net.placeCount()), transitionNode(net.transitionCount());
  for (PlaceId p = 0; p < net.placeCount(); ++p) {
    const Place& pl = net.place(p);
    Agnode_t* n = agnode(parentOf(pl.group), const_cast<char*>(("p:" + pl.name).c_str()), 1);
    set(n, "shape", "circle");
    set(n, "label", "");
    set(n, "xlabel", pl.initial ? pl.name + " (" + std::to_string(pl.initial) + ")" : pl.name);
    set(n, "width", "0.35");
    set(n, "fixedsize", "true");
    set(n, "fontname", "Helvetica");
    set(n, "fontsize", "10");
    if (pl.initial) set(n, "style", "bold");
    placeNode[p] = n;
  }
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    const Transition& tr = net.transition(t);
    Agnode_t* n = agnode(parentOf(tr.group), const_cast<char*>(("t:" + tr.name).c_str()), 1);
    set(n, "shape", "box");
    set(n, "fontname", "Helvetica");
    set(n, "fontsize", "10");
    if (tr.kind == TransitionKind::Immediate) {
      set(n, "style", "filled");
      set(n, "fillcolor", "black");
      set(n, "label", "");
      set(n, "xlabel", tr.name);
      set(n, "width", "0.08");
      set(n, "height", "0.4");
    } else {
      set(n, "label", tr.name + "\\nλ=" + number(tr.rate));
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
    for (const Arc& a : net.inputs(t)) edge(placeNode[a.place], transitionNode[t], a.multiplicity, false);
    for (const Arc& a : net.outputs(t)) edge(transitionNode[t], placeNode[a.place], a.multiplicity, false);
    for (const Arc& a : net.inhibitors(t)) edge(placeNode[a.place], transitionNode[t], a.multiplicity, true);
  }

  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "w"), std::fclose);
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
  if (agwrite(g, file.get()) != 0) throw std::runtime_error("writing '" + path + "' failed");
}

}  // namespace mmt::gspn
