#include "compiler/compile.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <sstream>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>

namespace mmt::compiler {
namespace ast = grammar::ast;
using grammar::join;
using grammar::suggestion;
using grammar::unknownName;

namespace {

std::string formatNumber(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

enum class Kind { Processor, Link, Actor, DataNode };

const char* kindName(Kind k) {
  switch (k) {
    case Kind::Processor: return "processor";
    case Kind::Link: return "link";
    case Kind::Actor: return "actor";
    case Kind::DataNode: return "data node";
  }
  return "?";
}

/// "an actor", "a processor".
std::string withArticle(Kind k) {
  const std::string name = kindName(k);
  return (name[0] == 'a' ? "an " : "a ") + name;
}

struct Symbol {
  Kind kind;
  Index index;
  std::size_t offset;
};

/// Reads the properties of one element: reports unknown and repeated keys up front, then
/// hands out typed values with range checks.
class PropertyReader {
 public:
  PropertyReader(Compilation& c, const ast::Properties& properties, std::string element,
                 std::vector<std::string> known)
      : c_(c), element_(std::move(element)) {
    for (const ast::Property& p : properties) {
      const std::size_t at = c.parsed.positions.offsetOf(p);
      if (std::find(known.begin(), known.end(), p.key.name) == known.end()) {
        c.diagnostics.error(at, "unknown property '" + p.key.name + "' of " + element_ +
                                    suggestion(p.key.name, known) + " (known: " + join(known) +
                                    ")");
      } else if (!values_.emplace(p.key.name, &p).second) {
        c.diagnostics.error(at, "property '" + p.key.name + "' of " + element_ +
                                    " is given twice");
      }
    }
  }

  /// A number > 0 (or >= 0 when `allowZero`); `fallback` when absent.
  double number(const std::string& key, double fallback, bool allowZero = false) {
    const ast::Property* p = find(key);
    if (!p) return fallback;
    const double* x = boost::get<double>(&p->value);
    if (!x) {
      error(*p, "'" + key + "' of " + element_ + " must be a number");
      return fallback;
    }
    if (!std::isfinite(*x) || *x < 0 || (*x == 0 && !allowZero)) {
      error(*p, "'" + key + "' of " + element_ + " must be " +
                    (allowZero ? "zero or positive" : "positive") + ", not " + formatNumber(*x));
      return fallback;
    }
    return *x;
  }

  /// A delay or size distribution (docs/language.md, "Delays"): a number is the mean of an
  /// exponential, a call such as `erlang(3, 4)` declares the distribution. With
  /// `allowZero`, 0 is allowed and means none (std::nullopt); `fallback` when absent.
  std::optional<gspn::Distribution> distribution(const std::string& key, double fallback,
                                                 bool allowZero = false) {
    const ast::Property* p = find(key);
    const auto* call = p ? boost::get<ast::Call>(&p->value) : nullptr;
    if (!call) {
      const double mean = number(key, fallback, allowZero);
      if (mean == 0) return std::nullopt;
      return gspn::Distribution::exponential(mean);
    }
    const std::string& name = call->function.name;
    if (!gspn::Distribution::isName(name)) {
      error(*p, "'" + key + "' of " + element_ + ": " +
                    unknownName("distribution", name, gspn::Distribution::names()));
    } else {
      try {
        return gspn::Distribution::make(name, call->arguments);
      } catch (const std::invalid_argument& e) {
        error(*p, "'" + key + "' of " + element_ + ": " + e.what());
      }
    }
    if (fallback == 0) return std::nullopt;
    return gspn::Distribution::exponential(fallback);
  }

  /// A whole number >= 1.
  std::uint32_t count(const std::string& key, std::uint32_t fallback) {
    const ast::Property* p = find(key);
    if (!p) return fallback;
    const double* x = boost::get<double>(&p->value);
    if (!x || *x < 1 || *x != std::floor(*x) || *x > 1e6) {
      error(*p, "'" + key + "' of " + element_ + " must be a whole number of at least 1");
      return fallback;
    }
    return static_cast<std::uint32_t>(*x);
  }

  /// One of `choices` (a bare name); `supported` lists the ones this version implements.
  std::string choice(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& choices,
                     const std::vector<std::string>& supported) {
    const ast::Property* p = find(key);
    if (!p) return fallback;
    const ast::Identifier* word = boost::get<ast::Identifier>(&p->value);
    if (!word || std::find(choices.begin(), choices.end(), word->name) == choices.end()) {
      error(*p, "'" + key + "' of " + element_ + " must be one of " + join(choices) +
                    (word ? suggestion(word->name, choices) : ""));
      return fallback;
    }
    if (std::find(supported.begin(), supported.end(), word->name) == supported.end()) {
      error(*p, "'" + key + ": " + word->name + "' is not supported yet (supported: " +
                    join(supported) + ")");
      return fallback;
    }
    return word->name;
  }

  const ast::Property* find(const std::string& key) const {
    auto it = values_.find(key);
    return it == values_.end() ? nullptr : it->second;
  }
  void error(const ast::Property& p, std::string message) {
    c_.diagnostics.error(c_.parsed.positions.offsetOf(p), std::move(message));
  }

 private:
  Compilation& c_;
  std::string element_;
  std::map<std::string, const ast::Property*> values_;
};

// ---- check-names ----------------------------------------------------------------------

class CheckNames final : public Pass {
 public:
  std::string_view name() const override { return "check-names"; }

  void apply(Compilation& c) const override {
    System& s = c.system;
    s.name = c.parsed.system.name.name;
    std::map<std::string, Symbol> symbols;
    std::vector<std::string> allNames;
    auto offsetOf = [&](const auto& node) { return c.parsed.positions.offsetOf(node); };

    auto declare = [&](const ast::Identifier& id, Kind kind, Index index) {
      auto [it, inserted] = symbols.emplace(id.name, Symbol{kind, index, offsetOf(id)});
      if (!inserted) {
        auto [line, column] = c.diagnostics.locate(it->second.offset);
        c.diagnostics.error(offsetOf(id), "'" + id.name + "' is already declared as " +
                                              withArticle(it->second.kind) + " on line " +
                                              std::to_string(line));
        return false;
      }
      allNames.push_back(id.name);
      return true;
    };
    auto resolve = [&](const ast::Identifier& id, std::vector<Kind> wanted,
                       const std::string& role) -> std::optional<Symbol> {
      auto it = symbols.find(id.name);
      if (it == symbols.end()) {
        c.diagnostics.error(offsetOf(id), "unknown name '" + id.name + "'" +
                                              suggestion(id.name, allNames));
        return std::nullopt;
      }
      if (std::find(wanted.begin(), wanted.end(), it->second.kind) == wanted.end()) {
        c.diagnostics.error(offsetOf(id), "'" + id.name + "' is " +
                                              withArticle(it->second.kind) + ", but " + role);
        return std::nullopt;
      }
      return it->second;
    };

    std::vector<const ast::Item*> items;
    std::vector<const ast::Property*> systemProperties;
    for (const ast::SystemItem& item : c.parsed.system.items) {
      if (const auto* section = boost::get<ast::Section>(&item))
        for (const ast::Item& i : section->items) items.push_back(&i);
      else
        systemProperties.push_back(&boost::get<ast::Property>(item));
    }

    // Declarations first, so that uses may come before them in the text.
    std::vector<std::pair<const ast::Link*, Index>> declaredLinks;
    for (const ast::Item* item : items) {
      if (const auto* p = boost::get<ast::Processor>(item)) {
        if (!declare(p->name, Kind::Processor, Index(s.processors.size()))) continue;
        Processor proc;
        proc.name = p->name.name;
        proc.offset = offsetOf(*p);
        PropertyReader props(c, p->properties, "processor '" + proc.name + "'",
                             {"policy", "speed", "servers"});
        props.choice("policy", "fcfs", {"fcfs", "ps", "static"}, {"fcfs"});
        proc.speed = props.number("speed", 1.0);
        proc.servers = props.count("servers", 1);
        s.processors.push_back(std::move(proc));
      } else if (const auto* l = boost::get<ast::Link>(item)) {
        if (!declare(l->name, Kind::Link, Index(s.links.size()))) continue;
        declaredLinks.emplace_back(l, Index(s.links.size()));
        Link link;
        link.name = l->name.name;
        link.offset = offsetOf(*l);
        PropertyReader props(c, l->properties, "link '" + link.name + "'",
                             {"kind", "bandwidth", "latency", "channels"});
        props.choice("kind", "circuit", {"circuit", "store_forward", "bus"}, {"circuit"});
        link.bandwidth = props.number("bandwidth", 1.0);
        link.latency = props.number("latency", 0.0, /*allowZero=*/true);
        link.channels = props.count("channels", 1);
        s.links.push_back(std::move(link));
      } else if (const auto* a = boost::get<ast::Actor>(item)) {
        if (!declare(a->name, Kind::Actor, Index(s.actors.size()))) continue;
        Actor actor;
        actor.name = a->name.name;
        actor.offset = offsetOf(*a);
        PropertyReader props(c, a->properties, "actor '" + actor.name + "'", {"demand"});
        actor.demand = *props.distribution("demand", 1.0);
        s.actors.push_back(std::move(actor));
      } else if (const auto* d = boost::get<ast::DataNode>(item)) {
        if (!declare(d->name, Kind::DataNode, Index(s.dataNodes.size()))) continue;
        DataNode data;
        data.name = d->name.name;
        data.offset = offsetOf(*d);
        PropertyReader props(c, d->properties, "data node '" + data.name + "'", {});
        s.dataNodes.push_back(std::move(data));
      }
    }

    // Link ends.
    for (auto [l, index] : declaredLinks) {
      Link& link = s.links[index];
      if (l->ends.size() != 2) {
        c.diagnostics.error(offsetOf(*l), "link '" + link.name + "' connects " +
                                              std::to_string(l->ends.size()) +
                                              " processors; a point-to-point link connects "
                                              "exactly two (buses are not supported yet)");
        continue;
      }
      for (int e = 0; e < 2; ++e)
        if (auto sym = resolve(l->ends[e], {Kind::Processor}, "a link connects processors"))
          link.ends[e] = sym->index;
      if (l->ends[0].name == l->ends[1].name)
        c.diagnostics.error(offsetOf(l->ends[1]),
                            "link '" + link.name + "' connects processor '" +
                                l->ends[0].name + "' to itself");
    }

    // Arcs become messages.
    std::map<std::string, Index> messageByName;
    for (const ast::Item* item : items) {
      const auto* arc = boost::get<ast::Arc>(item);
      if (!arc) continue;
      auto from = resolve(arc->from, {Kind::Actor, Kind::DataNode}, "arcs connect actors and data nodes");
      auto to = resolve(arc->to, {Kind::Actor, Kind::DataNode}, "arcs connect actors and data nodes");
      if (!from || !to) continue;
      if (from->kind == to->kind) {
        c.diagnostics.error(offsetOf(*arc),
                            "arc '" + arc->from.name + " -> " + arc->to.name + "' connects two " +
                                kindName(from->kind) + "s; an arc goes from an actor to a data "
                                "node (a write) or from a data node to an actor (a read)");
        continue;
      }
      Message m;
      m.name = arc->from.name + "->" + arc->to.name;
      m.offset = offsetOf(*arc);
      m.isWrite = from->kind == Kind::Actor;
      m.actor = m.isWrite ? from->index : to->index;
      m.data = m.isWrite ? to->index : from->index;
      PropertyReader props(c, arc->properties, "arc '" + arc->from.name + " -> " + arc->to.name + "'",
                           {"size"});
      m.size = props.distribution("size", 0.0, /*allowZero=*/true);
      const Index id = Index(s.messages.size());
      if (!messageByName.emplace(m.name, id).second) {
        c.diagnostics.error(m.offset, "arc '" + arc->from.name + " -> " + arc->to.name +
                                          "' is declared twice");
        continue;
      }
      if (m.isWrite) {
        s.actors[m.actor].writes.push_back(id);
        s.dataNodes[m.data].writers.push_back(id);
      } else {
        s.actors[m.actor].reads.push_back(id);
        s.dataNodes[m.data].readers.push_back(id);
      }
      s.messages.push_back(std::move(m));
    }

    // Placements and explicit routes.
    for (const ast::Item* item : items) {
      if (const auto* p = boost::get<ast::Placement>(item)) {
        auto proc = resolve(p->processor, {Kind::Processor}, "elements are placed on processors");
        for (const ast::Identifier& e : p->elements) {
          auto sym = resolve(e, {Kind::Actor, Kind::DataNode}, "only actors and data nodes are placed");
          if (!sym || !proc) continue;
          std::optional<Index>& slot = sym->kind == Kind::Actor ? s.actors[sym->index].processor
                                                                : s.dataNodes[sym->index].processor;
          if (slot) {
            c.diagnostics.error(offsetOf(e), "'" + e.name + "' is already placed on '" +
                                                 s.processors[*slot].name + "'");
            continue;
          }
          slot = proc->index;
          if (sym->kind == Kind::Actor) s.processors[proc->index].actors.push_back(sym->index);
        }
      } else if (const auto* r = boost::get<ast::Route>(item)) {
        auto it = messageByName.find(r->from.name + "->" + r->to.name);
        if (it == messageByName.end()) {
          c.diagnostics.error(offsetOf(*r), "route for '" + r->from.name + " -> " + r->to.name +
                                                "', but the application has no such arc");
          continue;
        }
        Message& m = s.messages[it->second];
        if (m.routeOffset) {
          c.diagnostics.error(offsetOf(*r), "a route for '" + r->from.name + " -> " +
                                                r->to.name + "' is already given");
          continue;
        }
        m.routeOffset = offsetOf(*r);
        for (const ast::Identifier& l : r->links)
          if (auto sym = resolve(l, {Kind::Link}, "a route is a list of links"))
            m.route.push_back(sym->index);
      }
    }

    for (const Actor& a : s.actors)
      if (!a.processor)
        c.diagnostics.error(a.offset, "actor '" + a.name + "' is not mapped to a processor; add '" +
                                          a.name + " on P;' to the mapping");
    for (const DataNode& d : s.dataNodes) {
      if (!d.processor)
        c.diagnostics.error(d.offset, "data node '" + d.name +
                                          "' is not mapped to a processor; add '" + d.name +
                                          " on P;' to the mapping");
      if (d.writers.empty())
        c.diagnostics.error(d.offset, "data node '" + d.name +
                                          "' has no writer, so its readers could never run; "
                                          "add an arc 'A -> " + d.name + "'");
      else if (d.readers.empty())
        c.diagnostics.warning(d.offset, "data node '" + d.name + "' is never read");
    }

    // System-level properties.
    bool workloadSeen = false;
    for (const ast::Property* p : systemProperties) {
      const std::size_t at = offsetOf(*p);
      if (p->key.name != "workload") {
        c.diagnostics.error(at, "unknown system property '" + p->key.name + "'" +
                                    suggestion(p->key.name, {"workload"}) + " (known: workload)");
        continue;
      }
      if (workloadSeen) {
        c.diagnostics.error(at, "the workload is given twice");
        continue;
      }
      workloadSeen = true;
      s.workload.offset = at;
      const auto* call = boost::get<ast::Call>(&p->value);
      if (!call || (call->function.name != "closed" && call->function.name != "open" &&
                    call->function.name != "stream")) {
        c.diagnostics.error(at, "the workload must be closed(k), e.g. 'workload: closed(1);'");
        continue;
      }
      if (call->function.name != "closed") {
        c.diagnostics.error(at, "workload '" + call->function.name +
                                    "' is not supported yet (supported: closed(k))");
        continue;
      }
      const double k = call->arguments.empty() ? 1.0 : call->arguments[0];
      if (call->arguments.size() > 1 || k < 1 || k != std::floor(k) || k > 1e6) {
        c.diagnostics.error(at, "closed(k) takes one whole number k >= 1, the iterations in flight");
        continue;
      }
      s.workload.population = static_cast<std::uint32_t>(k);
    }

    for (Index a = 0; a < s.actors.size(); ++a) {
      if (s.actors[a].reads.empty()) s.sources.push_back(a);
      if (s.actors[a].writes.empty()) s.sinks.push_back(a);
    }
    const std::size_t systemOffset = offsetOf(c.parsed.system.name);
    const bool anyActor = std::any_of(items.begin(), items.end(), [](const ast::Item* i) {
      return boost::get<ast::Actor>(i) != nullptr;
    });
    if (!anyActor)
      c.diagnostics.error(systemOffset, "system '" + s.name + "' has no actors");
    if (anyActor && s.sources.empty())
      c.diagnostics.error(systemOffset, "the application has no source actor (one without read "
                                        "arcs), so closed(k) has nothing to start");
    else if (anyActor && s.sinks.empty())
      c.diagnostics.error(systemOffset, "the application has no sink actor (one without write "
                                        "arcs), so an iteration never completes");
    if (s.processors.empty())
      c.diagnostics.error(systemOffset, "system '" + s.name + "' has no processors");
  }

  void dump(const Compilation& c, std::ostream& out) const override {
    const System& s = c.system;
    out << s.processors.size() << " processors, " << s.links.size() << " links, "
        << s.actors.size() << " actors, " << s.dataNodes.size() << " data nodes, "
        << s.messages.size() << " messages\n";
  }
};

// ---- route --------------------------------------------------------------------------

class RouteMessages final : public Pass {
 public:
  std::string_view name() const override { return "route"; }

  void apply(Compilation& c) const override {
    System& s = c.system;
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    Graph graph(s.processors.size());
    for (const Link& l : s.links) boost::add_edge(l.ends[0], l.ends[1], graph);

    for (Message& m : s.messages) {
      const Index from = s.senderProcessor(m), to = s.receiverProcessor(m);
      const std::string arc = m.isWrite ? s.actors[m.actor].name + " -> " + s.dataNodes[m.data].name
                                        : s.dataNodes[m.data].name + " -> " + s.actors[m.actor].name;
      if (from == to) {
        if (m.routeOffset)
          c.diagnostics.error(*m.routeOffset, "'" + arc + "' is local (both ends on '" +
                                                  s.processors[from].name +
                                                  "') and needs no route");
        m.route.clear();
        m.local = true;
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
          c.diagnostics.error(m.offset, "no route for '" + arc + "': no chain of links connects '" +
                                            s.processors[from].name + "' to '" +
                                            s.processors[to].name + "'");
          continue;
        }
        // Among the shortest paths, the lexicographically smallest sequence of link names:
        // walk greedily towards the destination taking the smallest name at each hop.
        for (Index at = from; at != to;) {
          std::optional<Index> best;
          for (Index l = 0; l < s.links.size(); ++l) {
            const Link& link = s.links[l];
            if (!link.touches(at) || distance[link.otherEnd(at)] + 1 != distance[at]) continue;
            if (!best || link.name < s.links[*best].name) best = l;
          }
          m.route.push_back(*best);
          at = s.links[*best].otherEnd(at);
        }
      }
      double latency = 0, bandwidth = HUGE_VAL;
      for (Index l : m.route) {
        latency += s.links[l].latency;
        bandwidth = std::min(bandwidth, s.links[l].bandwidth);
      }
      const double mean = latency + (m.size ? m.size->mean() / bandwidth : 0);
      if (mean > 0 && !isUsableTime(mean)) {
        c.diagnostics.error(m.offset, "the transfer time of '" + arc + "' (latency + size / "
                                      "bandwidth = " + formatNumber(mean) +
                                      ") is too large or too small for a rate; check the "
                                      "size, bandwidth and latency");
        continue;
      }
      // A declared size distribution keeps its shape, shifted by the latency; a plain
      // size (exponential) gives an exponential transfer with the same mean.
      if (m.size && !m.size->isExponential())
        m.transfer = m.size->scaled(1 / bandwidth).shifted(latency);
      else if (mean > 0)
        m.transfer = gspn::Distribution::exponential(mean);
      m.local = !m.transfer;
    }
    // Execution times: the demand's mean over the speed of the processor.
    for (const Actor& a : s.actors) {
      if (!a.processor) continue;
      const double time = a.demand.mean() / s.processors[*a.processor].speed;
      if (!isUsableTime(time))
        c.diagnostics.error(a.offset, "the execution time of actor '" + a.name +
                                          "' (demand / speed = " + formatNumber(time) +
                                          ") is too large or too small for a rate; check its "
                                          "demand and the speed of '" +
                                          s.processors[*a.processor].name + "'");
    }
  }

  /// A mean delay whose rate, 1 / mean, is a finite positive number too (1e-320 is not).
  static bool isUsableTime(double mean) {
    return std::isfinite(mean) && mean > 0 && std::isfinite(1 / mean);
  }

  void dump(const Compilation& c, std::ostream& out) const override {
    const System& s = c.system;
    for (const Message& m : s.messages) {
      out << "  " << m.name;
      if (m.local) {
        out << " local\n";
        continue;
      }
      out << " via";
      for (Index l : m.route) out << ' ' << s.links[l].name;
      out << " (" << (m.transfer->isExponential() ? formatNumber(m.transfer->mean())
                                                  : m.transfer->toString())
          << " time units)\n";
    }
  }

 private:
  static bool checkExplicit(Compilation& c, Message& m, Index from, Index to,
                            const std::string& arc) {
    const System& s = c.system;
    Index at = from;
    for (Index l : m.route) {
      const Link& link = s.links[l];
      if (!link.touches(at)) {
        c.diagnostics.error(*m.routeOffset, "route of '" + arc + "': link '" + link.name +
                                                "' does not touch '" + s.processors[at].name +
                                                "', where the route is at that point");
        return false;
      }
      at = link.otherEnd(at);
    }
    if (at != to) {
      c.diagnostics.error(*m.routeOffset, "route of '" + arc + "' ends at '" +
                                              s.processors[at].name + "', but the receiver is on '" +
                                              s.processors[to].name + "'");
      return false;
    }
    return true;
  }
};

// ---- instantiate --------------------------------------------------------------------

class Instantiate final : public Pass {
 public:
  std::string_view name() const override { return "instantiate"; }
  void apply(Compilation& c) const override {
    gspn::NetBuilder builder(c.system.name);
    Ports ports = instantiateTemplates(builder, c.system);
    c.result = CompiledSystem{c.system, builder.freeze(), std::move(ports)};
  }
  void dump(const Compilation& c, std::ostream& out) const override {
    if (c.result)
      out << c.result->net.placeCount() << " places, " << c.result->net.transitionCount()
          << " transitions\n";
  }
};

}  // namespace

std::vector<std::unique_ptr<Pass>> standardPasses() {
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<CheckNames>());
  passes.push_back(std::make_unique<RouteMessages>());
  passes.push_back(std::make_unique<Instantiate>());
  return passes;
}

std::optional<CompiledSystem> compile(const grammar::ParsedSystem& parsed,
                                      grammar::Diagnostics& diagnostics, std::ostream* trace) {
  Compilation c{parsed, diagnostics, {}, std::nullopt};
  for (const auto& pass : standardPasses()) {
    pass->apply(c);
    if (trace) {
      *trace << "after " << pass->name() << ": ";
      pass->dump(c, *trace);
    }
    if (diagnostics.hasErrors()) return std::nullopt;
  }
  return std::move(c.result);
}

}  // namespace mmt::compiler
