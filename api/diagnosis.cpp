#include "api/diagnosis.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace mmt::api {

using Kind = compiler::BoundElement::Kind;
using Remedy = Suggestion::Remedy;

const char* toString(Remedy remedy) {
  switch (remedy) {
    case Remedy::MoreWorkers:
      return "more_workers";
    case Remedy::SeparateProcessor:
      return "separate_processor";
    case Remedy::FasterProcessor:
      return "faster_processor";
    case Remedy::FasterLink:
      return "faster_link";
  }
  return "";
}

const char* toString(Kind kind) {
  switch (kind) {
    case Kind::Task:
      return "task";
    case Kind::Farm:
      return "farm";
    case Kind::Deal:
      return "deal";
    case Kind::Map:
      return "map";
    case Kind::Move:
      return "move";
  }
  return "";
}

namespace {

std::string number(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

/// "Emit", "Emit and Collect", "A, B and C".
std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

BottleneckElement describe(const compiler::System& s, const compiler::BoundElement& e) {
  BottleneckElement out;
  out.kind = e.kind;
  out.name = e.name;
  out.serviceTime = e.serviceTime;
  out.transfers = e.transfers;
  const compiler::SkeletonNode& node = s.skeletonNodes[e.node];
  if (e.kind == Kind::Farm || e.kind == Kind::Deal || e.kind == Kind::Map)
    out.replicas = node.members.size();
  if (e.kind == Kind::Task) {
    const compiler::Task& task = s.tasks[node.task];
    const compiler::Processor& p = s.processors[*task.processor];
    out.processor = p.name;
    out.speed = p.speed;
    out.work = task.work.mean();
    for (compiler::Index t : p.tasks)
      if (s.tasks[t].name != task.name) out.sharedWith.push_back(s.tasks[t].name);
    for (compiler::Index a : p.actors) out.sharedWith.push_back(s.actors[a].name);
  }
  return out;
}

/// GridCOMP's rules for one bottleneck element; `target` the throughput wanted when the
/// bound is what stands in its way.
std::vector<Suggestion> remedies(const BottleneckElement& e, std::optional<double> target,
                                 std::optional<double> boundWithout, double ownBound) {
  std::vector<Suggestion> out;
  const double s = e.serviceTime;
  // The bound the rest of the skeleton allows once this element is relieved.
  const std::string beyond =
      target && boundWithout && *boundWithout < *target
          ? "; beyond that the other stages limit the bound to " + number(*boundWithout)
          : "";
  switch (e.kind) {
    case Kind::Farm:
    case Kind::Deal: {
      Suggestion more{Remedy::MoreWorkers, e.name, std::nullopt, ""};
      // n replicas give 1 / s; a replica's own rate is 1 / (n s) (the mean for a farm,
      // the slowest for a deal, which hands each replica every n-th item).
      const double n = double(e.replicas);
      if (target) {
        more.needed = std::ceil(*target * n * s * (1 - 1e-12));
        more.text = "more workers: " + e.name + " needs at least " + number(*more.needed) +
                    " replicas for a bound of " + number(*target) + " (it has " + number(n) + ")" +
                    beyond;
      } else {
        more.text = "more workers in " + e.name + " (it has " + number(n) + ")";
      }
      out.push_back(more);
      Suggestion faster{Remedy::FasterProcessor, e.name, std::nullopt, ""};
      if (target) {
        faster.needed = *target * s;
        faster.text = "or processors " + number(*faster.needed) + " times as fast for the " +
                      number(n) + " workers of " + e.name;
      } else {
        faster.text = "or faster processors for the workers of " + e.name;
      }
      out.push_back(faster);
      break;
    }
    case Kind::Map: {
      // Its time is the slowest partition's (with the scatter and gather): a number of
      // workers or a speed-up that meets the target depends on how the work divides.
      out.push_back({Remedy::MoreWorkers, e.name, std::nullopt,
                     "more workers in " + e.name + ", for smaller partitions (it has " +
                         number(double(e.replicas)) + ")"});
      out.push_back({Remedy::FasterProcessor, e.name, std::nullopt,
                     "or faster processors for the slowest workers of " + e.name});
      break;
    }
    case Kind::Task: {
      if (!e.sharedWith.empty()) {
        Suggestion own{Remedy::SeparateProcessor, e.name, ownBound, ""};
        own.text = "give " + e.name + " a processor of its own (it shares " + e.processor +
                   " with " + listed(e.sharedWith) + "): the bound rises to at least " +
                   number(*own.needed);
        out.push_back(own);
      }
      Suggestion faster{Remedy::FasterProcessor, e.name, std::nullopt, ""};
      if (target) {
        faster.needed = *target * s;
        faster.text = std::string(out.empty() ? "" : "or ") + "run " + e.name + " on a processor " +
                      number(*faster.needed) + " times as fast (speed " +
                      number(e.speed * *faster.needed) + " instead of " + number(e.speed) + ")" +
                      beyond;
      } else {
        faster.text =
            std::string(out.empty() ? "" : "or ") + "run " + e.name + " on a faster processor";
      }
      out.push_back(faster);
      break;
    }
    case Kind::Move: {
      Suggestion link{Remedy::FasterLink, e.name, std::nullopt, ""};
      const std::string what = e.transfers > 1
                                   ? "the move " + e.name + " (and its " +
                                         number(double(e.transfers - 1)) + " other transfers)"
                                   : "the move " + e.name;
      if (target) {
        link.needed = *target * s;
        link.text = "a link " + number(*link.needed) + " times as fast for " + what +
                    ", or both ends on one processor" + beyond;
      } else {
        link.text = "a faster link for " + what + ", or both ends on one processor";
      }
      out.push_back(link);
      break;
    }
  }
  return out;
}

/// The bound once task element `e` runs alone on a processor like its own: it takes work /
/// speed, and each other task on its old processor shares it with one task fewer. Farms
/// and deals keep their times, so this is a lower bound on the new bound.
double boundWithOwnProcessor(const compiler::System& s, const compiler::Bottleneck& b,
                             const compiler::BoundElement& e) {
  const compiler::Task& task = s.tasks[s.skeletonNodes[e.node].task];
  const compiler::Processor& p = s.processors[*task.processor];
  double worst = task.work.mean() / p.speed;
  for (const auto* list : {&b.elements, &b.others})
    for (const compiler::BoundElement& x : *list) {
      if (x.kind == Kind::Task && x.node == e.node) continue;
      double t = x.serviceTime;
      if (x.kind == Kind::Task && s.tasks[s.skeletonNodes[x.node].task].processor == task.processor)
        t *= double(p.sharers() - 1) / double(p.sharers());
      worst = std::max(worst, t);
    }
  return 1 / worst;
}

}  // namespace

std::optional<Diagnosis> diagnose(const Model& model, double value, const std::string& parameter,
                                  std::optional<double> target, std::optional<double> metric,
                                  bool impossible) {
  if (!model.compiled) return std::nullopt;
  const compiler::System& system = model.compiled->system;
  const compiler::Routing& routing = model.compiled->routing;
  const std::optional<compiler::Bottleneck> b = compiler::bottleneck(system, routing);
  const std::optional<double> bound = compiler::throughputBound(system, routing);
  if (!b || !bound) return std::nullopt;
  Diagnosis d;
  d.value = value;
  d.bound = *bound;
  d.serviceTime = b->serviceTime;
  d.impossible = impossible;
  double next = 0;
  for (const compiler::BoundElement& e : b->others) next = std::max(next, e.serviceTime);
  if (next > 0) d.boundWithout = 1 / next;
  std::vector<std::string> names;
  for (const compiler::BoundElement& e : b->elements) {
    d.bottleneck.push_back(describe(system, e));
    names.push_back(e.name);
  }
  // Numbers of what is needed only when the bound is what stands in the way, and only for
  // one skeleton (the application's bound is the mean over several).
  const bool boundShort = target && d.bound < *target;
  std::optional<double> needed;
  if (boundShort && system.skeletons.size() == 1) needed = *target;
  const std::string at = parameter + " = " + number(value);
  const std::string who = listed(names) + " (" + number(d.serviceTime) + " per item)";
  if (impossible)
    d.reason = "the bound-based estimate, an upper bound on the throughput, is below " +
               number(*target) + " at every value of " + parameter + " (at most " +
               number(d.bound) + ", at " + at + "); it is 1 / the service time of " + who;
  else if (boundShort)
    d.reason = "at " + at + " the bound-based estimate is " + number(d.bound) + " < " +
               number(*target) + ": 1 / the service time of " + who;
  else if (metric)
    d.reason = "at " + at + " the bound-based estimate " + number(d.bound) +
               " would allow it, but blocking and variable times hold the value at " +
               number(*metric) + "; the slowest element is " + who;
  else
    d.reason = "the slowest element at " + at + " is " + who;
  for (std::size_t i = 0; i < d.bottleneck.size(); ++i) {
    const double own =
        b->elements[i].kind == Kind::Task ? boundWithOwnProcessor(system, *b, b->elements[i]) : 0;
    for (Suggestion& s : remedies(d.bottleneck[i], needed, d.boundWithout, own))
      d.suggestions.push_back(std::move(s));
  }
  // GridCOMP adds workers before it moves anything to faster resources.
  std::stable_sort(d.suggestions.begin(), d.suggestions.end(),
                   [](const Suggestion& a, const Suggestion& b) {
                     return a.remedy == Remedy::MoreWorkers && b.remedy != Remedy::MoreWorkers;
                   });
  return d;
}

nlohmann::ordered_json Diagnosis::json() const {
  nlohmann::ordered_json elements = nlohmann::ordered_json::array();
  for (const BottleneckElement& e : bottleneck) {
    nlohmann::ordered_json j = {
        {"element", e.name}, {"kind", toString(e.kind)}, {"service_time", e.serviceTime}};
    if (e.kind == Kind::Task) {
      j["processor"] = e.processor;
      j["speed"] = e.speed;
      j["work"] = e.work;
      j["shared_with"] = e.sharedWith;
    }
    if (e.kind == Kind::Farm || e.kind == Kind::Deal || e.kind == Kind::Map)
      j["replicas"] = e.replicas;
    if (e.kind == Kind::Move) j["transfers"] = e.transfers;
    elements.push_back(j);
  }
  nlohmann::ordered_json suggested = nlohmann::ordered_json::array();
  for (const Suggestion& s : suggestions) {
    nlohmann::ordered_json j = {{"change", toString(s.remedy)}, {"element", s.element}};
    if (s.needed) j["needed"] = *s.needed;
    j["text"] = s.text;
    suggested.push_back(j);
  }
  nlohmann::ordered_json out = {
      {"value", value}, {"bound", bound}, {"service_time", serviceTime}, {"bottleneck", elements}};
  out["bound_without_bottleneck"] =
      boundWithout ? nlohmann::ordered_json(*boundWithout) : nlohmann::ordered_json(nullptr);
  out["impossible"] = impossible;
  out["reason"] = reason;
  out["suggestions"] = suggested;
  return out;
}

}  // namespace mmt::api
