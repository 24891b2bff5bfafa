#include "coloured/unfold.hpp"

#include <algorithm>
#include <boost/unordered/unordered_flat_set.hpp>
#include <map>
#include <set>

namespace mmt::coloured {
namespace {

using Op = Term::Op;
/// A multiset as (colour, count) terms in the order they are added; combine() sorts it by
/// colour and sums each colour's counts. (An inscription holds a few terms; a map per
/// binding cost most of the unfolding's time.)
using Multiset = std::vector<std::pair<Colour, std::int64_t>>;
constexpr Colour kUnbound = ~Colour{0};
constexpr std::int64_t kMostTokens = std::int64_t{1} << 62;

std::string withCommas(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (std::size_t i = s.size(); i > 3; i -= 3) s.insert(i - 3, ",");
  return s;
}

/// The terms of a binding: colours, multisets and conditions under `binding` (by variable).
class Evaluator {
 public:
  Evaluator(const Net& net, const std::vector<Colour>& binding) : net_(net), binding_(binding) {}

  Colour colour(const Term& t) const {
    switch (t.op) {
      case Op::Variable:
        return binding_[t.value];
      case Op::Constant:
        return t.value;
      case Op::Successor:
      case Op::Predecessor: {
        const std::uint64_t n = net_.sort(t.sort).size;
        const Colour c = colour(t.operands[0]);
        return t.op == Op::Successor ? (c + 1) % n : (c + n - 1) % n;
      }
      case Op::Tuple: {
        std::vector<Colour> parts;
        parts.reserve(t.operands.size());
        for (const Term& o : t.operands) parts.push_back(colour(o));
        return net_.tuple(t.sort, parts);
      }
      case Op::ElementOf:
        return net_.sort(t.sort).elementOf.at(colour(t.operands[0]));
      default:
        throw Error(t.offset, "not a colour term");
    }
  }

  /// Adds `factor` times the multiset `t` to `out`. Throws Error where a count passes 2^62.
  void multiset(const Term& t, std::int64_t factor, Multiset& out) const {
    auto add = [&](Colour c) { out.emplace_back(c, factor); };
    if (t.isColour()) {
      add(colour(t));
      return;
    }
    switch (t.op) {
      case Op::All:
        for (Colour c = 0; c < net_.sort(t.sort).size; ++c) add(c);
        return;
      case Op::NumberOf: {
        std::int64_t times = 0;
        if (t.value > static_cast<std::uint64_t>(kMostTokens) ||
            __builtin_mul_overflow(factor, static_cast<std::int64_t>(t.value), &times) ||
            times > kMostTokens || times < -kMostTokens)
          throw Error(t.offset, "a multiset count passes 2^62");
        multiset(t.operands[0], times, out);
        return;
      }
      case Op::Add:
        for (const Term& o : t.operands) multiset(o, factor, out);
        return;
      case Op::Subtract:
        multiset(t.operands[0], factor, out);
        multiset(t.operands[1], -factor, out);
        return;
      case Op::Product: {
        // Each component's multiset, then every tuple of their colours.
        std::vector<Multiset> parts(t.operands.size());
        for (std::size_t i = 0; i < parts.size(); ++i) {
          multiset(t.operands[i], 1, parts[i]);
          combine(parts[i], t.operands[i]);
          std::erase_if(parts[i], [](const auto& e) { return e.second == 0; });
          if (parts[i].empty()) return;
        }
        std::vector<std::size_t> at(parts.size(), 0);
        std::vector<Colour> colours(parts.size());
        while (true) {
          std::int64_t count = factor;
          for (std::size_t i = 0; i < parts.size(); ++i) {
            colours[i] = parts[i][at[i]].first;
            if (__builtin_mul_overflow(count, parts[i][at[i]].second, &count) ||
                count > kMostTokens || count < -kMostTokens)
              throw Error(t.offset, "a multiset count passes 2^62");
          }
          out.emplace_back(net_.tuple(t.sort, colours), count);
          std::size_t i = parts.size();
          while (i > 0 && ++at[i - 1] == parts[i - 1].size()) at[--i] = 0;
          if (i == 0) break;
        }
        return;
      }
      case Op::Empty:
        return;
      default:
        throw Error(t.offset, "not a multiset term");
    }
  }

  /// Sorts `m` by colour, one term per colour with the sum of its counts (zeros kept).
  static void combine(Multiset& m, const Term& at) {
    std::sort(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m.size(); ++i) {
      if (kept > 0 && m[kept - 1].first == m[i].first) {
        std::int64_t& k = m[kept - 1].second;
        if (__builtin_add_overflow(k, m[i].second, &k) || k > kMostTokens || k < -kMostTokens)
          throw Error(at.offset, "a multiset count passes 2^62");
      } else {
        m[kept++] = m[i];
      }
    }
    m.resize(kept);
  }

  bool holds(const Term& t) const {
    switch (t.op) {
      case Op::True:
        return true;
      case Op::False:
        return false;
      case Op::Equality:
        return colour(t.operands[0]) == colour(t.operands[1]);
      case Op::Inequality:
        return colour(t.operands[0]) != colour(t.operands[1]);
      case Op::LessThan:
        return colour(t.operands[0]) < colour(t.operands[1]);
      case Op::LessThanOrEqual:
        return colour(t.operands[0]) <= colour(t.operands[1]);
      case Op::GreaterThan:
        return colour(t.operands[0]) > colour(t.operands[1]);
      case Op::GreaterThanOrEqual:
        return colour(t.operands[0]) >= colour(t.operands[1]);
      case Op::And:
        return std::all_of(t.operands.begin(), t.operands.end(),
                           [&](const Term& o) { return holds(o); });
      case Op::Or:
        return std::any_of(t.operands.begin(), t.operands.end(),
                           [&](const Term& o) { return holds(o); });
      case Op::Not:
        return !holds(t.operands[0]);
      case Op::Imply:
        return !holds(t.operands[0]) || holds(t.operands[1]);
      default:
        throw Error(t.offset, "not a condition");
    }
  }

 private:
  const Net& net_;
  const std::vector<Colour>& binding_;
};

/// The guard as a list of conjuncts (nested `and`s flattened).
void conjuncts(const Term& t, std::vector<const Term*>& out) {
  if (t.op == Op::And) {
    for (const Term& o : t.operands) conjuncts(o, out);
  } else if (t.op != Op::True) {
    out.push_back(&t);
  }
}

/// How the variables of one transition are bound: in `order`, each either tried over its
/// sort or computed from an equality conjunct, and at each depth the conjuncts whose last
/// variable it binds.
struct BindingPlan {
  struct Step {
    VariableId variable;
    const Term* computedBy = nullptr;  ///< the side of `v = term` that gives v
    std::vector<const Term*> checks;   ///< conjuncts complete at this step
  };
  std::vector<const Term*> closed;  ///< conjuncts without variables
  std::vector<Step> steps;
};

BindingPlan plan(const Net& net, const std::vector<VariableId>& variables, const Term& guard) {
  std::vector<const Term*> parts;
  conjuncts(guard, parts);
  std::vector<std::set<VariableId>> uses(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) variablesOf(*parts[i], uses[i]);
  BindingPlan result;
  std::set<VariableId> bound;
  std::vector<bool> placed(parts.size(), false);
  auto unboundIn = [&](std::size_t i) {
    std::size_t n = 0;
    for (VariableId v : uses[i]) n += !bound.count(v);
    return n;
  };
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (uses[i].empty()) {
      result.closed.push_back(parts[i]);
      placed[i] = true;
    }
  std::set<VariableId> left(variables.begin(), variables.end());
  while (!left.empty()) {
    BindingPlan::Step step;
    step.variable = *left.begin();
    // A variable an equality computes from bound ones comes first.
    for (std::size_t i = 0; i < parts.size() && !step.computedBy; ++i) {
      const Term& p = *parts[i];
      if (p.op != Op::Equality || placed[i] || unboundIn(i) != 1) continue;
      for (int side = 0; side < 2; ++side) {
        const Term& lhs = p.operands[side];
        if (lhs.op == Op::Variable && left.count(static_cast<VariableId>(lhs.value))) {
          std::set<VariableId> other;
          variablesOf(p.operands[1 - side], other);
          if (!other.count(static_cast<VariableId>(lhs.value))) {
            step.variable = static_cast<VariableId>(lhs.value);
            step.computedBy = &p.operands[1 - side];
            placed[i] = true;  // holds by construction
            break;
          }
        }
      }
    }
    if (!step.computedBy) {
      // Else the variable that completes the most conjuncts, then the smallest sort.
      std::size_t best = 0;
      bool first = true;
      for (VariableId v : left) {
        std::size_t completes = 0;
        for (std::size_t i = 0; i < parts.size(); ++i)
          completes += !placed[i] && uses[i].count(v) && unboundIn(i) == 1;
        const std::uint64_t size = net.sort(net.variables()[v].sort).size;
        const std::uint64_t bestSize = net.sort(net.variables()[step.variable].sort).size;
        if (first || completes > best || (completes == best && size < bestSize)) {
          step.variable = v;
          best = completes;
          first = false;
        }
      }
    }
    bound.insert(step.variable);
    left.erase(step.variable);
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (!placed[i] && unboundIn(i) == 0) {
        step.checks.push_back(parts[i]);
        placed[i] = true;
      }
    result.steps.push_back(std::move(step));
  }
  return result;
}

class Unfolder {
 public:
  Unfolder(const Net& net, const UnfoldLimits& limits) : net_(net), limits_(limits) {}

  Unfolding run() {
    placeBase_.reserve(net_.places().size());
    for (std::uint32_t p = 0; p < net_.places().size(); ++p) addPlaces(p);
    binding_.assign(net_.variables().size(), kUnbound);
    for (std::uint32_t t = 0; t < net_.transitions().size(); ++t) addTransitions(t);
    return std::move(result_);
  }

 private:
  void addPlaces(std::uint32_t p) {
    const Place& place = net_.places()[p];
    const std::uint64_t n = net_.sort(place.sort).size;
    placeBase_.push_back(static_cast<std::uint32_t>(result_.places.size()));
    if (result_.places.size() + n > limits_.places)
      throw Error(place.offset, "unfolding the place '" + place.name + "' (" + withCommas(n) +
                                    " colours) passes " + withCommas(limits_.places) +
                                    " places in the unfolded net");
    Multiset initial;
    if (place.initial) {
      Evaluator(net_, binding_).multiset(*place.initial, 1, initial);
      Evaluator::combine(initial, *place.initial);
    }
    for (const auto& [c, k] : initial)
      if (k < 0)
        throw Error(place.initial->offset, "the initial marking of place '" + place.name +
                                               "' has " + std::to_string(k) + " tokens of colour " +
                                               net_.colourName(place.sort, c) +
                                               ": a multiset subtracts more than it holds");
    const bool dot = net_.sort(place.sort).kind == SortKind::Dot;
    auto next = initial.begin();
    for (Colour c = 0; c < n; ++c) {
      const auto it = next != initial.end() && next->first == c ? next++ : initial.end();
      const std::string colour = net_.colourName(place.sort, c);
      result_.places.push_back(
          {unique(dot || colour.empty() ? place.name : place.name + "_" + colour),
           it == initial.end() ? 0 : static_cast<std::uint64_t>(it->second), p, c});
    }
  }

  void addTransitions(std::uint32_t t) {
    const Transition& transition = net_.transitions()[t];
    std::set<VariableId> vars;
    variablesOf(transition.guard, vars);
    for (const auto* arcs : {&transition.inputs, &transition.outputs, &transition.inhibitors})
      for (const Arc& a : *arcs) variablesOf(a.inscription, vars);
    variables_.assign(vars.begin(), vars.end());
    current_ = t;
    const BindingPlan p = plan(net_, variables_, transition.guard);
    const Evaluator eval(net_, binding_);
    if (!std::all_of(p.closed.begin(), p.closed.end(),
                     [&](const Term* c) { return eval.holds(*c); }))
      return;
    bind(p, 0);
    for (VariableId v : variables_) binding_[v] = kUnbound;
  }

  void bind(const BindingPlan& p, std::size_t depth) {
    if (depth == p.steps.size()) {
      emit();
      return;
    }
    const BindingPlan::Step& step = p.steps[depth];
    const Evaluator eval(net_, binding_);
    auto tryColour = [&](Colour c) {
      if (++result_.tried > limits_.tried) tooMany();
      binding_[step.variable] = c;
      for (const Term* check : step.checks)
        if (!eval.holds(*check)) return;
      bind(p, depth + 1);
    };
    if (step.computedBy) {
      tryColour(eval.colour(*step.computedBy));
    } else {
      const std::uint64_t n = net_.sort(net_.variables()[step.variable].sort).size;
      for (Colour c = 0; c < n; ++c) tryColour(c);
    }
    binding_[step.variable] = kUnbound;
  }

  [[noreturn]] void tooMany() const {
    const Transition& transition = net_.transitions()[current_];
    std::string space;
    long double product = 1;
    for (VariableId v : variables_) {
      const Variable& var = net_.variables()[v];
      const std::uint64_t n = net_.sort(var.sort).size;
      product *= static_cast<long double>(n);
      space += (space.empty() ? "" : ", ") + var.name + " in " + net_.sort(var.sort).name + " (" +
               withCommas(n) + ")";
    }
    const std::string passed = result_.kept > limits_.transitions
                                   ? withCommas(limits_.transitions) + " unfolded transitions"
                                   : withCommas(limits_.tried) + " colour values tried";
    const std::string bindings =
        space.empty()
            ? "which has no variables"
            : "whose variables " + space + " span " +
                  withCommas(static_cast<std::uint64_t>(std::min<long double>(product, 1e19L))) +
                  " bindings";
    throw Error(transition.offset, "unfolding passes " + passed + " at transition '" +
                                       transition.name + "', " + bindings + "; " +
                                       withCommas(result_.kept) +
                                       " bindings of the net's transitions are kept so far. "
                                       "Narrow the sorts, make the guard more selective, or "
                                       "split the transition");
  }

  void emit() {
    const Transition& transition = net_.transitions()[current_];
    const Evaluator eval(net_, binding_);
    Unfolding::Transition u;
    u.coloured = current_;
    u.variables = variables_;
    std::string name = transition.name;
    for (VariableId v : variables_) {
      u.binding.push_back(binding_[v]);
      const std::string c = net_.colourName(net_.variables()[v].sort, binding_[v]);
      if (!c.empty()) name += "_" + c;
    }
    u.inputs = arcs(transition, transition.inputs, eval);
    u.outputs = arcs(transition, transition.outputs, eval);
    u.inhibitors = arcs(transition, transition.inhibitors, eval);
    u.name = unique(name);
    if (++result_.kept > limits_.transitions) tooMany();
    result_.transitions.push_back(std::move(u));
  }

  std::vector<Unfolding::Arc> arcs(const Transition& transition, const std::vector<Arc>& list,
                                   const Evaluator& eval) {
    std::vector<Unfolding::Arc> out;
    for (const Arc& a : list) {
      Multiset& m = scratch_;
      m.clear();
      eval.multiset(a.inscription, 1, m);
      Evaluator::combine(m, a.inscription);
      for (const auto& [c, k] : m) {
        if (k < 0) {
          std::string b;
          for (VariableId v : variables_)
            b += (b.empty() ? "" : ", ") + net_.variables()[v].name + " = " +
                 net_.colourName(net_.variables()[v].sort, binding_[v]);
          throw Error(a.inscription.offset,
                      "the inscription of the arc between place '" + net_.places()[a.place].name +
                          "' and transition '" + transition.name + "' has " + std::to_string(k) +
                          " tokens of colour " + net_.colourName(net_.places()[a.place].sort, c) +
                          " when " + b + ": a multiset subtracts more than it holds");
        }
        if (k > 0)
          out.push_back(
              {placeBase_[a.place] + static_cast<std::uint32_t>(c), static_cast<std::uint64_t>(k)});
      }
    }
    // One arc per unfolded place, in place order (two coloured arcs may meet on one).
    std::sort(out.begin(), out.end(),
              [](const Unfolding::Arc& x, const Unfolding::Arc& y) { return x.place < y.place; });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (kept > 0 && out[kept - 1].place == out[i].place)
        out[kept - 1].weight += out[i].weight;  // each below 2^62
      else
        out[kept++] = out[i];
    }
    out.resize(kept);
    return out;
  }

  /// `name`, or with a suffix where an earlier element has it ("A_1" with colour 2 and "A"
  /// with colour 1_2 are both "A_1_2").
  std::string unique(std::string name) {
    if (names_.insert(name).second) return name;
    for (std::uint64_t k = 2;; ++k)
      if (std::string n = name + "__" + std::to_string(k); names_.insert(n).second) return n;
  }

  const Net& net_;
  const UnfoldLimits& limits_;
  Unfolding result_;
  std::vector<std::uint32_t> placeBase_;
  std::vector<Colour> binding_;
  std::vector<VariableId> variables_;
  Multiset scratch_;  // an inscription's multiset, reused across bindings
  std::uint32_t current_ = 0;
  boost::unordered_flat_set<std::string> names_;
};

}  // namespace

Unfolding unfold(const Net& net, const UnfoldLimits& limits) { return Unfolder(net, limits).run(); }

}  // namespace mmt::coloured
