// check-names: from the parsed description to the System model. Every name is resolved,
// every property read and range-checked, and the structural rules of docs/language.md are
// enforced (every element mapped, every data node written, a cycle of the dataflow broken
// by initial items). All mistakes are reported, not only the first.
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <cmath>
#include <map>
#include <ostream>

#include "compiler/passes/passes.hpp"
#include "compiler/property_reader.hpp"

namespace mmt::compiler::passes {
using grammar::join;
using grammar::suggestion;

namespace {

enum class Kind { Processor, Link, Actor, DataNode, Task, Skeleton };

const char* kindName(Kind k) {
  switch (k) {
    case Kind::Processor:
      return "processor";
    case Kind::Link:
      return "link";
    case Kind::Actor:
      return "actor";
    case Kind::DataNode:
      return "data node";
    case Kind::Task:
      return "task";
    case Kind::Skeleton:
      return "skeleton";
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
  explicit Checker(Compilation& c) : c_(c), s_(c.system), e_(c.elaborated) {}

  void run() {
    s_.name = e_.name.text;
    for (const elab::Item& item : e_.items) items_.push_back(&item);
    // Declarations first, so that uses may come before them in the text.
    declareElements();
    connectLinks();
    readSkeletonEnds();
    declareArcs();
    readMapping();
    checkMapped();
    checkTaskHosts();
    readSystemProperties();
    findSourcesAndSinks();
    checkCycles();
  }

 private:
  void error(const elab::Origin& at, std::string message) {
    reportAt(c_.diagnostics, at, std::move(message));
  }
  PropertyReader reader(const elab::Properties& properties, std::string element,
                        std::vector<std::string> known) {
    return PropertyReader(c_.diagnostics, properties, std::move(element), std::move(known));
  }

  bool declare(const elab::Name& id, Kind kind, Index index) {
    auto [it, inserted] = symbols_.emplace(id.text, Symbol{kind, index, id.at.offset});
    if (!inserted) {
      auto [line, column] = c_.diagnostics.locate(it->second.offset);
      error(id.at, "'" + id.text + "' is already declared as " + withArticle(it->second.kind) +
                       " on line " + std::to_string(line));
      return false;
    }
    allNames_.push_back(id.text);
    return true;
  }

  std::optional<Symbol> resolve(const elab::Name& id, std::vector<Kind> wanted,
                                const std::string& role) {
    auto it = symbols_.find(id.text);
    if (it == symbols_.end()) {
      error(id.at, "unknown name '" + id.text + "'" + familyHint(id.text));
      return std::nullopt;
    }
    if (std::find(wanted.begin(), wanted.end(), it->second.kind) == wanted.end()) {
      error(id.at, "'" + id.text + "' is " + withArticle(it->second.kind) + ", but " + role);
      return std::nullopt;
    }
    return it->second;
  }

  /// For `A[7]` when A[1] … A[4] exist: "; the family 'A' has A[1] … A[4]"; otherwise the
  /// closest declared name, if any is close.
  std::string familyHint(const std::string& name) const {
    const std::size_t bracket = name.find('[');
    if (bracket != std::string::npos) {
      const std::string family = name.substr(0, bracket + 1);
      std::vector<std::string> members;
      for (const std::string& n : allNames_)
        if (n.compare(0, family.size(), family) == 0) members.push_back(n);
      if (!members.empty())
        return "; the family '" + name.substr(0, bracket) + "' has " + members.front() +
               (members.size() > 1 ? " … " + members.back() : "") + " (" +
               std::to_string(members.size()) + " declared)";
    }
    return suggestion(name, allNames_);
  }

  void declareElements() {
    for (const elab::Item* item : items_) {
      if (const auto* p = std::get_if<elab::Processor>(item)) {
        if (declare(p->name, Kind::Processor, Index(s_.processors.size())))
          s_.processors.push_back(readProcessor(*p));
      } else if (const auto* l = std::get_if<elab::Link>(item)) {
        if (!declare(l->name, Kind::Link, Index(s_.links.size()))) continue;
        declaredLinks_.emplace_back(l, Index(s_.links.size()));
        s_.links.push_back(readLink(*l));
      } else if (const auto* a = std::get_if<elab::Actor>(item)) {
        if (!declare(a->name, Kind::Actor, Index(s_.actors.size()))) continue;
        Actor actor;
        actor.name = a->name.text;
        actor.offset = a->at.offset;
        auto props = reader(a->properties, "actor '" + actor.name + "'", {"demand"});
        actor.demand = props.distribution("demand", 1.0, true);
        s_.actors.push_back(std::move(actor));
      } else if (const auto* d = std::get_if<elab::DataNode>(item)) {
        if (declare(d->name, Kind::DataNode, Index(s_.dataNodes.size())))
          s_.dataNodes.push_back(readDataNode(*d));
      } else if (const auto* k = std::get_if<elab::Skeleton>(item)) {
        declareSkeleton(*k);
      }
    }
  }

  /// A top-level skeleton: its tree of nodes and tasks. Its input and output are read by
  /// readSkeletonEnds, once processors are known.
  void declareSkeleton(const elab::Skeleton& k) {
    const Index index = Index(s_.skeletons.size());
    s_.skeletons.emplace_back();
    skeletonTexts_.push_back(&k);
    const std::size_t errors = c_.diagnostics.errorCount();
    const Index root = declareNode(k, index, true);
    if (c_.diagnostics.errorCount() > errors) return;
    s_.skeletons[index].root = root;
  }

  Index declareNode(const elab::Skeleton& k, Index skeleton, bool top) {
    using EKind = elab::Skeleton::Kind;
    SkeletonNode node;
    node.name = k.name.text;
    node.offset = k.at.offset;
    const Index index = Index(s_.skeletonNodes.size());
    if (k.kind == EKind::Task) {
      node.kind = SkeletonNode::Kind::Task;
      node.task = Index(s_.tasks.size());
      declare(k.name, Kind::Task, node.task);
      Task task;
      task.name = node.name;
      task.offset = node.offset;
      task.skeleton = skeleton;
      std::vector<std::string> known{"work", "rate", "size"};
      if (top) known.insert(known.end(), {"input", "output", "output_size"});
      auto props = reader(k.properties, "task '" + task.name + "'", known);
      task.work = *props.distribution("work", 1.0);
      if (props.find("rate")) {
        if (props.find("work"))
          props.error(*props.find("rate"), "task '" + task.name +
                                               "' gives both 'work' and 'rate'; 'rate: r' "
                                               "means 'work: 1 / r', give one of them");
        task.work = gspn::Distribution::exponential(1 / props.number("rate", 1.0));
      }
      task.size = props.distribution("size", 1.0, /*allowZero=*/true);
      s_.tasks.push_back(std::move(task));
      s_.skeletons[skeleton].tasks.push_back(node.task);
      s_.skeletonNodes.push_back(std::move(node));
      return index;
    }
    node.kind = k.kind == EKind::Pipeline ? SkeletonNode::Kind::Pipeline
                : k.kind == EKind::Farm   ? SkeletonNode::Kind::Farm
                : k.kind == EKind::Map    ? SkeletonNode::Kind::Map
                                          : SkeletonNode::Kind::Deal;
    declare(k.name, Kind::Skeleton, index);
    const char* what = k.kind == EKind::Pipeline ? "pipeline"
                       : k.kind == EKind::Farm   ? "farm"
                       : k.kind == EKind::Map    ? "map"
                                                 : "deal";
    // Only a top-level skeleton says where its items come from and go; a map's `split`
    // was used by elaborate.
    std::vector<std::string> known;
    if (top) known = {"input", "output", "output_size"};
    if (k.kind == EKind::Map) known.push_back("split");
    reader(k.properties, std::string(what) + " '" + node.name + "'", known);
    s_.skeletonNodes.push_back(std::move(node));
    for (const elab::Skeleton& m : k.members) {
      const Index member = declareNode(m, skeleton, false);
      s_.skeletonNodes[index].members.push_back(member);
    }
    return index;
  }

  /// `input: P | local | none;`, `output: …`, `output_size: …` of each top-level skeleton.
  void readSkeletonEnds() {
    for (Index i = 0; i < s_.skeletons.size(); ++i) {
      const elab::Skeleton& k = *skeletonTexts_[i];
      Skeleton& skeleton = s_.skeletons[i];
      PropertyReader props(c_.diagnostics, k.properties, "skeleton '" + k.name.text + "'",
                           {"input", "output", "output_size", "work", "rate", "size", "split"});
      skeleton.input = endpoint(props, "input");
      skeleton.output = endpoint(props, "output");
      skeleton.outputSize = props.distribution("output_size", 1.0, /*allowZero=*/true);
    }
  }

  Endpoint endpoint(PropertyReader& props, const std::string& key) {
    const elab::Property* p = props.find(key);
    if (!p) return {};
    const auto* word = std::get_if<elab::Word>(&p->value);
    const std::string usage = "'" + key +
                              "' is a processor, 'local' (the processor of the "
                              "task that " +
                              (key == "input" ? "receives" : "sends") +
                              " the item) or 'none' (no transfer)";
    if (!word) {
      error(p->at, usage);
      return {};
    }
    if (word->text == "none") return {};
    if (word->text == "local") return {Endpoint::Kind::Local, 0};
    auto sym = resolve({word->text, p->at}, {Kind::Processor}, usage);
    if (!sym) return {};
    return {Endpoint::Kind::Processor, sym->index};
  }

  Processor readProcessor(const elab::Processor& p) {
    Processor proc;
    proc.name = p.name.text;
    proc.offset = p.at.offset;
    const std::string element = "processor '" + proc.name + "'";
    auto props = reader(p.properties, element, {"policy", "speed", "servers", "local_bandwidth"});
    proc.policyGiven = props.find("policy") != nullptr;
    proc.localBandwidth = props.number("local_bandwidth", HUGE_VAL);
    const std::string policy = props.choice("policy", "fcfs", {"fcfs", "ps", "static"});
    proc.policy = policy == "ps"       ? Policy::ProcessorSharing
                  : policy == "static" ? Policy::Static
                                       : Policy::Fcfs;
    proc.speed = props.number("speed", 1.0);
    proc.servers = props.count("servers", 1);
    if (proc.policy == Policy::Static)
      if (const elab::Property* servers = props.find("servers"))
        props.error(*servers, "'servers' does not apply to " + element +
                                  ": a static processor gives every mapped actor its own "
                                  "share of the speed; use fcfs or ps for servers");
    return proc;
  }

  Link readLink(const elab::Link& l) {
    Link link;
    link.name = l.name.text;
    link.offset = l.at.offset;
    auto props = reader(l.properties, "link '" + link.name + "'",
                        {"kind", "bandwidth", "latency", "channels"});
    const std::string kind = props.choice("kind", "circuit", {"circuit", "store_forward", "bus"});
    link.kind = kind == "bus"             ? LinkKind::Bus
                : kind == "store_forward" ? LinkKind::StoreForward
                                          : LinkKind::Circuit;
    link.bandwidth = props.number("bandwidth", 1.0);
    link.latency = props.number("latency", 0.0, /*allowZero=*/true);
    link.channels = props.count("channels", 1);
    return link;
  }

  DataNode readDataNode(const elab::DataNode& d) {
    DataNode data;
    data.name = d.name.text;
    data.offset = d.at.offset;
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
        error(l->at, "link '" + link.name + "' connects " + std::to_string(l->ends.size()) +
                         " processor; a link connects two (a bus two "
                         "or more)");
        continue;
      }
      if (l->ends.size() > 2 && link.kind != LinkKind::Bus) {
        error(l->at, "link '" + link.name + "' connects " + std::to_string(l->ends.size()) +
                         " processors: a link joining more than two is a "
                         "bus; add 'kind: bus;'");
        continue;
      }
      for (std::size_t e = 0; e < l->ends.size(); ++e) {
        auto sym = resolve(l->ends[e], {Kind::Processor}, "a link connects processors");
        if (!sym) continue;
        if (link.touches(sym->index)) {
          error(l->ends[e].at,
                "link '" + link.name + "' " +
                    (l->ends.size() == 2 ? "connects processor '" + l->ends[e].text + "' to itself"
                                         : "names processor '" + l->ends[e].text + "' twice"));
          continue;
        }
        link.ends.push_back(sym->index);
      }
    }
  }

  void declareArcs() {
    for (const elab::Item* item : items_) {
      const auto* arc = std::get_if<elab::Arc>(item);
      if (!arc) continue;
      const std::string role = "arcs connect actors and data nodes";
      auto from = resolve(arc->from, {Kind::Actor, Kind::DataNode}, role);
      auto to = resolve(arc->to, {Kind::Actor, Kind::DataNode}, role);
      if (!from || !to) continue;
      const std::string text = "arc '" + arc->from.text + " -> " + arc->to.text + "'";
      if (from->kind == to->kind) {
        error(arc->at, text + " connects two " + kindName(from->kind) +
                           "s; an arc goes from an actor to a data "
                           "node (a write) or from a data node to an "
                           "actor (a read)");
        continue;
      }
      Message m;
      m.name = arc->from.text + "->" + arc->to.text;
      m.offset = arc->at.offset;
      m.isWrite = from->kind == Kind::Actor;
      m.actor = m.isWrite ? from->index : to->index;
      m.data = m.isWrite ? to->index : from->index;
      auto props = reader(arc->properties, text, {"size"});
      m.size = props.distribution("size", 0.0, /*allowZero=*/true);
      const Index id = Index(s_.messages.size());
      if (!messageByName_.emplace(m.name, id).second) {
        error(arc->at, text + " is declared twice");
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
    for (const auto& [task, processor] : c_.placements) {
      auto t = symbols_.find(task);
      auto p = symbols_.find(processor);
      if (t == symbols_.end() || t->second.kind != Kind::Task || p == symbols_.end() ||
          p->second.kind != Kind::Processor) {
        c_.diagnostics.error(0, "cannot place '" + task + "' on '" + processor +
                                    "': the description has no such task or processor");
        continue;
      }
      std::optional<Index>& slot = s_.tasks[t->second.index].processor;
      if (slot) {
        c_.diagnostics.error(
            0, "task '" + task + "' is already placed on '" + s_.processors[*slot].name + "'");
        continue;
      }
      slot = p->second.index;
      s_.processors[p->second.index].tasks.push_back(t->second.index);
    }
    for (const elab::Item* item : items_) {
      if (const auto* p = std::get_if<elab::Placement>(item)) {
        auto proc = resolve(p->processor, {Kind::Processor}, "elements are placed on processors");
        for (const elab::Name& e : p->elements) {
          auto sym = resolve(e, {Kind::Actor, Kind::DataNode, Kind::Task},
                             "only actors, data nodes and tasks are placed");
          if (!sym || !proc) continue;
          std::optional<Index>& slot = sym->kind == Kind::Actor ? s_.actors[sym->index].processor
                                       : sym->kind == Kind::Task
                                           ? s_.tasks[sym->index].processor
                                           : s_.dataNodes[sym->index].processor;
          if (slot) {
            error(e.at,
                  "'" + e.text + "' is already placed on '" + s_.processors[*slot].name + "'");
            continue;
          }
          slot = proc->index;
          if (sym->kind == Kind::Actor) s_.processors[proc->index].actors.push_back(sym->index);
          if (sym->kind == Kind::Task) s_.processors[proc->index].tasks.push_back(sym->index);
        }
      } else if (const auto* r = std::get_if<elab::Route>(item)) {
        const std::string arc = "'" + r->from.text + " -> " + r->to.text + "'";
        auto it = messageByName_.find(r->from.text + "->" + r->to.text);
        if (it == messageByName_.end()) {
          error(r->at, "route for " + arc + ", but the application has no such arc");
          continue;
        }
        Message& m = s_.messages[it->second];
        if (m.viaOffset) {
          error(r->at, "a route for " + arc + " is already given");
          continue;
        }
        m.viaOffset = r->at.offset;
        for (const elab::Name& l : r->links)
          if (auto sym = resolve(l, {Kind::Link}, "a route is a list of links"))
            m.via.push_back(sym->index);
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
                                           "add an arc 'A -> " +
                                           d.name + "'");
      else if (d.readers.empty())
        c_.diagnostics.warning(d.offset, "data node '" + d.name + "' is never read");
    }
  }

  /// Tasks are unmapped only when an explorer will place them; a processor hosting tasks
  /// shares itself statically ([Benoit05] §3), by default or as written.
  void checkTaskHosts() {
    for (const Task& t : s_.tasks)
      if (!t.processor && !c_.probing)
        c_.diagnostics.error(t.offset, "task '" + t.name + "' is not mapped to a processor; add '" +
                                           t.name +
                                           " on P;' to the mapping, or let 'mmt explore' try "
                                           "every placement");
    for (Processor& p : s_.processors) {
      if (p.tasks.empty()) continue;
      if (!p.policyGiven) {
        p.policy = Policy::Static;
        continue;
      }
      if (p.policy != Policy::Static)
        c_.diagnostics.error(p.offset, "processor '" + p.name + "' runs task '" +
                                           s_.tasks[p.tasks.front()].name + "' but has policy " +
                                           toString(p.policy) +
                                           "; skeleton tasks share a processor statically "
                                           "(Benoit et al. 2005): write 'policy: static;' or "
                                           "leave the policy out");
    }
  }

  void readSystemProperties() {
    for (const elab::Property& p : e_.properties) {
      if (p.key != "workload") {
        error(p.at, "unknown system property '" + p.key + "'" + suggestion(p.key, {"workload"}) +
                        " (known: workload)");
        continue;
      }
      if (workloadGiven_) {
        error(p.at, "the workload is given twice");
        continue;
      }
      workloadGiven_ = true;
      readWorkload(p);
    }
  }

  void readWorkload(const elab::Property& p) {
    Workload& w = s_.workload;
    w.offset = p.at.offset;
    const auto* call = std::get_if<elab::Call>(&p.value);
    const auto* word = std::get_if<elab::Word>(&p.value);
    const std::string usage =
        "the workload is closed(k), open(rate, limit), stream or batch(n, k), e.g. "
        "'workload: closed(1);'";
    const char* batchUsage =
        "batch(n, k) takes a whole number n >= 1 of iterations in all and, optionally, a "
        "whole number 1 <= k <= n of iterations in flight at once (default n), e.g. "
        "'workload: batch(64);'";
    if (word && word->text == "stream") {
      w.kind = Workload::Kind::Stream;
      return;
    }
    if (word && word->text == "batch") {
      error(p.at, batchUsage);
      return;
    }
    if (!call) {
      error(p.at, usage);
      return;
    }
    const std::string& f = call->function;
    const std::vector<double>& args = call->arguments;
    auto whole = [](double x) { return x >= 1 && x == std::floor(x) && x <= 1e6; };
    if (f == "closed") {
      const double k = args.empty() ? 1.0 : args[0];
      if (args.size() > 1 || !whole(k))
        error(p.at, "closed(k) takes one whole number k >= 1, the iterations in flight");
      else
        w.population = static_cast<std::uint32_t>(k);
    } else if (f == "open") {
      if (args.size() != 2 || !std::isfinite(args[0]) || !(args[0] > 0) || !whole(args[1])) {
        error(p.at,
              "open(rate, limit) takes an arrival rate > 0 (iterations per "
              "time unit) and a whole number limit >= 1 of iterations admitted "
              "at once");
        return;
      }
      w.kind = Workload::Kind::Open;
      w.arrivalRate = args[0];
      w.limit = static_cast<std::uint32_t>(args[1]);
    } else if (f == "batch") {
      const double n = args.empty() ? 0.0 : args[0];
      const double k = args.size() > 1 ? args[1] : n;
      if (args.empty() || args.size() > 2 || !whole(n) || !whole(k) || k > n) {
        error(p.at, batchUsage);
        return;
      }
      w.kind = Workload::Kind::Batch;
      w.total = static_cast<std::uint32_t>(n);
      w.population = static_cast<std::uint32_t>(k);
    } else if (f == "stream") {
      error(p.at, "stream takes no arguments: 'workload: stream;'");
    } else {
      error(p.at, usage);
    }
  }

  void findSourcesAndSinks() {
    for (Index a = 0; a < s_.actors.size(); ++a) {
      if (s_.actors[a].reads.empty()) s_.sources.push_back(a);
      if (s_.actors[a].writes.empty()) s_.sinks.push_back(a);
    }
    const std::size_t at = e_.name.at.offset;
    if (s_.processors.empty())
      c_.diagnostics.error(at, "system '" + s_.name + "' has no processors");
    if (s_.actors.empty()) {
      if (s_.skeletons.empty())
        c_.diagnostics.error(at, "system '" + s_.name + "' has no actors and no skeletons");
      return;
    }
    // Without source actors every actor reads a data node, so following the arcs backwards
    // ends in a data node without writer or in a cycle: checkCycles reports the latter
    // unless initial items start it, and then the application runs on those items.
    if (s_.sources.empty() && s_.workload.kind == Workload::Kind::Batch)
      c_.diagnostics.error(s_.workload.offset,
                           "batch(n, k) counts the iterations its source actors start, and "
                           "this application has none: it runs on the initial items of its "
                           "cycles for ever");
    else if (s_.sources.empty() && workloadGiven_)
      c_.diagnostics.warning(s_.workload.offset,
                             "the application has no source actor: it runs on the initial "
                             "items of its cycles, and the workload is ignored");
    if (!s_.sources.empty() && s_.sinks.empty())
      c_.diagnostics.error(at,
                           "the application has no sink actor (one without write arcs), "
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
  const elab::System& e_;
  std::vector<const elab::Item*> items_;
  std::map<std::string, Symbol> symbols_;
  std::vector<std::string> allNames_;
  std::vector<std::pair<const elab::Link*, Index>> declaredLinks_;
  std::map<std::string, Index> messageByName_;
  std::vector<const elab::Skeleton*> skeletonTexts_;
  bool workloadGiven_ = false;
};

class CheckNames final : public Pass {
 public:
  std::string_view name() const override { return "check-names"; }
  void apply(Compilation& c) const override { Checker(c).run(); }
  void dump(const Compilation& c, std::ostream& out) const override {
    const System& s = c.system;
    out << s.processors.size() << " processors, " << s.links.size() << " links, " << s.actors.size()
        << " actors, " << s.dataNodes.size() << " data nodes, " << s.messages.size()
        << " messages, " << s.skeletons.size() << " skeletons of " << s.tasks.size() << " tasks\n";
  }
};

}  // namespace

std::unique_ptr<Pass> checkNames() { return std::make_unique<CheckNames>(); }

}  // namespace mmt::compiler::passes
