// Writers of the net formats mmt reads: its `.gspn` text, PNML (PIPE's GSPN conventions),
// GreatSPN's .net/.def pair and its editor's PNPRO projects. Their readers are beside them in io/;
// docs/formats.md describes each format as mmt reads and writes it.
#include "gspn/writers.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <ostream>
#include <pugixml.hpp>
#include <set>
#include <stdexcept>

#include "io/formats.hpp"

namespace mmt::io {
namespace {

using namespace gspn;

/// A name as GreatSPN's expressions can hold it: bare when it is a GreatSPN identifier
/// (a letter or '_', then letters, digits and '_'), in double quotes otherwise, which
/// mmt's reader of GreatSPN's language reads back (GreatSPN's own tools take bare names
/// only).
std::string greatSpnName(const std::string& name) {
  const bool bare =
      !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
      std::all_of(name.begin(), name.end(),
                  [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  return bare ? name : '"' + name + '"';
}

/// An expression in PIPE's functional notation: `#(P)` for a token count.
std::string pipeExpression(const Net& net, const Expression& e) {
  return e.format([&](Expression::Op op, std::uint32_t index) -> std::string {
    if (op == Expression::Op::Tokens) return "#(" + net.place(index).name + ")";
    return "?";
  });
}

void addValue(pugi::xml_node parent, const char* label, const std::string& value) {
  parent.append_child(label).append_child("value").text().set(value.c_str());
}

void addPosition(pugi::xml_node node, std::size_t index, double row) {
  pugi::xml_node position = node.append_child("graphics").append_child("position");
  position.append_attribute("x").set_value(60.0 + 90.0 * static_cast<double>(index % 10));
  position.append_attribute("y").set_value(60.0 + row + 180.0 * static_cast<double>(index / 10));
}

pugi::xml_node mmtLabels(pugi::xml_node node) {
  pugi::xml_node t = node.append_child("toolspecific");
  t.append_attribute("tool").set_value("mmt");
  t.append_attribute("version").set_value("1");
  return t;
}

}  // namespace

void writePnml(const Net& net, std::ostream& out) {
  pugi::xml_document doc;
  pugi::xml_node pnml = doc.append_child("pnml");
  pugi::xml_node n = pnml.append_child("net");
  n.append_attribute("id").set_value(net.name().c_str());
  n.append_attribute("type").set_value("P/T net");
  addValue(n, "name", net.name());

  // Ids are the names, made unique if a place and a transition share one.
  std::set<std::string> used;
  auto idFor = [&](const std::string& name, const char* prefix) {
    std::string id = name;
    for (int k = 2; !used.insert(id).second; ++k) id = prefix + name + "~" + std::to_string(k);
    return id;
  };
  std::vector<std::string> placeId(net.placeCount()), transitionId(net.transitionCount());
  for (PlaceId p = 0; p < net.placeCount(); ++p) {
    const Place& pl = net.place(p);
    placeId[p] = idFor(pl.name, "p:");
    pugi::xml_node e = n.append_child("place");
    e.append_attribute("id").set_value(placeId[p].c_str());
    addPosition(e, p, 0);
    addValue(e, "name", pl.name);
    addValue(e, "initialMarking", "Default," + std::to_string(pl.initial));
    addValue(e, "capacity", "0");
    if (!pl.group.empty()) mmtLabels(e).append_child("group").text().set(pl.group.c_str());
  }
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    const Transition& tr = net.transition(t);
    transitionId[t] = idFor(tr.name, "t:");
    pugi::xml_node e = n.append_child("transition");
    e.append_attribute("id").set_value(transitionId[t].c_str());
    addPosition(e, t, 90);
    addValue(e, "name", tr.name);
    const bool timed = tr.kind == TransitionKind::Timed;
    addValue(e, "rate",
             !timed                      ? formatNumber(tr.weight)
             : tr.rateExpression.empty() ? formatNumber(tr.rate)
                                         : pipeExpression(net, tr.rateExpression));
    addValue(e, "timed", timed ? "true" : "false");
    // A marking-dependent rate is the total rate (PIPE would multiply an infinite-server
    // rate by the enabling degree); its sharing among servers is the simulator's business.
    addValue(e, "infiniteServer",
             timed && tr.rateExpression.empty() && tr.servers == ServerSemantics::Infinite
                 ? "true"
                 : "false");
    addValue(e, "priority", std::to_string(timed ? 1 : tr.priority));
    const bool kServers = timed && tr.servers == ServerSemantics::KServer;
    const bool sharedRate =
        timed && !tr.rateExpression.empty() && tr.servers == ServerSemantics::Infinite;
    if (kServers || sharedRate || !tr.group.empty() || tr.declaredDelay || !tr.guard.empty()) {
      pugi::xml_node mmt = mmtLabels(e);
      if (!tr.guard.empty())
        mmt.append_child("guard").text().set(formatExpression(net, tr.guard).c_str());
      if (kServers) mmt.append_child("servers").text().set(tr.serverCount);
      if (sharedRate) mmt.append_child("servers").text().set("infinite");
      if (tr.declaredDelay)
        mmt.append_child("delay").text().set(tr.declaredDelay->toString().c_str());
      if (!tr.group.empty()) mmt.append_child("group").text().set(tr.group.c_str());
    }
  }
  std::size_t arcNumber = 0;
  auto arc = [&](const Arc& a, TransitionId t, bool toTransition, const char* type) {
    pugi::xml_node e = n.append_child("arc");
    e.append_attribute("id").set_value(("a" + std::to_string(++arcNumber)).c_str());
    e.append_attribute("source").set_value(
        (toTransition ? placeId[a.place] : transitionId[t]).c_str());
    e.append_attribute("target").set_value(
        (toTransition ? transitionId[t] : placeId[a.place]).c_str());
    addValue(e, "inscription",
             "Default," + (a.expression == Arc::kConstant
                               ? std::to_string(a.multiplicity)
                               : pipeExpression(net, net.arcExpressions()[a.expression])));
    e.append_child("type").append_attribute("value").set_value(type);
  };
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    for (const Arc& a : net.inputs(t)) arc(a, t, true, "normal");
    for (const Arc& a : net.outputs(t)) arc(a, t, false, "normal");
    for (const Arc& a : net.inhibitors(t)) arc(a, t, true, "inhibitor");
  }
  if (!net.measures().empty()) {
    pugi::xml_node mmt = mmtLabels(n);
    for (const Measure& m : net.measures()) {
      pugi::xml_node e = mmt.append_child("measure");
      e.append_attribute("name").set_value(m.name.c_str());
      e.text().set(formatExpression(net, m.expression).c_str());
    }
  }
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
}

void writeGreatSpn(const Net& net, std::ostream& netOut, std::ostream& defOut) {
  auto checkName = [](const std::string& name, const char* kind) {
    if (name.empty() || name.find_first_of(" \t\r\n") != std::string::npos || name[0] == '|')
      throw std::invalid_argument(std::string("GreatSPN cannot hold the ") + kind + " name '" +
                                  name + "': names are single words");
  };
  // One priority group per priority level of the immediate transitions, in rising order.
  std::map<std::uint32_t, std::size_t> groupOf;
  for (TransitionId t : net.immediateTransitions()) groupOf[net.transition(t).priority] = 0;
  std::size_t g = 0;
  for (auto& [priority, index] : groupOf) index = ++g;

  netOut << "|0|\n|\n";
  netOut << "f 0 " << net.placeCount() << " 0 " << net.transitionCount() << ' ' << groupOf.size()
         << " 0 0\n";
  auto position = [](std::size_t i, double row) {
    return std::to_string(1.0 + static_cast<double>(i % 10)) + ' ' +
           std::to_string(1.0 + row + 3.0 * static_cast<double>(i / 10));
  };
  for (PlaceId p = 0; p < net.placeCount(); ++p) {
    const Place& pl = net.place(p);
    checkName(pl.name, "place");
    netOut << pl.name << ' ' << pl.initial << ' ' << position(p, 0) << ' ' << position(p, 0.3)
           << " 0\n";
  }
  for (const auto& [priority, index] : groupOf)
    netOut << 'G' << priority << ' ' << position(index - 1, 2.5) << ' ' << priority << '\n';

  std::vector<std::string> definitions;
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    const Transition& tr = net.transition(t);
    checkName(tr.name, "transition");
    const bool timed = tr.kind == TransitionKind::Timed;
    std::string rate;
    int servers = 1;
    if (tr.declaredDelay)
      throw std::invalid_argument("GreatSPN cannot hold the declared delay " +
                                  tr.declaredDelay->toString() + " of '" + tr.name +
                                  "': its timed transitions are exponential");
    if (!timed) {
      rate = formatNumber(tr.weight);
    } else if (!tr.rateExpression.empty()) {
      definitions.push_back(formatExpression(net, tr.rateExpression,
                                             Expression::Notation::GreatSpnSolver, greatSpnName));
      rate = "-" + std::to_string(definitions.size());
    } else {
      rate = formatNumber(tr.rate);
      servers = tr.servers == ServerSemantics::Infinite  ? 0
                : tr.servers == ServerSemantics::KServer ? static_cast<int>(tr.serverCount)
                                                         : 1;
    }
    const std::size_t kind = timed ? 0 : groupOf.at(tr.priority);
    netOut << tr.name << ' ' << rate << ' ' << servers << ' ' << kind << ' ' << net.inputs(t).size()
           << " 0 " << position(t, 1.5) << ' ' << position(t, 1.8) << ' ' << position(t, 1.2)
           << " 0";
    // The guard after the layers, where GreatSPN's editor writes it: its position, then
    // the condition in brackets.
    if (!tr.guard.empty())
      netOut << ' ' << position(t, 2.1) << " ["
             << formatExpression(net, tr.guard, Expression::Notation::GreatSpnSolver, greatSpnName)
             << ']';
    netOut << '\n';
    auto arcs = [&](std::span<const Arc> list, bool withCount) {
      if (withCount) netOut << "   " << list.size() << '\n';
      for (const Arc& a : list) {
        // A marking-dependent multiplicity goes after the label position, with 1 in the
        // multiplicity field, as GreatSPN's editor writes it.
        if (a.expression != Arc::kConstant)
          netOut << "   1 " << a.place + 1 << " 0 0 0.000000 0.000000 "
                 << formatExpression(net, net.arcExpressions()[a.expression],
                                     Expression::Notation::GreatSpnSolver, greatSpnName)
                 << '\n';
        else
          netOut << "   " << a.multiplicity << ' ' << a.place + 1 << " 0 0\n";
      }
    };
    arcs(net.inputs(t), false);
    arcs(net.outputs(t), true);
    arcs(net.inhibitors(t), true);
  }
  defOut << "|256\n";
  for (const std::string& d : definitions) defOut << d << "\n|\n";
  defOut << "%\n";
  for (const Measure& m : net.measures()) {
    checkName(m.name, "measure");
    defOut << '|' << m.name << " 0.0 0.0 : "
           << formatExpression(net, m.expression, Expression::Notation::GreatSpnSolver,
                               greatSpnName)
           << '\n';
  }
  defOut << "|\n";
}

void writePnpro(const Net& net, std::ostream& out) {
  pugi::xml_document doc;
  pugi::xml_node project = doc.append_child("project");
  project.append_attribute("name").set_value(net.name().c_str());
  project.append_attribute("version").set_value("121");
  pugi::xml_node page = project.append_child("gspn");
  page.append_attribute("name").set_value(net.name().c_str());
  pugi::xml_node nodes = page.append_child("nodes");
  auto position = [](pugi::xml_node n, std::size_t i, double row) {
    n.append_attribute("x").set_value(2.0 + 5.0 * static_cast<double>(i % 10));
    n.append_attribute("y").set_value(2.0 + row + 10.0 * static_cast<double>(i / 10));
  };
  for (PlaceId p = 0; p < net.placeCount(); ++p) {
    const Place& pl = net.place(p);
    pugi::xml_node n = nodes.append_child("place");
    n.append_attribute("name").set_value(pl.name.c_str());
    if (pl.initial) n.append_attribute("marking").set_value(std::to_string(pl.initial).c_str());
    position(n, p, 0);
  }
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    const Transition& tr = net.transition(t);
    if (tr.declaredDelay)
      throw std::invalid_argument("PNPRO export cannot hold the declared delay " +
                                  tr.declaredDelay->toString() + " of '" + tr.name +
                                  "': mmt writes exponential and immediate transitions only");
    pugi::xml_node n = nodes.append_child("transition");
    n.append_attribute("name").set_value(tr.name.c_str());
    if (tr.kind == TransitionKind::Immediate) {
      n.append_attribute("type").set_value("IMM");
      n.append_attribute("weight").set_value(formatNumber(tr.weight).c_str());
      n.append_attribute("priority").set_value(std::to_string(tr.priority).c_str());
    } else {
      // GreatSPN's EXP `delay` is the rate; `nservers` is Infinite when absent.
      n.append_attribute("type").set_value("EXP");
      const bool expression = !tr.rateExpression.empty();
      n.append_attribute("delay").set_value(
          (expression ? formatExpression(net, tr.rateExpression,
                                         Expression::Notation::GreatSpnEditor, greatSpnName)
                      : formatNumber(tr.rate))
              .c_str());
      const std::string servers = expression || tr.servers == ServerSemantics::Single ? "1"
                                  : tr.servers == ServerSemantics::Infinite
                                      ? "Infinite"
                                      : std::to_string(tr.serverCount);
      n.append_attribute("nservers").set_value(servers.c_str());
    }
    if (!tr.guard.empty())
      n.append_attribute("guard").set_value(
          formatExpression(net, tr.guard, Expression::Notation::GreatSpnEditor, greatSpnName)
              .c_str());
    position(n, t, 5);
  }
  pugi::xml_node edges = page.append_child("edges");
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    const std::string& name = net.transition(t).name;
    auto arcs = [&](std::span<const Arc> list, const char* kind, bool fromPlace) {
      for (const Arc& a : list) {
        pugi::xml_node e = edges.append_child("arc");
        const std::string& place = net.place(a.place).name;
        e.append_attribute("head").set_value((fromPlace ? name : place).c_str());
        e.append_attribute("tail").set_value((fromPlace ? place : name).c_str());
        e.append_attribute("kind").set_value(kind);
        const std::string mult =
            a.expression == Arc::kConstant
                ? std::to_string(a.multiplicity)
                : formatExpression(net, net.arcExpressions()[a.expression],
                                   Expression::Notation::GreatSpnEditor, greatSpnName);
        if (mult != "1") e.append_attribute("mult").set_value(mult.c_str());
      }
    };
    arcs(net.inputs(t), "INPUT", true);
    arcs(net.outputs(t), "OUTPUT", false);
    arcs(net.inhibitors(t), "INHIBITOR", true);
  }
  doc.save(out, "  ");
}

void writeText(const Net& net, std::ostream& out) {
  auto group = [](const std::string& g) { return g.empty() ? std::string() : " @" + textName(g); };
  auto arcs = [&](const char* keyword, std::span<const Arc> list) {
    if (list.empty()) return;
    out << "\n    " << keyword;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Arc& a = list[i];
      out << (i ? ", " : " ") << textName(net.place(a.place).name);
      if (a.expression != Arc::kConstant)
        out << " * (" << formatExpression(net, net.arcExpressions()[a.expression]) << ')';
      else if (a.multiplicity != 1)
        out << " * " << a.multiplicity;
    }
  };
  out << "net " << textName(net.name()) << ";\n\n";
  for (const Place& p : net.places()) {
    out << "place " << textName(p.name);
    if (p.initial) out << " = " << p.initial;
    out << group(p.group) << ";\n";
  }
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    const Transition& tr = net.transition(t);
    out << '\n';
    if (tr.kind == TransitionKind::Immediate) {
      out << "immediate " << textName(tr.name);
      if (tr.weight != 1) out << " weight " << formatNumber(tr.weight);
      if (tr.priority != 1) out << " priority " << tr.priority;
    } else {
      out << "timed " << textName(tr.name);
      if (tr.declaredDelay)
        out << " delay " << tr.declaredDelay->toString();
      else
        out << " rate "
            << (tr.rateExpression.empty() ? formatNumber(tr.rate)
                                          : formatExpression(net, tr.rateExpression));
      if (tr.servers == ServerSemantics::Infinite) out << " servers infinite";
      if (tr.servers == ServerSemantics::KServer) out << " servers " << tr.serverCount;
    }
    if (!tr.guard.empty()) out << " guard " << formatExpression(net, tr.guard);
    out << group(tr.group);
    arcs("in", net.inputs(t));
    arcs("out", net.outputs(t));
    arcs("inhibit", net.inhibitors(t));
    out << ";\n";
  }
  if (!net.measures().empty()) out << '\n';
  for (const Measure& m : net.measures())
    out << "measure " << textName(m.name) << " = " << formatExpression(net, m.expression) << ";\n";
}

}  // namespace mmt::io
