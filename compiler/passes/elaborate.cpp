// elaborate: evaluates the parameters (with -D overrides), expands loops and conditions,
// makes indexed names concrete and evaluates every value, so that check-names sees one
// flat description (docs/language.md, "Parameters and loops").
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <set>

#include "compiler/passes/passes.hpp"
#include "compiler/property_reader.hpp"
#include "grammar/expressions.hpp"

namespace mmt::compiler::passes {
namespace ast = grammar::ast;
namespace x3 = boost::spirit::x3;
using grammar::join;
using grammar::suggestion;

namespace {

/// Loop bodies expanded at most, and names one range may stand for, against descriptions
/// that would never finish (a 6 x 11 mesh is 66; 100,000 elements are far beyond any state
/// space, and elaborate in a tenth of a second).
constexpr std::size_t kMaxIterations = 100'000;

/// Inside the worker of a map with `split: n`, the name of the replica's share of the item.
constexpr const char* kPart = "part";
/// Inside a map's worker, the name of the replica's position, 1 to p.
constexpr const char* kReplica = "replica";

class Elaborator final : public grammar::ExpressionLowering {
 public:
  explicit Elaborator(Compilation& c)
      : ExpressionLowering(c.parsed.positions, c.diagnostics), c_(c), out_(c.elaborated) {}

  void run() {
    const ast::System& system = c_.parsed.system;
    out_.name = {system.name.name, origin(system.name)};
    declareParameters();
    for (const ast::SystemItem& item : system.items) {
      if (const auto* section = boost::get<ast::Section>(&item)) {
        if (!c_.countingReplicas || section->keyword == "application") items(section->items);
      } else if (const auto* p = boost::get<ast::Property>(&item)) {
        if (!c_.countingReplicas) out_.properties.push_back(property(*p));
      }
    }
  }

 private:
  elab::Origin origin(const x3::position_tagged& node) const {
    return {offsetOf(node), iteration_};
  }

  /// Reports with the iteration that made the node, if any.
  void report(const x3::position_tagged& node, const std::string& message) {
    error(node, message + (iteration_.empty() ? "" : " (in iteration " + iteration_ + ")"));
  }

  bool name(const ast::Identifier& id, Context, gspn::Expression& out) override {
    if (auto v = lookup(id.name)) {
      if (reading_ && parameters_.count(id.name) &&
          std::none_of(indices_.begin(), indices_.end(),
                       [&](const auto& index) { return index.first == id.name; }))
        reading_->insert(id.name);
      out.push({gspn::Expression::Op::Constant, 0, *v});
      return true;
    }
    std::vector<std::string> known;
    for (const auto& [n, v] : parameters_) known.push_back(n);
    for (const auto& [n, v] : indices_) known.push_back(n);
    report(id, "unknown parameter '" + id.name + "'" + suggestion(id.name, known) +
                   (known.empty() ? " (declare it with 'param " + id.name + " = ...;')"
                                  : " (known: " + join(known) + ")"));
    return false;
  }

  std::optional<double> lookup(const std::string& name) const {
    for (auto it = indices_.rbegin(); it != indices_.rend(); ++it)
      if (it->first == name) return it->second;
    if (auto p = parameters_.find(name); p != parameters_.end()) return p->second;
    return std::nullopt;
  }

  void declareParameters() {
    std::set<std::string> declared;
    for (const ast::SystemItem& item : c_.parsed.system.items) {
      const auto* p = boost::get<ast::Param>(&item);
      if (!p) continue;
      if (!declared.insert(p->name.name).second) {
        error(p->name, "parameter '" + p->name.name + "' is declared twice");
        continue;
      }
      auto value = constant(p->value, "parameter '" + p->name.name + "'");
      if (auto o = c_.overrides.find(p->name.name); o != c_.overrides.end()) value = o->second;
      if (!value) continue;
      parameters_[p->name.name] = *value;
      out_.parameters.emplace_back(p->name.name, *value);
    }
    for (const auto& [name, value] : c_.overrides)
      if (!declared.count(name)) {
        const std::vector<std::string> names(declared.begin(), declared.end());
        c_.diagnostics.error(
            0, "-D " + name + ": the description declares no parameter '" + name + "'" +
                   suggestion(name, names) +
                   (names.empty() ? "" : " (its parameters: " + join(names) + ")"));
      }
  }

  /// A whole number (an index or a loop bound), or nothing after an error.
  std::optional<long long> whole(const ast::Expr& e, const std::string& what) {
    auto v = constant(e, what);
    if (!v) return std::nullopt;
    if (*v != std::floor(*v) || std::fabs(*v) > 1e15) {
      report(grammar::anchor(e), what + " must be a whole number, not " + formatNumber(*v));
      return std::nullopt;
    }
    return static_cast<long long>(*v);
  }

  /// The concrete names of `n`: one, or one per value of a range subscript (only where
  /// `allowRange`).
  std::vector<elab::Name> names(const ast::Name& n, bool allowRange) {
    std::vector<std::string> texts{n.base.name};
    for (const ast::Subscript& s : n.subscripts) {
      auto from = whole(s.from, "an index");
      if (!from) return {};
      long long to = *from;
      if (s.to) {
        if (!allowRange) {
          report(s, "a range of names cannot stand here: name one element");
          return {};
        }
        auto last = whole(*s.to, "the end of a range");
        if (!last) return {};
        to = *last;
      }
      if (to >= *from && double(to - *from + 1) * double(texts.size()) > double(kMaxIterations)) {
        report(s, "this range names more than " + std::to_string(kMaxIterations) + " elements");
        return {};
      }
      std::vector<std::string> next;
      for (const std::string& t : texts)
        for (long long i = *from; i <= to; ++i) next.push_back(t + "[" + std::to_string(i) + "]");
      texts = std::move(next);
    }
    std::vector<elab::Name> out;
    for (std::string& t : texts) out.push_back({std::move(t), origin(n)});
    return out;
  }

  std::optional<elab::Name> single(const ast::Name& n) {
    auto list = names(n, false);
    if (list.empty()) return std::nullopt;
    return list.front();
  }

  std::vector<elab::Name> list(const std::vector<ast::Name>& ns) {
    std::vector<elab::Name> out;
    for (const ast::Name& n : ns)
      for (elab::Name& x : names(n, true)) out.push_back(std::move(x));
    return out;
  }

  /// A property value: a word that is no parameter, a call of a name that is no
  /// arithmetic function (or of a distribution), a sum with a distribution, or a number.
  elab::Property property(const ast::Property& p) {
    elab::Property out{p.key.name, 0.0, origin(p)};
    const ast::Identifier* word = grammar::asName(p.value);
    const ast::Call* call = grammar::asCall(p.value);
    if (word && !lookup(word->name)) {
      out.value = elab::Word{word->name};
    } else if (call && (!grammar::isArithmeticFunction(call->function.name) ||
                        gspn::Distribution::isName(call->function.name))) {
      elab::Call value{call->function.name, {}};
      for (const ast::Expr& a : call->arguments)
        value.arguments.push_back(
            constant(a, "an argument of '" + call->function.name + "'").value_or(1.0));
      out.value = std::move(value);
    } else if (grammar::callsDistribution(p.value)) {
      if (auto d = distribution(p.value)) out.value = *d;
    } else {
      out.value = constant(p.value, "'" + p.key.name + "'").value_or(1.0);
    }
    return out;
  }

  elab::Properties properties(const ast::Properties& ps) {
    elab::Properties out;
    for (const ast::Property& p : ps) out.push_back(property(p));
    return out;
  }

  void items(const std::vector<ast::Item>& list) {
    for (const ast::Item& item : list)
      boost::apply_visitor([&](const auto& x) { this->item(x); }, item);
  }

  void item(const ast::Processor& p) {
    if (auto n = single(p.name))
      out_.items.push_back(elab::Processor{*n, properties(p.properties), origin(p)});
  }
  void item(const ast::Link& l) {
    if (auto n = single(l.name))
      out_.items.push_back(elab::Link{*n, list(l.ends), properties(l.properties), origin(l)});
  }
  void item(const ast::Actor& a) {
    if (auto n = single(a.name))
      out_.items.push_back(elab::Actor{*n, properties(a.properties), origin(a)});
  }
  void item(const ast::DataNode& d) {
    if (auto n = single(d.name))
      out_.items.push_back(elab::DataNode{*n, properties(d.properties), origin(d)});
  }
  void item(const ast::Arc& a) {
    auto from = single(a.from), to = single(a.to);
    if (from && to)
      out_.items.push_back(elab::Arc{*from, *to, properties(a.properties), origin(a)});
  }
  void item(const ast::Placement& p) {
    if (auto on = single(p.processor))
      out_.items.push_back(elab::Placement{list(p.elements), *on, origin(p)});
  }
  void item(const ast::Route& r) {
    auto from = single(r.from), to = single(r.to);
    if (from && to) out_.items.push_back(elab::Route{*from, *to, list(r.links), origin(r)});
  }
  void item(const x3::forward_ast<ast::Skeleton>& skeleton) {
    if (auto s = this->skeleton(skeleton.get())) out_.items.push_back(std::move(*s));
  }

  /// A skeleton with its members; a farm's or deal's worker once per replica, every name
  /// inside replica k suffixed with `[k]` (outer replicas first: W[outer][inner]).
  std::optional<elab::Skeleton> skeleton(const ast::Skeleton& s) {
    using Kind = elab::Skeleton::Kind;
    elab::Skeleton out;
    out.kind = s.kind == "pipeline" ? Kind::Pipeline
               : s.kind == "farm"   ? Kind::Farm
               : s.kind == "deal"   ? Kind::Deal
               : s.kind == "map"    ? Kind::Map
                                    : Kind::Task;
    out.at = origin(s);
    auto name = single(s.name);
    if (!name) return std::nullopt;
    out.name = *name;
    out.name.text += replicaSuffix_;
    if (out.kind == Kind::Pipeline) {
      const std::size_t errors = c_.diagnostics.errorCount();
      stages(s.members, out);
      if (out.members.empty() && c_.diagnostics.errorCount() == errors)
        report(s, "pipeline '" + out.name.text + "' has no stages; add a 'task' or a skeleton");
      return out;
    }
    std::vector<const ast::Skeleton*> members;
    for (const ast::SkeletonMember& m : s.members) {
      if (const auto* p = boost::get<ast::Property>(&m)) {
        out.properties.push_back(property(*p));
      } else if (const auto* k = boost::get<x3::forward_ast<ast::Skeleton>>(&m)) {
        members.push_back(&k->get());
      } else {
        const x3::position_tagged& at =
            boost::get<x3::forward_ast<ast::SkeletonLoop>>(&m)
                ? static_cast<const x3::position_tagged&>(
                      boost::get<x3::forward_ast<ast::SkeletonLoop>>(m).get())
                : static_cast<const x3::position_tagged&>(
                      boost::get<x3::forward_ast<ast::SkeletonIf>>(m).get());
        report(at, "only a pipeline's stages may come from 'for' or 'if'; a " + s.kind +
                       (out.kind == Kind::Task ? " holds properties" : " replicates one worker"));
      }
    }
    if (out.kind == Kind::Task) {
      if (!members.empty())
        report(*members.front(),
               "a task holds no stages; a 'pipeline', 'farm(n)', 'deal(n)' or "
               "'map(p)' holds tasks");
      return out;
    }
    const std::string what = s.kind + "(n) '" + out.name.text + "'";
    if (members.size() != 1) {
      report(s, what + " has " + std::to_string(members.size()) +
                    " workers; it replicates exactly one (a 'task' or a skeleton)");
      return std::nullopt;
    }
    std::set<std::string> read;
    reading_ = &read;
    auto n = whole(*s.replicas, "the number of replicas");
    reading_ = nullptr;
    if (!n) return std::nullopt;
    if (c_.countingReplicas && *n >= 2 && out.kind != Kind::Deal) {
      // A farm or map to count, not to expand: compiler/symmetry.hpp's factor for it.
      const auto worker = single(members.front()->name);
      if (!worker) return std::nullopt;
      elab::ReplicaCount count{worker->text + replicaSuffix_, *n, {read.begin(), read.end()}, {}};
      for (const std::string& name : count.parameters) count.values.push_back(parameters_.at(name));
      out_.replicaCounts.push_back(std::move(count));
      return out;
    }
    if (*n < 1 || std::size_t(*n) + out_.iterations > kMaxIterations) {
      report(grammar::anchor(*s.replicas), what + " needs between 1 and " +
                                               std::to_string(kMaxIterations) + " replicas, not " +
                                               std::to_string(*n));
      return std::nullopt;
    }
    std::optional<long long> split;
    const bool map = out.kind == Kind::Map;
    if (map && !(split = splitOf(out, *n, what))) return std::nullopt;
    if (map && parameters_.count(kReplica)) {
      report(s, "inside " + what + "'s worker, '" + kReplica +
                    "' is the replica's position; rename the parameter '" + kReplica + "'");
      return std::nullopt;
    }
    const std::string outer = replicaSuffix_;
    for (long long k = 1; k <= *n; ++k) {
      replicaSuffix_ = outer + "[" + std::to_string(k) + "]";
      ++out_.iterations;
      // Inside a split map's worker, `part` is the replica's share of the item: the k-th
      // of p holds floor((n + p - k) / p) elements, so the first n mod p hold ceil(n / p).
      // Inside a map's worker, `replica` is its position k, for sizes given per worker.
      if (map) indices_.emplace_back(kReplica, double(k));
      if (split && *split > 0) indices_.emplace_back(kPart, double((*split + *n - k) / *n));
      const std::size_t errors = c_.diagnostics.errorCount();
      if (auto worker = skeleton(*members.front())) out.members.push_back(std::move(*worker));
      if (split && *split > 0) indices_.pop_back();
      if (map) indices_.pop_back();
      if (c_.diagnostics.errorCount() > errors) break;
    }
    replicaSuffix_ = outer;
    return out;
  }

  /// A map's `split: n` (0 when it has none): the elements of an item, at least one per
  /// replica; nothing after an error.
  std::optional<long long> splitOf(const elab::Skeleton& map, long long replicas,
                                   const std::string& what) {
    for (const elab::Property& p : map.properties) {
      if (p.key != "split") continue;
      const double* n = std::get_if<double>(&p.value);
      if (!n || *n != std::floor(*n) || *n < double(replicas) || *n > 1e15) {
        reportAt(c_.diagnostics, p.at,
                 "'split' of " + what +
                     " must be a whole number of elements, at least one per "
                     "replica (" +
                     std::to_string(replicas) + ")" +
                     (n ? ", not " + formatNumber(*n) : std::string()));
        return std::nullopt;
      }
      if (parameters_.count(kPart)) {
        reportAt(c_.diagnostics, p.at,
                 "inside a map with 'split', '" + std::string(kPart) +
                     "' is the replica's share of the item; rename the parameter '" + kPart + "'");
        return std::nullopt;
      }
      return static_cast<long long>(*n);
    }
    return 0;
  }

  /// A pipeline's braces: its properties, and its stages in order, expanding `for` and
  /// `if` among them.
  void stages(const std::vector<ast::SkeletonMember>& list, elab::Skeleton& out) {
    for (const ast::SkeletonMember& m : list) {
      if (const auto* p = boost::get<ast::Property>(&m)) {
        out.properties.push_back(property(*p));
      } else if (const auto* k = boost::get<x3::forward_ast<ast::Skeleton>>(&m)) {
        if (auto stage = skeleton(k->get())) out.members.push_back(std::move(*stage));
      } else if (const auto* l = boost::get<x3::forward_ast<ast::SkeletonLoop>>(&m)) {
        const ast::SkeletonLoop& loop = l->get();
        repeat(loop, loop.index, loop.from, loop.to, [&] { stages(loop.body, out); });
      } else {
        const ast::SkeletonIf& c = boost::get<x3::forward_ast<ast::SkeletonIf>>(m).get();
        if (auto v = constant(c.condition, "a condition"))
          stages(*v != 0 ? c.then : c.otherwise, out);
      }
    }
  }

  void item(const x3::forward_ast<ast::Loop>& loop) {
    const ast::Loop& l = loop.get();
    repeat(l, l.index, l.from, l.to, [&] { items(l.body); });
  }

  /// Runs `body` once per value of a loop's index (a section's `for` or a pipeline's),
  /// with the index bound and the iteration named for diagnostics; stops at the first
  /// iteration with an error, since every iteration would repeat it.
  template <typename Body>
  void repeat(const x3::position_tagged& loop, const ast::Identifier& id, const ast::Expr& first,
              const ast::Expr& last, Body&& body) {
    const std::string& index = id.name;
    if (lookup(index)) {
      report(id, "'" + index + "' is already " +
                     (parameters_.count(index) ? "a parameter" : "the index of an enclosing loop") +
                     "; choose another name for this loop's index");
      return;
    }
    auto from = whole(first, "the start of a loop"), to = whole(last, "the end of a loop");
    if (!from || !to) return;
    if (tooLarge_) return;  // reported once
    if (*to >= *from && std::size_t(*to - *from) + out_.iterations >= kMaxIterations) {
      report(loop, "this loop would expand the description beyond " +
                       std::to_string(kMaxIterations) + " iterations");
      tooLarge_ = true;
      return;
    }
    const std::string outer = iteration_;
    for (long long i = *from; i <= *to; ++i) {
      indices_.emplace_back(index, double(i));
      iteration_ = (outer.empty() ? "" : outer + ", ") + index + " = " + std::to_string(i);
      ++out_.iterations;
      const std::size_t errors = c_.diagnostics.errorCount();
      body();
      indices_.pop_back();
      if (c_.diagnostics.errorCount() > errors) break;  // the same mistake in every iteration
    }
    iteration_ = outer;
  }

  void item(const x3::forward_ast<ast::Conditional>& conditional) {
    const ast::Conditional& c = conditional.get();
    auto v = constant(c.condition, "a condition");
    if (!v) return;
    items(*v != 0 ? c.then : c.otherwise);
  }

  Compilation& c_;
  elab::System& out_;
  std::map<std::string, double> parameters_;
  std::vector<std::pair<std::string, double>> indices_;  ///< enclosing loops, outermost first
  std::string iteration_;
  std::string replicaSuffix_;  ///< inside replicated workers: `[k]` per enclosing replica
  bool tooLarge_ = false;
  /// While set, the parameters an expression reads (not loop indices) are added to it.
  std::set<std::string>* reading_ = nullptr;
};

class Elaborate final : public Pass {
 public:
  std::string_view name() const override { return "elaborate"; }
  void apply(Compilation& c) const override { Elaborator(c).run(); }
  void dump(const Compilation& c, std::ostream& out) const override {
    const elab::System& s = c.elaborated;
    out << s.items.size() << " items from " << s.iterations << " loop iterations";
    for (std::size_t i = 0; i < s.parameters.size(); ++i)
      out << (i ? ", " : "; parameters ") << s.parameters[i].first << " = "
          << formatNumber(s.parameters[i].second);
    out << '\n';
  }
};

}  // namespace

std::unique_ptr<Pass> elaborate() { return std::make_unique<Elaborate>(); }

}  // namespace mmt::compiler::passes
