#include "io/pnml_symmetric.hpp"

#include <charconv>
#include <cstring>

#include "grammar/diagnostics.hpp"
#include "io/xml.hpp"

namespace mmt::io {
namespace {

using coloured::Colour;
using coloured::Error;
using coloured::Sort;
using coloured::SortId;
using coloured::SortKind;
using coloured::Term;
using Op = Term::Op;

std::vector<pugi::xml_node> elements(const pugi::xml_node& n) {
  std::vector<pugi::xml_node> out;
  for (pugi::xml_node c : n.children())
    if (c.type() == pugi::node_element) out.push_back(c);
  return out;
}

pugi::xml_node firstElement(const pugi::xml_node& n) {
  for (pugi::xml_node c : n.children())
    if (c.type() == pugi::node_element) return c;
  return {};
}

std::string tag(const pugi::xml_node& n) { return n.name(); }

Sort sortNamed(std::string name, SortKind kind) {
  Sort s;
  s.name = std::move(name);
  s.kind = kind;
  return s;
}

std::int64_t integerAttribute(const pugi::xml_node& n, const char* name) {
  const std::string text = n.attribute(name).value();
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || at != end)
    throw Error(xmlOffset(n), "<" + tag(n) + "> needs a whole number in its '" + name +
                                  "' attribute, not '" + text + "'");
  return v;
}

/// The name a declaration shows (its `name`, else its `id`).
std::string shownName(const pugi::xml_node& n) {
  std::string name = n.attribute("name").value();
  return name.empty() ? n.attribute("id").value() : name;
}

/// A namedsort (or partition) inside a <declarations>, by id, before it is read: sorts may
/// name sorts declared after them.
struct Pending {
  std::map<std::string, pugi::xml_node> byId;
  std::map<std::string, bool> reading;
};

}  // namespace

SortId SymmetricLabels::dotSort() {
  if (!dot_) dot_ = net_.addSort(sortNamed("Dot", SortKind::Dot));
  return *dot_;
}

SortId SymmetricLabels::rangeSort(std::int64_t first, std::int64_t last, const std::string& name) {
  if (auto it = ranges_.find({first, last}); it != ranges_.end()) return it->second;
  Sort s = sortNamed(name, SortKind::IntegerRange);
  s.first = first;
  s.last = last;
  const SortId id = net_.addSort(std::move(s));
  ranges_[{first, last}] = id;
  return id;
}

SortId SymmetricLabels::sortOf(const pugi::xml_node& e) {
  const std::string t = tag(e);
  if (t == "usersort") {
    const std::string id = e.attribute("declaration").value();
    if (auto it = sorts_.find(id); it != sorts_.end()) return it->second;
    throw Error(xmlOffset(e), "the sort '" + id + "' is not declared in the net's <declaration>");
  }
  if (t == "dot") return dotSort();
  if (t == "finiteintrange") {
    const std::int64_t first = integerAttribute(e, "start"), last = integerAttribute(e, "end");
    return rangeSort(first, last, std::to_string(first) + ".." + std::to_string(last));
  }
  if (t == "bool")
    throw Error(xmlOffset(e),
                "the sort <bool> as a colour domain is not supported; use a "
                "finiteenumeration of two constants");
  throw Error(xmlOffset(e), "<" + t +
                                "> is not a sort mmt reads (it reads dot, "
                                "finiteenumeration, cyclicenumeration, finiteintrange, productsort "
                                "and partition)");
}

void SymmetricLabels::declare(const pugi::xml_node& declaration) {
  // <declaration><structure><declarations>…; a <declarations> directly is read too.
  pugi::xml_node list = declaration.child("structure").child("declarations");
  if (!list) list = declaration.child("declarations");
  if (!list && tag(declaration) == "declarations") list = declaration;
  if (!list) return;
  Pending pending;
  for (pugi::xml_node d : elements(list)) {
    const std::string t = tag(d), id = d.attribute("id").value();
    if (t != "namedsort" && t != "partition" && t != "variabledecl") {
      if (t == "namedoperator")
        throw Error(xmlOffset(d),
                    "<namedoperator> (an operator defined in the net) is not "
                    "supported; write its term where it is used");
      throw Error(xmlOffset(d), "<" + t +
                                    "> is not a declaration mmt reads (it reads "
                                    "namedsort, partition and variabledecl)");
    }
    if (id.empty()) throw Error(xmlOffset(d), "a <" + t + "> without an 'id' attribute");
    if (t != "variabledecl" && !pending.byId.emplace(id, d).second)
      throw Error(xmlOffset(d), "a second sort with id '" + id + "'");
  }
  // Reads the sort with id `id` (and first the sorts it names).
  auto read = [&](auto&& self, const std::string& id) -> void {
    if (sorts_.count(id)) return;
    const auto p = pending.byId.find(id);
    if (p == pending.byId.end()) return;  // sortOf() reports it where it is used
    const pugi::xml_node d = p->second;
    if (pending.reading[id])
      throw Error(xmlOffset(d), "the sort '" + id + "' is defined through itself");
    pending.reading[id] = true;
    for (const pugi::xpath_node& u : d.select_nodes(".//usersort"))
      self(self, u.node().attribute("declaration").value());
    const std::string name = shownName(d);
    SortId sort = 0;
    try {
      if (tag(d) == "partition") {
        const pugi::xml_node of = d.child("usersort");
        if (!of) throw Error(xmlOffset(d), "a <partition> names the sort it splits in <usersort>");
        Sort s = sortNamed(name, SortKind::Partition);
        s.partitioned = sortOf(of);
        const Sort& whole = net_.sort(s.partitioned);
        if (whole.kind != SortKind::Enumeration)
          throw Error(xmlOffset(of),
                      "a partition splits a finite enumeration, not the sort '" + whole.name + "'");
        constexpr std::uint32_t kNone = ~std::uint32_t{0};
        s.elementOf.assign(whole.size, kNone);
        std::vector<std::string> elementIds;
        for (pugi::xml_node e : d.children("partitionelement")) {
          const std::uint32_t index = static_cast<std::uint32_t>(s.constants.size());
          s.constants.push_back(shownName(e));
          elementIds.push_back(e.attribute("id").value());
          for (pugi::xml_node member : e.children("useroperator")) {
            const auto c = constants_.find(member.attribute("declaration").value());
            if (c == constants_.end() || c->second.first != s.partitioned)
              throw Error(xmlOffset(member),
                          "the partition element '" + shownName(e) + "' holds '" +
                              std::string(member.attribute("declaration").value()) +
                              "', which is no constant of the sort '" + whole.name + "'");
            if (s.elementOf[c->second.second] != kNone)
              throw Error(xmlOffset(member),
                          "the constant '" + std::string(member.attribute("declaration").value()) +
                              "' is in two elements of the partition '" + name + "'");
            s.elementOf[c->second.second] = index;
          }
        }
        for (std::size_t c = 0; c < s.elementOf.size(); ++c)
          if (s.elementOf[c] == kNone)
            throw Error(xmlOffset(d), "the partition '" + name + "' leaves the constant '" +
                                          whole.constants[c] + "' in no element");
        sort = net_.addSort(std::move(s));
        for (std::size_t i = 0; i < elementIds.size(); ++i) constants_[elementIds[i]] = {sort, i};
      } else {
        const pugi::xml_node def = firstElement(d);
        if (!def) throw Error(xmlOffset(d), "the sort '" + name + "' has no definition");
        const std::string kind = tag(def);
        if (kind == "finiteenumeration" || kind == "cyclicenumeration") {
          Sort s = sortNamed(name, SortKind::Enumeration);
          s.cyclic = kind == "cyclicenumeration";
          std::vector<std::string> ids;
          for (pugi::xml_node c : def.children("feconstant")) {
            s.constants.push_back(shownName(c));
            ids.push_back(c.attribute("id").value());
          }
          sort = net_.addSort(std::move(s));
          for (std::size_t i = 0; i < ids.size(); ++i)
            if (!constants_.emplace(ids[i], std::make_pair(sort, Colour{i})).second)
              throw Error(xmlOffset(def), "a second constant with id '" + ids[i] + "'");
        } else if (kind == "productsort") {
          Sort s = sortNamed(name, SortKind::Product);
          for (pugi::xml_node c : elements(def)) s.components.push_back(sortOf(c));
          if (s.components.empty())
            throw Error(xmlOffset(def), "the product sort '" + name + "' has no component");
          sort = net_.addSort(std::move(s));
        } else if (kind == "finiteintrange") {
          sort = rangeSort(integerAttribute(def, "start"), integerAttribute(def, "end"), name);
        } else {
          sort = sortOf(def);  // dot, or a reported unsupported sort
        }
      }
    } catch (const Error& e) {
      // Net::addSort does not know where the sort is written.
      if (e.offset == 0) throw Error(xmlOffset(d), e.what());
      throw;
    }
    sorts_[id] = sort;
  };
  for (const auto& [id, node] : pending.byId) read(read, id);
  for (pugi::xml_node d : list.children("variabledecl")) {
    const pugi::xml_node of = firstElement(d);
    if (!of) throw Error(xmlOffset(d), "the variable '" + shownName(d) + "' has no sort");
    const coloured::VariableId v = net_.addVariable({shownName(d), sortOf(of)});
    if (!variables_.emplace(d.attribute("id").value(), v).second)
      throw Error(xmlOffset(d),
                  "a second variable with id '" + std::string(d.attribute("id").value()) + "'");
  }
}

SortId SymmetricLabels::sort(const pugi::xml_node& type) {
  const pugi::xml_node s = firstElement(type.child("structure"));
  if (!s) throw Error(xmlOffset(type), "the place's <type> has no <structure> naming its sort");
  return sortOf(s);
}

Term SymmetricLabels::term(const pugi::xml_node& label) {
  const pugi::xml_node structure = label.child("structure");
  const pugi::xml_node t = firstElement(structure);
  if (!t)
    throw Error(xmlOffset(label), "<" + tag(label) + "> has no <structure> holding its term (" +
                                      "mmt reads the structure, not the <text>)");
  return termOf(t, 0);
}

Term SymmetricLabels::termOf(const pugi::xml_node& e, std::size_t depth) {
  if (depth > grammar::kMaxNesting)
    throw Error(xmlOffset(e), "terms nest deeper than " + std::to_string(grammar::kMaxNesting) +
                                  " levels, the most mmt reads");
  const std::string t = tag(e);
  Term term;
  term.offset = xmlOffset(e);
  // The operands, each in a <subterm>.
  auto operands = [&] {
    for (pugi::xml_node s : e.children("subterm")) {
      const pugi::xml_node inner = firstElement(s);
      if (!inner) throw Error(xmlOffset(s), "an empty <subterm>");
      term.operands.push_back(termOf(inner, depth + 1));
    }
  };
  auto constantSort = [&](const std::string& id) {
    const auto c = constants_.find(id);
    if (c == constants_.end())
      throw Error(term.offset, "'" + id +
                                   "' is not a declared constant (a feconstant of an "
                                   "enumeration or a partition element)");
    return c->second;
  };
  static const std::map<std::string, Op> simple = {
      {"successor", Op::Successor},
      {"predecessor", Op::Predecessor},
      {"tuple", Op::Tuple},
      {"add", Op::Add},
      {"subtract", Op::Subtract},
      {"equality", Op::Equality},
      {"inequality", Op::Inequality},
      {"lessthan", Op::LessThan},
      {"lessthanorequal", Op::LessThanOrEqual},
      {"greaterthan", Op::GreaterThan},
      {"greaterthanorequal", Op::GreaterThanOrEqual},
      {"and", Op::And},
      {"or", Op::Or},
      {"not", Op::Not},
      {"imply", Op::Imply},
  };
  if (auto s = simple.find(t); s != simple.end()) {
    term.op = s->second;
    operands();
    return term;
  }
  if (t == "variable") {
    const std::string id = e.attribute("refvariable").value();
    const auto v = variables_.find(id);
    if (v == variables_.end())
      throw Error(term.offset, "the variable '" + id +
                                   "' is not declared (a <variabledecl> in "
                                   "the net's <declaration>)");
    term.op = Op::Variable;
    term.value = v->second;
  } else if (t == "useroperator") {
    const auto [sort, colour] = constantSort(e.attribute("declaration").value());
    term.op = Op::Constant;
    term.sort = sort;
    term.value = colour;
  } else if (t == "dotconstant") {
    term.op = Op::Constant;
    term.sort = dotSort();
  } else if (t == "finiteintrangeconstant") {
    const pugi::xml_node range = e.child("finiteintrange");
    if (!range)
      throw Error(term.offset, "a <finiteintrangeconstant> names its range in <finiteintrange>");
    const std::int64_t first = integerAttribute(range, "start");
    const std::int64_t last = integerAttribute(range, "end");
    const std::int64_t v = integerAttribute(e, "value");
    if (v < first || v > last)
      throw Error(term.offset, "the constant " + std::to_string(v) + " is outside its range " +
                                   std::to_string(first) + ".." + std::to_string(last));
    term.op = Op::Constant;
    term.sort = rangeSort(first, last, std::to_string(first) + ".." + std::to_string(last));
    term.value = static_cast<Colour>(v - first);
  } else if (t == "partitionelementof") {
    const std::string id = e.attribute("refpartition").value();
    const auto p = sorts_.find(id);
    if (p == sorts_.end() || net_.sort(p->second).kind != SortKind::Partition)
      throw Error(term.offset, "'" + id + "' is not a declared partition");
    term.op = Op::ElementOf;
    term.sort = p->second;
    operands();
  } else if (t == "all" || t == "empty") {
    const pugi::xml_node s = firstElement(e);
    if (!s) throw Error(term.offset, "<" + t + "> names its sort in a child (<usersort>)");
    term.op = t == "all" ? Op::All : Op::Empty;
    term.sort = sortOf(s);
  } else if (t == "numberof" || t == "scalarproduct") {
    // <subterm><numberconstant value="k"/></subterm><subterm>term</subterm>
    term.op = Op::NumberOf;
    bool counted = false;
    for (pugi::xml_node s : e.children("subterm")) {
      const pugi::xml_node inner = firstElement(s);
      if (inner && tag(inner) == "numberconstant" && !counted) {
        const std::int64_t k = integerAttribute(inner, "value");
        if (k < 0)
          throw Error(xmlOffset(inner),
                      "a multiset's count must be a whole number ≥ 0, not " + std::to_string(k));
        term.value = static_cast<std::uint64_t>(k);
        counted = true;
      } else if (inner) {
        term.operands.push_back(termOf(inner, depth + 1));
      } else {
        throw Error(xmlOffset(s), "an empty <subterm>");
      }
    }
    if (!counted)
      throw Error(term.offset, "<" + t + "> needs its count as a <numberconstant> subterm");
  } else if (t == "booleanconstant") {
    const std::string v = e.attribute("value").value();
    if (v != "true" && v != "false")
      throw Error(term.offset, "<booleanconstant> has value 'true' or 'false', not '" + v + "'");
    term.op = v == "true" ? Op::True : Op::False;
  } else {
    throw Error(term.offset,
                "<" + t +
                    "> is not an operator mmt reads in a symmetric net's terms (it reads "
                    "variable, useroperator, dotconstant, finiteintrangeconstant, "
                    "successor, predecessor, tuple, partitionelementof, all, numberof, "
                    "scalarproduct, add, subtract, empty, booleanconstant, equality, "
                    "inequality, lessthan, lessthanorequal, greaterthan, "
                    "greaterthanorequal, and, or, not, imply)");
  }
  return term;
}

}  // namespace mmt::io
