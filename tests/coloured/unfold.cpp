// Coloured nets (coloured/net.hpp) and their unfolding (coloured/unfold.hpp): colours by
// hand on small nets, the guard's pruning counted, and each error a user can make.
#include "coloured/unfold.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>

namespace {

using namespace mmt::coloured;
using Op = Term::Op;

Term var(VariableId v) {
  Term t;
  t.op = Op::Variable;
  t.value = v;
  return t;
}

Term constant(SortId s, Colour c) {
  Term t;
  t.op = Op::Constant;
  t.sort = s;
  t.value = c;
  return t;
}

Term op(Op o, std::vector<Term> operands, std::uint64_t value = 0) {
  Term t;
  t.op = o;
  t.operands = std::move(operands);
  t.value = value;
  return t;
}

Term all(SortId s) {
  Term t;
  t.op = Op::All;
  t.sort = s;
  return t;
}

Sort enumeration(std::string name, std::vector<std::string> constants, bool cyclic) {
  Sort s;
  s.name = std::move(name);
  s.kind = SortKind::Enumeration;
  s.constants = std::move(constants);
  s.cyclic = cyclic;
  return s;
}

Sort product(std::string name, std::vector<SortId> components) {
  Sort s;
  s.name = std::move(name);
  s.kind = SortKind::Product;
  s.components = std::move(components);
  return s;
}

Place place(std::string name, SortId sort, std::optional<Term> initial = std::nullopt) {
  return Place{std::move(name), sort, std::move(initial), 0};
}

/// Arcs of an unfolded transition by place name -> weight.
std::map<std::string, std::uint64_t> named(const Unfolding& u,
                                           const std::vector<Unfolding::Arc>& arcs) {
  std::map<std::string, std::uint64_t> out;
  for (const Unfolding::Arc& a : arcs) out[u.places[a.place].name] = a.weight;
  return out;
}

const Unfolding::Transition& byName(const Unfolding& u, const std::string& name) {
  for (const auto& t : u.transitions)
    if (t.name == name) return t;
  FAIL("no unfolded transition " << name);
  throw;
}

}  // namespace

TEST_CASE("unfolding: philosophers on a cyclic class take their fork and the successor's") {
  Net net;
  const SortId philo = net.addSort(enumeration("Philo", {"1", "2", "3", "4"}, true));
  const VariableId x = net.addVariable({"x", philo});
  const auto think = net.addPlace(place("Think", philo, all(philo)));
  const auto fork = net.addPlace(place("Fork", philo, all(philo)));
  const auto eat = net.addPlace(place("Eat", philo));
  Transition take{"take", {}, {}, {}, {}, 0};
  take.inputs.push_back({think, var(x), 0});
  take.inputs.push_back({fork, op(Op::Add, {var(x), op(Op::Successor, {var(x)})}), 0});
  take.outputs.push_back({eat, var(x), 0});
  net.addTransition(take);
  const Unfolding u = unfold(net);
  REQUIRE(u.places.size() == 12);
  CHECK(u.places[0].name == "Think_1");
  CHECK(u.places[4].name == "Fork_1");
  for (int i = 0; i < 8; ++i) CHECK(u.places[i].initial == 1);
  CHECK(u.places[8].initial == 0);
  REQUIRE(u.transitions.size() == 4);
  // The last philosopher's successor wraps to the first.
  const auto& t4 = byName(u, "take_4");
  CHECK(named(u, t4.inputs) ==
        std::map<std::string, std::uint64_t>{{"Think_4", 1}, {"Fork_4", 1}, {"Fork_1", 1}});
  CHECK(named(u, t4.outputs) == std::map<std::string, std::uint64_t>{{"Eat_4", 1}});
  CHECK(u.tried == 4);
  CHECK(u.kept == 4);
}

TEST_CASE("unfolding: product colours in mixed radix, last component fastest") {
  Net net;
  const SortId a = net.addSort(enumeration("A", {"a", "b"}, false));
  const SortId b = net.addSort(enumeration("B", {"x", "y", "z"}, false));
  const SortId ab = net.addSort(product("AB", {a, b}));
  CHECK(net.sort(ab).size == 6);
  CHECK(net.tuple(ab, {1, 2}) == 5);
  CHECK(net.component(ab, 4, 0) == 1);
  CHECK(net.component(ab, 4, 1) == 1);
  CHECK(net.colourName(ab, 4) == "b_y");
  // A tuple in the initial marking lands on its place; 2'(a,z) counts twice.
  Term t = op(Op::Tuple, {constant(a, 0), constant(b, 2)});
  net.addPlace(place("P", ab, op(Op::NumberOf, {t}, 2)));
  const Unfolding u = unfold(net);
  REQUIRE(u.places.size() == 6);
  CHECK(u.places[2].name == "P_a_z");
  CHECK(u.places[2].initial == 2);
  CHECK(u.places[3].initial == 0);
}

TEST_CASE("unfolding: a guard prunes partial bindings and computes x = term") {
  Net net;
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) names.push_back(std::to_string(i));
  const SortId n = net.addSort(enumeration("N", names, true));
  const VariableId x = net.addVariable({"x", n});
  const VariableId y = net.addVariable({"y", n});
  const VariableId z = net.addVariable({"z", n});
  const auto p = net.addPlace(place("P", n, all(n)));
  // [y = successor(x) and z = successor(y)]: 50 bindings out of 125,000; each step computes.
  Transition t{"step",
               op(Op::And, {op(Op::Equality, {var(y), op(Op::Successor, {var(x)})}),
                            op(Op::Equality, {var(z), op(Op::Successor, {var(y)})})}),
               {},
               {},
               {},
               0};
  t.inputs.push_back({p, var(x), 0});
  t.outputs.push_back({p, var(z), 0});
  net.addTransition(t);
  // [x != y and x < z]: the inequality is checked once x and y are bound, before z.
  Transition s{
      "pick",
      op(Op::And, {op(Op::Inequality, {var(x), var(y)}), op(Op::LessThan, {var(x), var(z)})}),
      {},
      {},
      {},
      0};
  s.inputs.push_back({p, op(Op::Add, {var(x), var(y), var(z)}), 0});
  net.addTransition(s);
  const Unfolding u = unfold(net);
  std::size_t steps = 0, picks = 0;
  for (const auto& tr : u.transitions) (tr.coloured == 0 ? steps : picks)++;
  CHECK(steps == 50);
  // pick: x < z (1,225 pairs) times y != x (49): 60,025.
  CHECK(picks == 1225 * 49);
  CHECK(u.kept == 50 + 1225 * 49);
  // step tries 50 colours of x and computes y and z once each (150); pick binds x (50), y
  // (2,500) and then z only where y != x (49 * 50 * 50).
  CHECK(u.tried == 150 + 50 + 2'500 + 122'500);
  const auto& last = byName(u, "step_49_0_1");
  CHECK(named(u, last.outputs) == std::map<std::string, std::uint64_t>{{"P_1", 1}});
}

TEST_CASE("unfolding: the errors say where and why") {
  Net net;
  const SortId philo = net.addSort(enumeration("Philo", {"1", "2"}, false));
  const SortId other = net.addSort(enumeration("Other", {"u"}, false));
  const VariableId x = net.addVariable({"x", philo});
  const VariableId y = net.addVariable({"y", philo});
  const auto p = net.addPlace(place("P", philo, all(philo)));

  SUBCASE("successor on an enumeration that is not cyclic") {
    Transition t{"t", {}, {}, {}, {}, 7};
    t.inputs.push_back({p, op(Op::Successor, {var(x)}), 3});
    t.inputs.back().inscription.offset = 11;
    try {
      net.addTransition(t);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.offset == 11);
      CHECK(std::string(e.what()).find("cyclic enumerations only") != std::string::npos);
    }
  }
  SUBCASE("a colour of another sort on the place") {
    Transition t{"t", {}, {}, {}, {}, 0};
    t.inputs.push_back({p, constant(other, 0), 0});
    CHECK_THROWS_WITH_AS(net.addTransition(t),
                         "a term of sort 'Other' where one of sort 'Philo' is expected", Error);
  }
  SUBCASE("a variable on an output arc only ranges over its sort") {
    Transition t{"t", {}, {}, {}, {}, 0};
    t.inputs.push_back({p, var(x), 0});
    t.outputs.push_back({p, var(y), 5});
    net.addTransition(t);
    const Unfolding u = unfold(net);
    REQUIRE(u.transitions.size() == 4);
    CHECK(named(u, byName(u, "t_1_2").inputs) == std::map<std::string, std::uint64_t>{{"P_1", 1}});
    CHECK(named(u, byName(u, "t_1_2").outputs) == std::map<std::string, std::uint64_t>{{"P_2", 1}});
  }
  SUBCASE("a variable in an initial marking") {
    CHECK_THROWS_AS(net.addPlace(place("Q", philo, var(x))), Error);
  }
  SUBCASE("a multiset that goes negative") {
    Transition t{"t", {}, {}, {}, {}, 0};
    t.inputs.push_back({p, op(Op::Subtract, {var(x), var(y)}), 0});
    net.addTransition(t);
    try {
      unfold(net);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("has -1 tokens of colour 2 when x = 1, y = 2") !=
            std::string::npos);
    }
  }
  SUBCASE("a binding space past the limit names the transition") {
    Transition t{"wide", {}, {}, {}, {}, 9};
    t.inputs.push_back({p, op(Op::Add, {var(x), var(y)}), 0});
    net.addTransition(t);
    UnfoldLimits limits;
    limits.tried = 5;
    try {
      unfold(net, limits);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.offset == 9);
      CHECK(std::string(e.what()).find("transition 'wide', whose variables x in Philo (2), y in "
                                       "Philo (2) span 4 bindings") != std::string::npos);
    }
    limits.tried = 6;  // x: 2, y: 2 per x
    CHECK(unfold(net, limits).kept == 4);
  }
}
