// check-names: from the parsed description to the System model. Every name is resolved,
// every property read and range-checked, and the structural rules of docs/language.md are
// enforced (every element mapped, every data node written, a cycle of the dataflow broken
// by initial items). All mistakes are reported, not only the first.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include "compiler/passes/passes.hpp"
#include "compiler/property_reader.hpp"

namespace mmt::compiler::passes {
namespace ast = grammar::ast;
using grammar::join;
using grammar::suggestion;

namespace {

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

/// One run of the pass: the symbol table and the steps that fill the System.
class Checker {
 public:
  explicit Checker(Compilation& c) : c_(c), s_(c.system) {}

  void run() {
    s_.name = c_.parsed.system.name.name;
    for (const ast::SystemItem& item : c_.parsed.system.items) {
      if (const auto* section = boost::get<ast::Section>(&item))
        for (const ast::Item& i : section->items) items_.push_back(&i);
      else
        systemProperties_.push_back(&boost::get<ast::Property>(item));
    }
    // Declarations first, so that uses may come before them in the text.
    declareElements();
    connectLinks();
    declareArcs();
    readMapping();
    checkMapped();
    readSystemProperties();
    findSourcesAndSinks();
    checkCycles();
  }

 private:
  std::size_t offsetOf(const auto& node) const { return c_.parsed.positions.offsetOf(node); }
  PropertyReader reader(const ast::Properties& properties, std::string element,
                        std::vector<std::string> known) {
    return PropertyReader(c_.parsed, c_.diagnostics, properties, std::move(element),
                          std::move(known));
  }

  bool declare(const ast::Identifier& id, Kind kind, Index index) {
    auto [it, inserted] = symbols_.emplace(id.name, Symbol{kind, index, offsetOf(id)});
    if (!inserted) {
      auto [line, column] = c_.diagnostics.locate(it->second.offset);
      c_.diagnostics.error(offsetOf(id), "'" + id.name + "' is already declared as " +
                                             withArticle(it->second.kind) + " on line " +
                                             std::to_string(line));
      return false;
    }
    allNames_.push_back(id.name);
    return true;
  }

  std::optional<Symbol> resolve(const ast::Identifier& id, std::vector<Kind> wanted,
                                const std::string& role) {
    auto it = symbols_.find(id.name);
    if (it == symbols_.end()) {
      c_.diagnostics.error(offsetOf(id),
                           "unknown name '" + id.name + "'" + suggestion(id.name, allNames_));
      return std::nullopt;
    }
    if (std::find(wanted.begin(), wanted.end(), it->second.kind) == wanted.end()) {
      c_.diagnostics.error(offsetOf(id), "'" + id.name + "' is " +
                                             withArticle(it->second.kind) + ", but " + role);
      return std::nullopt;
    }
    return it->second;
  }

  void declareElements() {
    for (const ast::Item* item : items_) {
      if (const auto* p = boost::get<ast::Processor>(item)) {
        if (declare(p->name, Kind::Processor, Index(s_.processors.size())))
          s_.processors.push_back(readProcessor(*p));
      } else if (const auto* l = boost::get<ast::Link>(item)) {
        if (!declare(l->name, Kind::Link, Index(s_.links.size()))) continue;
        declaredLinks_.emplace_back(l, Index(s_.links.size()));
        s_.links.push_back(readLink(*l));
      } else if (const auto* a = boost::get<ast::Actor>(item)) {
        if (!declare(a->name, Kind::Actor, Index(s_.actors.size()))) continue;
        Actor actor;
        actor.name = a->name.name;
        actor.offset = offsetOf(*a);
        auto props = reader(a->properties, "actor '" + actor.name + "'", {"demand"});
        actor.demand = *props.distribution("demand", 1.0);
        s_.actors.push_back(std::move(actor));
      } else if (const auto* d = boost::get<ast::DataNode>(item)) {
        if (declare(d->name, Kind::DataNode, Index(s_.dataNodes.size())))
          s_.dataNodes.push_back(readDataNode(*d));
      }
    }
  }

  Processor readProcessor(const ast::Processor& p) {
    Processor proc;
    proc.name = p.name.name;
    proc.offset = offsetOf(p);
    const std::string element = "processor '" + proc.name + "'";
    auto props = reader(p.properties, element, {"policy", "speed", "servers"});
    const std::string policy = props.choice("policy", "fcfs", {"fcfs", "ps", "static"});
    proc.policy = policy == "ps"       ? Policy::ProcessorSharing
                  : policy == "static" ? Policy::Static
                                       : Policy::Fcfs;
    proc.speed = props.number("speed", 1.0);
    proc.servers = props.count("servers", 1);
    if (proc.policy == Policy::Static)
      if (const ast::Property* servers = props.find("servers"))
        props.error(*servers, "'servers' does not apply to " + element +
                                  ": a static processor gives every mapped actor its own "
                                  "share of the speed; use fcfs or ps for servers");
    return proc;
  }

  Link readLink(const ast::Link& l) {
    Link link;
    link.name = l.name.name;
    link.offset = offsetOf(l);
    auto props = reader(l.properties, "link '" + link.name + "'",
                        {"kind", "bandwidth", "latency", "channels"});
    const std::string kind =
        props.choice("kind", "circuit", {"circuit", "store_forward", "bus"});
    link.kind = kind == "bus"             ? LinkKind::Bus
                : kind == "store_forward" ? LinkKind::StoreForward
                                          : LinkKind::Circuit;
    link.bandwidth = props.number("bandwidth", 1.0);
    link.latency = props.number("latency", 0.0, /*allowZero=*/true);
    link.channels = props.count("channels", 1);
    return link;
  }

  DataNode readDataNode(const ast::DataNode& d) {
    DataNode data;
    data.name = d.name.name;
    data.offset = offsetOf(d);
    const std::string element = "data node '" + data.name + "'";
    auto props = reader(d.properties, element, {"capacity", "initial"});
    if (props.find("capacity")) data.capacity = props.count("capacity", 1);
    data.initial = props.count("initial", 0, /*least=*/0);
    if (data.capacity && data.initial > *data.capacity)
      props.error(*props.find("initial"),
                  "'initial' of " + element + " is " + std::to_string(data.initial) +
                      " items, more than its capacity of " + std::to_string(*data.capacity));
    return data;
  }

  void connectLinks() {
    for (auto [l, index] : declaredLinks_) {
      Link& link = s_.links[index];
      if (l->ends.size() < 2) {
        c_.diagnostics.error(offsetOf(*l), "link '" + link.name + "' connects " +
                                               std::to_string(l->ends.size()) +
                                               " processor; a link connects two (a bus two "
                                               "or more)");
        continue;
      }
      if (l->ends.size() > 2 && link.kind != LinkKind::Bus) {
        c_.diagnostics.error(offsetOf(*l), "link '" + link.name + "' connects " +
                                               std::to_string(l->ends.size()) +
                                               " processors: a link joining more than two is a "
                                               "bus; add 'kind: bus;'");
        continue;
      }
      for (std::size_t e = 0; e < l->ends.size(); ++e) {
        auto sym = resolve(l->ends[e], {Kind::Processor}, "a link connects processors");
        if (!sym) continue;
        if (link.touches(sym->index)) {
          c_.diagnostics.error(offsetOf(l->ends[e]),
                               "link '" + link.name + "' " +
                                   (l->ends.size() == 2 ? "connects processor '" +
                                                              l->ends[e].name + "' to itself"
                                                        : "names processor '" +
                                                              l->ends[e].name + "' twice"));
          continue;
        }
        link.ends.push_back(sym->index);
      }
    }
  }

  void declareArcs() {
    for (const ast::Item* item : items_) {
      const auto* arc = boost::get<ast::Arc>(item);
      if (!arc) continue;
      const std::string role = "arcs connect actors and data nodes";
      auto from = resolve(arc->from, {Kind::Actor, Kind::DataNode}, role);
      auto to = resolve(arc->to, {Kind::Actor, Kind::DataNode}, role);
      if (!from || !to) continue;
      const std::string text = "arc '" + arc->from.name + " -> " + arc->to.name + "'";
      if (from->kind == to->kind) {
        c_.diagnostics.error(offsetOf(*arc), text + " connects two " + kindName(from->kind) +
                                                 "s; an arc goes from an actor to a data "
                                                 "node (a write) or from a data node to an "
                                                 "actor (a read)");
        continue;
      }
      Message m;
      m.name = arc->from.name + "->" + arc->to.name;
      m.offset = offsetOf(*arc);
      m.isWrite = from->kind == Kind::Actor;
      m.actor = m.isWrite ? from->index : to->index;
      m.data = m.isWrite ? to->index : from->index;
      auto props = reader(arc->properties, text, {"size"});
      m.size = props.distribution("size", 0.0, /*allowZero=*/true);
      const Index id = Index(s_.messages.size());
      if (!messageByName_.emplace(m.name, id).second) {
        c_.diagnostics.error(m.offset, text + " is declared twice");
        continue;
      }
      if (m.isWrite) {
        s_.actors[m.actor].writes.push_back(id);
        s_.dataNodes[m.data].writers.push_back(id);
      } else {
        s_.actors[m.actor].reads.push_back(id);
        s_.dataNodes[m.data].readers.push_back(id);
      }
      s_.messages.push_back(std::move(m));
    }
  }

  void readMapping() {
    for (const ast::Item* item : items_) {
      if (const auto* p = boost::get<ast::Placement>(item)) {
        auto proc =
            resolve(p->processor, {Kind::Processor}, "elements are placed on processors");
        for (const ast::Identifier& e : p->elements) {
          auto sym =
              resolve(e, {Kind::Actor, Kind::DataNode}, "only actors and data nodes are placed");
          if (!sym || !proc) continue;
          std::optional<Index>& slot = sym->kind == Kind::Actor
                                           ? s_.actors[sym->index].processor
                                           : s_.dataNodes[sym->index].processor;
          if (slot) {
            c_.diagnostics.error(offsetOf(e), "'" + e.name + "' is already placed on '" +
                                                  s_.processors[*slot].name + "'");
            continue;
          }
          slot = proc->index;
          if (sym->kind == Kind::Actor) s_.processors[proc->index].actors.push_back(sym->index);
        }
      } else if (const auto* r = boost::get<ast::Route>(item)) {
        const std::string arc = "'" + r->from.name + " -> " + r->to.name + "'";
        auto it = messageByName_.find(r->from.name + "->" + r->to.name);
        if (it == messageByName_.end()) {
          c_.diagnostics.error(offsetOf(*r),
                               "route for " + arc + ", but the application has no such arc");
          continue;
        }
        Message& m = s_.messages[it->second];
        if (m.routeOffset) {
          c_.diagnostics.error(offsetOf(*r), "a route for " + arc + " is already given");
          continue;
        }
        m.routeOffset = offsetOf(*r);
        for (const ast::Identifier& l : r->links)
          if (auto sym = resolve(l, {Kind::Link}, "a route is a list of links"))
            m.route.push_back(sym->index);
      }
    }
  }

  void checkMapped() {
    for (const Actor& a : s_.actors)
      if (!a.processor)
        c_.diagnostics.error(a.offset, "actor '" + a.name +
                                           "' is not mapped to a processor; add '" + a.name +
                                           " on P;' to the mapping");
    for (const DataNode& d : s_.dataNodes) {
      if (!d.processor)
        c_.diagnostics.error(d.offset, "data node '" + d.name +
                                           "' is not mapped to a processor; add '" + d.name +
                                           " on P;' to the mapping");
      if (d.writers.empty())
        c_.diagnostics.error(d.offset, "data node '" + d.name +
                                           "' has no writer, so its readers could never run; "
                                           "add an arc 'A -> " + d.name + "'");
      else if (d.readers.empty())
        c_.diagnostics.warning(d.offset, "data node '" + d.name + "' is never read");
    }
  }

  void readSystemProperties() {
    for (const ast::Property* p : systemProperties_) {
      const std::size_t at = offsetOf(*p);
      if (p->key.name != "workload") {
        c_.diagnostics.error(at, "unknown system property '" + p->key.name + "'" +
                                     suggestion(p->key.name, {"workload"}) +
                                     " (known: workload)");
        continue;
      }
      if (workloadGiven_) {
        c_.diagnostics.error(at, "the workload is given twice");
        continue;
      }
      workloadGiven_ = true;
      readWorkload(*p);
    }
  }

  void readWorkload(const ast::Property& p) {
    Workload& w = s_.workload;
    w.offset = offsetOf(p);
    const auto* call = boost::get<ast::Call>(&p.value);
    const auto* word = boost::get<ast::Identifier>(&p.value);
    const std::string usage =
        "the workload is closed(k), open(rate, limit) or stream, e.g. 'workload: closed(1);'";
    if (word && word->name == "stream") {
      w.kind = Workload::Kind::Stream;
      return;
    }
    if (!call) {
      c_.diagnostics.error(w.offset, usage);
      return;
    }
    const std::string& f = call->function.name;
    const std::vector<double>& args = call->arguments;
    auto whole = [](double x) { return x >= 1 && x == std::floor(x) && x <= 1e6; };
    if (f == "closed") {
      const double k = args.empty() ? 1.0 : args[0];
      if (args.size() > 1 || !whole(k))
        c_.diagnostics.error(w.offset,
                             "closed(k) takes one whole number k >= 1, the iterations in flight");
      else
        w.population = static_cast<std::uint32_t>(k);
    } else if (f == "open") {
      if (args.size() != 2 || !std::isfinite(args[0]) || !(args[0] > 0) || !whole(args[1])) {
        c_.diagnostics.error(w.offset,
                             "open(rate, limit) takes an arrival rate > 0 (iterations per "
                             "time unit) and a whole number limit >= 1 of iterations admitted "
                             "at once");
        return;
      }
      w.kind = Workload::Kind::Open;
      w.arrivalRate = args[0];
      w.limit = static_cast<std::uint32_t>(args[1]);
    } else if (f == "stream") {
      c_.diagnostics.error(w.offset, "stream takes no arguments: 'workload: stream;'");
    } else {
      c_.diagnostics.error(w.offset, usage);
    }
  }

  void findSourcesAndSinks() {
    for (Index a = 0; a < s_.actors.size(); ++a) {
      if (s_.actors[a].reads.empty()) s_.sources.push_back(a);
      if (s_.actors[a].writes.empty()) s_.sinks.push_back(a);
    }
    const std::size_t at = offsetOf(c_.parsed.system.name);
    if (s_.processors.empty())
      c_.diagnostics.error(at, "system '" + s_.name + "' has no processors");
    if (s_.actors.empty()) {
      c_.diagnostics.error(at, "system '" + s_.name + "' has no actors");
      return;
    }
    // Without source actors every actor reads a data node, so following the arcs backwards
    // ends in a data node without writer or in a cycle: checkCycles reports the latter
    // unless initial items start it, and then the application runs on those items.
    if (s_.sources.empty() && workloadGiven_)
      c_.diagnostics.warning(s_.workload.offset,
                             "the application has no source actor: it runs on the initial "
                             "items of its cycles, and the workload is ignored");
    if (!s_.sources.empty() && s_.sinks.empty())
      c_.diagnostics.error(at, "the application has no sink actor (one without write arcs), "
                               "so an iteration never completes");
  }

  /// A cycle of the dataflow graph through data nodes without initial items could never
  /// start: every actor on it waits for another ([MMT] §2: homogeneous dataflow).
  void checkCycles() {
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    Graph graph(s_.actors.size());
    for (const DataNode& d : s_.dataNodes) {
      if (d.initial > 0) continue;
      for (Index w : d.writers)
        for (Index r : d.readers)
          boost::add_edge(s_.messages[w].actor, s_.messages[r].actor, graph);
    }
    std::vector<std::size_t> component(s_.actors.size());
    const std::size_t count = boost::strong_components(graph, component.data());
    std::vector<std::vector<Index>> members(count);
    for (Index a = 0; a < s_.actors.size(); ++a) members[component[a]].push_back(a);
    for (const auto& cycle : members) {
      const Index first = cycle.front();
      if (cycle.size() == 1 && !boost::edge(first, first, graph).second) continue;
      std::vector<std::string> names;
      for (Index a : cycle) names.push_back(s_.actors[a].name);
      c_.diagnostics.error(s_.actors[first].offset,
                           "the actors " + join(names) +
                               " form a dataflow cycle that no data item starts, so none of "
                               "them could ever run; give a data node on the cycle "
                               "'initial: 1;'");
    }
  }

  Compilation& c_;
  System& s_;
  std::vector<const ast::Item*> items_;
  std::vector<const ast::Property*> systemProperties_;
  std::map<std::string, Symbol> symbols_;
  std::vector<std::string> allNames_;
  std::vector<std::pair<const ast::Link*, Index>> declaredLinks_;
  std::map<std::string, Index> messageByName_;
  bool workloadGiven_ = false;
};

class CheckNames final : public Pass {
 public:
  std::string_view name() const override { return "check-names"; }
  void apply(Compilation& c) const override { Checker(c).run(); }
  void dump(const Compilation& c, std::ostream& out) const override {
    const System& s = c.system;
    out << s.processors.size() << " processors, " << s.links.size() << " links, "
        << s.actors.size() << " actors, " << s.dataNodes.size() << " data nodes, "
        << s.messages.size() << " messages\n";
  }
};

}  // namespace

std::unique_ptr<Pass> checkNames() { return std::make_unique<CheckNames>(); }

}  // namespace mmt::compiler::passes
