#include "coloured/net.hpp"

#include <algorithm>
#include <limits>
#include <set>

namespace mmt::coloured {
namespace {

using Op = Term::Op;

std::string kindName(SortKind k) {
  switch (k) {
    case SortKind::Dot:
      return "the dot sort";
    case SortKind::Enumeration:
      return "an enumeration";
    case SortKind::IntegerRange:
      return "an integer range";
    case SortKind::Product:
      return "a product sort";
    case SortKind::Partition:
      return "a partition";
  }
  return "a sort";
}

}  // namespace

void variablesOf(const Term& t, std::set<VariableId>& out) {
  if (t.op == Term::Op::Variable) out.insert(static_cast<VariableId>(t.value));
  for (const Term& o : t.operands) variablesOf(o, out);
}

SortId Net::addSort(Sort sort) {
  constexpr std::uint64_t kMost = std::uint64_t{1} << 40;  // colours a sort may have
  switch (sort.kind) {
    case SortKind::Dot:
      sort.size = 1;
      break;
    case SortKind::Enumeration:
    case SortKind::Partition:
      sort.size = sort.constants.size();
      break;
    case SortKind::IntegerRange:
      if (sort.last < sort.first)
        throw Error(0, "the integer range " + std::to_string(sort.first) + ".." +
                           std::to_string(sort.last) + " of sort '" + sort.name + "' is empty");
      sort.size = static_cast<std::uint64_t>(sort.last - sort.first) + 1;
      break;
    case SortKind::Product:
      sort.size = 1;
      for (SortId c : sort.components) {
        const std::uint64_t n = sorts_.at(c).size;
        if (n != 0 && sort.size > kMost / n)
          throw Error(0, "the product sort '" + sort.name + "' has more than 2^40 colours");
        sort.size *= n;
      }
      break;
  }
  if (sort.size == 0) throw Error(0, "the sort '" + sort.name + "' has no colour");
  if (sort.size > kMost) throw Error(0, "the sort '" + sort.name + "' has more than 2^40 colours");
  sorts_.push_back(std::move(sort));
  return static_cast<SortId>(sorts_.size() - 1);
}

VariableId Net::addVariable(Variable variable) {
  variables_.push_back(std::move(variable));
  return static_cast<VariableId>(variables_.size() - 1);
}

std::uint32_t Net::addPlace(Place place) {
  if (place.initial) {
    type(*place.initial, Want::Multiset, place.sort);
    std::set<VariableId> vars;
    variablesOf(*place.initial, vars);
    if (!vars.empty())
      throw Error(place.initial->offset, "the initial marking of place '" + place.name +
                                             "' uses the variable '" +
                                             variables_[*vars.begin()].name +
                                             "'; an initial marking holds constants only");
  }
  places_.push_back(std::move(place));
  return static_cast<std::uint32_t>(places_.size() - 1);
}

void Net::addTransition(Transition transition) {
  type(transition.guard, Want::Boolean);
  for (Arc& a : transition.inputs) type(a.inscription, Want::Multiset, places_.at(a.place).sort);
  // A variable on output arcs only is free: it ranges over its sort, each colour its own
  // binding (ISO/IEC 15909-2 binds every variable of a transition; the contest's
  // DatabaseWithMutex relies on it).
  for (Arc& a : transition.outputs) type(a.inscription, Want::Multiset, places_.at(a.place).sort);
  for (Arc& a : transition.inhibitors)
    type(a.inscription, Want::Multiset, places_.at(a.place).sort);
  transitions_.push_back(std::move(transition));
}

SortId Net::type(Term& t, Want want, SortId sort) const {
  auto fail = [&](const std::string& message) -> SortId { throw Error(t.offset, message); };
  auto sortName = [&](SortId s) { return "'" + sorts_.at(s).name + "'"; };
  auto expect = [&](SortId got) {
    if (sort != kAnySort && got != sort)
      fail("a term of sort " + sortName(got) + " where one of sort " + sortName(sort) +
           " is expected");
    return got;
  };
  if (want == Want::Boolean && !t.isBoolean())
    return fail("a colour or multiset term where a condition is expected");
  if (want == Want::Colour && !t.isColour())
    return fail(t.isBoolean() ? "a condition where a colour is expected"
                              : "a multiset where a single colour is expected");
  if (want == Want::Multiset && t.isBoolean())
    return fail("a condition where a multiset is expected");
  switch (t.op) {
    case Op::Variable:
      return expect(variables_.at(t.value).sort);
    case Op::Constant:
      return expect(t.sort);
    case Op::Successor:
    case Op::Predecessor: {
      if (t.operands.size() != 1) return fail("successor and predecessor take one term");
      const SortId s = type(t.operands[0], Want::Colour, sort);
      if (sorts_[s].kind != SortKind::Enumeration || !sorts_[s].cyclic)
        return fail(std::string(t.op == Op::Successor ? "successor" : "predecessor") +
                    " of a colour of sort " + sortName(s) + ", " + kindName(sorts_[s].kind) +
                    "; it is defined on cyclic enumerations only");
      t.sort = s;
      return s;
    }
    case Op::Tuple: {
      if (sort == kAnySort) return fail("a tuple whose product sort the context does not give");
      const Sort& p = sorts_.at(sort);
      if (p.kind != SortKind::Product)
        return fail("a tuple where a colour of sort " + sortName(sort) + " (" + kindName(p.kind) +
                    ") is expected");
      if (t.operands.size() != p.components.size())
        return fail("a tuple of " + std::to_string(t.operands.size()) +
                    (t.operands.size() == 1 ? " term" : " terms") + " in the product sort " +
                    sortName(sort) + " of " + std::to_string(p.components.size()));
      for (std::size_t i = 0; i < t.operands.size(); ++i)
        type(t.operands[i], Want::Colour, p.components[i]);
      t.sort = sort;
      return sort;
    }
    case Op::ElementOf: {
      if (t.operands.size() != 1) return fail("partitionelementof takes one term");
      type(t.operands[0], Want::Colour, sorts_.at(t.sort).partitioned);
      return expect(t.sort);
    }
    case Op::All:
      return expect(t.sort);
    case Op::Product: {
      if (sort == kAnySort)
        return fail("a product of multisets whose product sort the context does not give");
      const Sort& p = sorts_.at(sort);
      if (p.kind != SortKind::Product || t.operands.size() != p.components.size())
        return fail("a tuple of " + std::to_string(t.operands.size()) + " where a colour of " +
                    sortName(sort) + " (" + kindName(p.kind) + ") is expected");
      for (std::size_t i = 0; i < t.operands.size(); ++i)
        type(t.operands[i], Want::Multiset, p.components[i]);
      t.sort = sort;
      return sort;
    }
    case Op::Empty:
      if (sort == kAnySort) return fail("an empty multiset whose sort the context does not give");
      t.sort = sort;
      return sort;
    case Op::NumberOf: {
      if (t.operands.size() != 1) return fail("numberof takes a count and one term");
      t.sort = type(t.operands[0], Want::Multiset, sort);
      return t.sort;
    }
    case Op::Add:
    case Op::Subtract: {
      if (t.operands.empty()) return fail("an add or subtract without terms");
      if (t.op == Op::Subtract && t.operands.size() != 2)
        return fail("subtract takes two multisets");
      // The first operand whose sort is known gives the others theirs.
      SortId s = sort;
      if (s == kAnySort)
        for (Term& o : t.operands)
          if (o.op != Op::Tuple && o.op != Op::Product && o.op != Op::Empty) {
            s = type(o, Want::Multiset);
            break;
          }
      for (Term& o : t.operands) type(o, Want::Multiset, s);
      t.sort = s;
      return s;
    }
    case Op::True:
    case Op::False:
      return 0;
    case Op::Equality:
    case Op::Inequality:
    case Op::LessThan:
    case Op::LessThanOrEqual:
    case Op::GreaterThan:
    case Op::GreaterThanOrEqual: {
      if (t.operands.size() != 2) return fail("a comparison takes two terms");
      // A tuple takes its sort from the other side.
      const bool tupleFirst = t.operands[0].op == Op::Tuple;
      const SortId s = type(t.operands[tupleFirst ? 1 : 0], Want::Colour);
      type(t.operands[tupleFirst ? 0 : 1], Want::Colour, s);
      t.sort = s;
      const SortKind k = sorts_[s].kind;
      if (t.op != Op::Equality && t.op != Op::Inequality && k != SortKind::Enumeration &&
          k != SortKind::IntegerRange)
        return fail("an order comparison of colours of sort " + sortName(s) + ", " + kindName(k) +
                    "; only enumerations and integer ranges are ordered");
      return 0;
    }
    case Op::And:
    case Op::Or:
    case Op::Imply:
    case Op::Not:
      if ((t.op == Op::Not && t.operands.size() != 1) ||
          (t.op == Op::Imply && t.operands.size() != 2) || t.operands.empty())
        return fail("a logical operator with the wrong number of terms");
      for (Term& o : t.operands) type(o, Want::Boolean);
      return 0;
  }
  return fail("an unknown term");
}

std::string Net::colourName(SortId s, Colour c) const {
  const Sort& sort = sorts_.at(s);
  switch (sort.kind) {
    case SortKind::Dot:
      return "";
    case SortKind::Enumeration:
    case SortKind::Partition:
      return sort.constants.at(c);
    case SortKind::IntegerRange:
      return std::to_string(sort.first + static_cast<std::int64_t>(c));
    case SortKind::Product: {
      std::string name;
      for (std::size_t i = 0; i < sort.components.size(); ++i) {
        const std::string part = colourName(sort.components[i], component(s, c, i));
        if (part.empty()) continue;
        if (!name.empty()) name += '_';
        name += part;
      }
      return name;
    }
  }
  return "";
}

Colour Net::component(SortId s, Colour c, std::size_t i) const {
  const Sort& sort = sorts_.at(s);
  for (std::size_t j = sort.components.size(); j-- > i + 1;) c /= sorts_[sort.components[j]].size;
  return c % sorts_[sort.components[i]].size;
}

Colour Net::tuple(SortId s, const std::vector<Colour>& components) const {
  const Sort& sort = sorts_.at(s);
  Colour c = 0;
  for (std::size_t i = 0; i < components.size(); ++i)
    c = c * sorts_[sort.components[i]].size + components[i];
  return c;
}

}  // namespace mmt::coloured
