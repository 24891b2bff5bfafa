// PNML reader: walks the document with pugixml and builds its net through io::NetReader. A
// symmetric net's labels are read by io/pnml_symmetric and unfolded by coloured/unfold.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "coloured/unfold.hpp"
#include "io/formats.hpp"
#include "io/label.hpp"
#include "io/net_reader.hpp"
#include "io/pnml_symmetric.hpp"
#include "io/unfolded_net.hpp"
#include "io/xml.hpp"

namespace mmt::io {
namespace {

using grammar::kMaxNesting;

/// A label's text and where that text starts in the file.
struct Text {
  std::string text;
  std::size_t offset = 0;
};

/// Where the text of `element` starts (its first child), or the element itself.
std::size_t textOffset(const pugi::xml_node& element) {
  const pugi::xml_node data = element.first_child();
  return data ? static_cast<std::size_t>(std::max<std::ptrdiff_t>(data.offset_debug(), 0))
              : xmlOffset(element);
}

/// The value of label `key` of `node`: `<key><text>v</text></key>` (PNML),
/// `<key><value>v</value></key>` (PIPE), `<key value="v"/>` or `<key>v</key>`, trimmed.
std::optional<Text> label(const pugi::xml_node& node, const char* key) {
  const pugi::xml_node l = node.child(key);
  if (!l) return std::nullopt;
  pugi::xml_node holder = l.child("text");
  if (!holder) holder = l.child("value");
  if (!holder) {
    if (const pugi::xml_attribute a = l.attribute("value")) return Text{a.value(), xmlOffset(l)};
    holder = l;
  }
  const std::string text = holder.child_value();
  const std::size_t offset = textOffset(holder);
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  std::size_t last = text.size();
  while (last > first && std::isspace(static_cast<unsigned char>(text[last - 1]))) --last;
  return Text{text.substr(first, last - first), offset + first};
}

/// PIPE writes token counts and arc weights as "CLASS,N": the count of its one token class
/// (`Default` unless the file names another). Returns the count text, or the text
/// unchanged.
Text stripTokenClass(Text l, const std::string& tokenClass) {
  for (const std::string& name : {std::string("Default"), tokenClass}) {
    const std::string prefix = name + ",";
    if (!name.empty() && l.text.compare(0, prefix.size(), prefix) == 0) {
      l.text.erase(0, prefix.size());
      l.offset += prefix.size();
      break;
    }
  }
  return l;
}

/// The `<toolspecific tool="mmt">` child of `node`, if any.
pugi::xml_node mmtLabels(const pugi::xml_node& node) {
  for (pugi::xml_node t : node.children("toolspecific"))
    if (std::string(t.attribute("tool").value()) == "mmt") return t;
  return {};
}

bool isTrue(const std::optional<Text>& l) { return l && (l->text == "true" || l->text == "1"); }

struct Node {
  pugi::xml_node element;
  std::string name;
};

struct ArcEnd {
  std::string place;
  Text multiplicity;
  bool verbatim;         ///< an expression, not a count
  pugi::xml_node arc{};  ///< the <arc> (a symmetric net's inscription is its <hlinscription>)
};

struct TransitionArcs {
  std::vector<ArcEnd> inputs, outputs, inhibitors;
};

class PnmlReader {
 public:
  PnmlReader(const SourceFile& source, Diagnostics& diagnostics,
             const coloured::UnfoldLimits& unfolding)
      : source_(source), diagnostics_(diagnostics), unfolding_(unfolding) {}

  std::optional<gspn::Net> run(const ParameterOverrides& overrides);

 private:
  void error(const pugi::xml_node& n, std::string message) {
    diagnostics_.error(xmlOffset(n), std::move(message));
  }
  /// Gathers the places, transitions and arcs of `container` and of its pages, which nest
  /// at most kMaxNesting deep.
  void collect(const pugi::xml_node& container, std::size_t depth = 0);
  /// Children of a place, transition or arc that mmt does not read: layout only.
  void checkChildren(const pugi::xml_node& n, std::initializer_list<const char*> known);
  std::string nameOf(const pugi::xml_node& n, const char* kind);
  void readArc(const pugi::xml_node& a);
  void addPlace(NetReader& reader, const Node& p);
  void addTransition(NetReader& reader, const Node& t);
  /// The transition `name` with the rate, kind, priority and guard that the labels of `e`
  /// give (without its arcs); nothing after an error.
  std::optional<gspn::TransitionId> declareTransition(NetReader& reader, const pugi::xml_node& e,
                                                      const std::string& name,
                                                      const std::string& group);
  /// A symmetric net: its labels read into a coloured::Net (io/pnml_symmetric.hpp), which is
  /// unfolded (coloured/unfold.hpp) into `reader`'s places and transitions. False after an
  /// error.
  bool addColoured(NetReader& reader);
  void addArcs(NetReader& reader, gspn::TransitionId id, ArcKind kind,
               const std::vector<ArcEnd>& arcs);
  /// t's inhibitor arcs plus those that keep each place with a capacity (PIPE, Storm) within
  /// it: a transition that adds c tokens to a place of capacity k is inhibited from k − c + 1.
  std::vector<ArcEnd> withCapacities(const Node& t, const TransitionArcs& arcs);
  /// The group of `n` from mmt's labels ("" when none).
  std::string groupOf(const pugi::xml_node& n);

  const SourceFile& source_;
  Diagnostics& diagnostics_;
  const coloured::UnfoldLimits& unfolding_;
  std::vector<Node> places_, transitions_;
  /// Transitions read without a rate, and the first of them (its name and offset).
  std::size_t unrated_ = 0;
  std::pair<std::string, std::size_t> firstUnrated_;
  std::size_t declared_ = 0;  // transitions declared, unfolded ones each
  bool symmetric_ = false;    // a symmetric net (the net's type says so)
  std::vector<pugi::xml_node> declarations_;
  std::vector<pugi::xml_node> arcs_;
  std::map<std::string, std::pair<char, std::size_t>> ids_;  // id -> ('p' | 't', index)
  std::map<std::string, std::string> names_;                 // name -> id using it
  std::map<std::size_t, TransitionArcs> arcsOf_;             // by transition index
  int tokenClasses_ = 0;
  std::string tokenClass_;                   // the one class's name
  std::map<std::string, Text> definitions_;  // PIPE 5 rate definitions by id
  std::map<std::string, std::pair<std::uint64_t, std::size_t>>
      capacity_;  // place name -> (k, offset)
};

void PnmlReader::checkChildren(const pugi::xml_node& n, std::initializer_list<const char*> known) {
  static const char* layout[] = {"name",  "graphics", "toolspecific", "orientation",
                                 "angle", "arcpath",  "tagged"};
  for (pugi::xml_node c : n.children()) {
    if (c.type() != pugi::node_element) continue;
    const std::string tag = c.name();
    const bool ok =
        std::any_of(std::begin(layout), std::end(layout),
                    [&](const char* k) { return tag == k; }) ||
        std::any_of(known.begin(), known.end(), [&](const char* k) { return tag == k; });
    if (ok) continue;
    if (!symmetric_ && (tag == "hlinitialMarking" || tag == "hlinscription" || tag == "type" ||
                        tag == "condition"))
      error(c, "<" + tag +
                   "> belongs to coloured nets, but this net's type is not one: mmt reads a "
                   "coloured net whose <net> type is .../symmetricnet");
    else
      error(c, "unsupported PNML element <" + tag + "> in <" + n.name() + ">");
  }
  if (isTrue(label(n, "tagged"))) error(n, "tagged tokens are not supported");
}

std::string PnmlReader::nameOf(const pugi::xml_node& n, const char* kind) {
  const std::string id = n.attribute("id").value();
  if (id.empty()) error(n, std::string("a ") + kind + " without an 'id' attribute");
  std::string name = id;
  if (auto l = label(n, "name"); l && !l->text.empty() && !names_.count(l->text)) name = l->text;
  if (auto [it, fresh] = names_.emplace(name, id); !fresh && !id.empty())
    error(n, std::string("the ") + kind + " '" + id + "' has the name '" + name +
                 "' of another element (id '" + it->second + "')");
  return name;
}

void PnmlReader::collect(const pugi::xml_node& container, std::size_t depth) {
  for (pugi::xml_node c : container.children()) {
    if (c.type() != pugi::node_element) continue;
    const std::string tag = c.name();
    if (tag == "place" || tag == "transition") {
      auto& list = tag == "place" ? places_ : transitions_;
      const std::string id = c.attribute("id").value();
      if (!id.empty() && !ids_.emplace(id, std::make_pair(tag[0], list.size())).second) {
        error(c, "a second element with id '" + id + "'");
        continue;
      }
      list.push_back({c, nameOf(c, tag.c_str())});
    } else if (tag == "arc") {
      arcs_.push_back(c);
    } else if (tag == "page") {
      if (depth + 1 > kMaxNesting) {
        error(c, "pages nest deeper than " + std::to_string(kMaxNesting) +
                     " levels, the most mmt reads; flatten the net first");
        return;
      }
      collect(c, depth + 1);
    } else if (tag == "name" || tag == "graphics" || tag == "toolspecific" || tag == "labels") {
      // layout, annotations and other tools' data
    } else if (tag == "token") {
      // PIPE declares its token classes; more than one enabled class is a coloured net.
      if (std::string(c.attribute("enabled").value()) != "false") {
        if (++tokenClasses_ == 2)
          error(c, "a second token class '" + std::string(c.attribute("id").value()) +
                       "': coloured nets are not supported");
        else
          tokenClass_ = c.attribute("id").value();
      }
    } else if (tag == "stategroup") {
      // PIPE's state groups name sets of markings for its own analyses: an annotation.
    } else if (tag == "definition") {
      // PIPE 5: a named rate expression that transitions use through their
      // <toolspecific tool="PIPE" rateDefinition="ID"/>.
      const pugi::xml_attribute expression = c.attribute("expression");
      std::string id = c.attribute("id").value();
      if (id.empty()) id = c.attribute("name").value();
      if (id.empty() || !expression)
        error(c, "a <definition> needs an 'id' (or 'name') and an 'expression'");
      else
        definitions_[id] = Text{expression.value(), xmlOffset(c)};
    } else if (tag == "referencePlace" || tag == "referenceTransition") {
      error(c, "<" + tag + "> (a reference node) is not supported; flatten the net first");
    } else if ((tag == "declaration" || tag == "declarations") && symmetric_) {
      declarations_.push_back(c);
    } else if (tag == "declaration" || tag == "declarations") {
      error(c, "<" + tag +
                   "> belongs to coloured nets, but this net's type is not one: mmt reads a "
                   "coloured net whose <net> type is .../symmetricnet");
    } else {
      error(c, "unsupported PNML element <" + tag +
                   ">; mmt reads places, transitions, arcs "
                   "and pages");
    }
  }
}

void PnmlReader::readArc(const pugi::xml_node& a) {
  if (symmetric_)
    checkChildren(a, {"hlinscription", "type"});
  else
    checkChildren(a, {"inscription", "type"});
  const std::string source = a.attribute("source").value();
  const std::string target = a.attribute("target").value();
  auto endpoint = [&](const std::string& id,
                      const char* role) -> const std::pair<char, std::size_t>* {
    auto it = ids_.find(id);
    if (it != ids_.end()) return &it->second;
    error(a, std::string("the arc's ") + role + " '" + id +
                 "' is not a place or transition of the net");
    return nullptr;
  };
  const auto* from = endpoint(source, "source");
  const auto* to = endpoint(target, "target");
  if (!from || !to) return;
  if (from->first == to->first) {
    error(a, "an arc must join a place and a transition, not two " +
                 std::string(from->first == 'p' ? "places" : "transitions"));
    return;
  }
  std::string kind = "normal";
  if (const pugi::xml_node type = a.child("type")) {
    kind = type.attribute("value").value();
    if (kind.empty()) kind = label(a, "type").value_or(Text{}).text;
  }
  ArcEnd end{"", Text{"1", xmlOffset(a)}, false, a};
  if (symmetric_ && kind != "normal" && !kind.empty()) {
    error(a, "a symmetric net's arcs are normal arcs; mmt does not read '" + kind +
                 "' arcs in coloured nets");
    return;
  }
  const pugi::xml_node mmt = mmtLabels(a);
  if (auto m = mmt ? label(mmt, "multiplicity") : std::nullopt) {
    end.multiplicity = *m;
    end.verbatim = true;
  } else if (auto l = label(a, "inscription")) {
    end.multiplicity = stripTokenClass(*l, tokenClass_);
    // PIPE writes an arc of weight 1 (an inhibitor arc meaning "place empty" above all)
    // with an empty inscription, or none at all.
    if (end.multiplicity.text.empty()) end.multiplicity.text = "1";
    end.verbatim = !std::all_of(end.multiplicity.text.begin(), end.multiplicity.text.end(),
                                [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  }
  const bool toTransition = from->first == 'p';
  const std::size_t t = toTransition ? to->second : from->second;
  end.place = places_[toTransition ? from->second : to->second].name;
  TransitionArcs& arcs = arcsOf_[t];
  if (kind == "normal" || kind.empty()) {
    (toTransition ? arcs.inputs : arcs.outputs).push_back(end);
  } else if (kind == "inhibitor" || kind == "inhibition") {
    if (!toTransition)
      error(a, "an inhibitor arc must go from a place to a transition");
    else
      arcs.inhibitors.push_back(end);
  } else if (kind == "test" || kind == "read") {
    if (!toTransition) {
      error(a, "a test arc must go from a place to a transition");
    } else {
      arcs.inputs.push_back(end);
      arcs.outputs.push_back(end);
    }
  } else {
    error(a, "unsupported arc type '" + kind + "'; mmt reads normal, inhibitor and test arcs");
  }
}

std::string PnmlReader::groupOf(const pugi::xml_node& n) {
  const pugi::xml_node mmt = mmtLabels(n);
  auto g = mmt ? label(mmt, "group") : std::nullopt;
  return g ? g->text : "";
}

void PnmlReader::addPlace(NetReader& reader, const Node& p) {
  checkChildren(p.element, {"initialMarking", "capacity"});
  const Site at{&diagnostics_, xmlOffset(p.element)};
  const auto m = label(p.element, "initialMarking");
  const Text count = m ? stripTokenClass(*m, tokenClass_) : Text{"", 0};
  if (count.text.empty()) {
    reader.place(p.name, at, 0, groupOf(p.element));
    return;
  }
  const Label initial(count.text, count.offset, diagnostics_, Dialect::Mmt);
  if (initial.ok()) reader.place(p.name, at, initial.located(), groupOf(p.element));
}

void PnmlReader::addArcs(NetReader& reader, gspn::TransitionId id, ArcKind kind,
                         const std::vector<ArcEnd>& arcs) {
  for (const ArcEnd& a : arcs) {
    const Label m(a.multiplicity.text, a.multiplicity.offset, diagnostics_, Dialect::Mmt);
    if (!m.ok()) continue;
    const Site at{&diagnostics_, a.multiplicity.offset};
    if (!reader.hasPlace(a.place)) {  // reported by arc()
      reader.arc(kind, id, a.place, at, gspn::Expression::constant(1), at);
      continue;
    }
    if (auto e = reader.marking(m.located()))
      reader.arc(kind, id, a.place, at, *e, m.located().site());
  }
}

void PnmlReader::addTransition(NetReader& reader, const Node& t) {
  checkChildren(t.element, {"rate", "timed", "infiniteServer", "priority"});
  const std::optional<gspn::TransitionId> id =
      declareTransition(reader, t.element, t.name, groupOf(t.element));
  if (!id) return;
  const std::size_t index = static_cast<std::size_t>(&t - transitions_.data());
  if (auto it = arcsOf_.find(index); it != arcsOf_.end()) {
    addArcs(reader, *id, ArcKind::Input, it->second.inputs);
    addArcs(reader, *id, ArcKind::Output, it->second.outputs);
    addArcs(reader, *id, ArcKind::Inhibitor, withCapacities(t, it->second));
  }
}

std::optional<gspn::TransitionId> PnmlReader::declareTransition(NetReader& reader,
                                                                const pugi::xml_node& e,
                                                                const std::string& name,
                                                                const std::string& group) {
  ++declared_;
  const Site at{&diagnostics_, xmlOffset(e)};
  const bool timed = !label(e, "timed") || isTrue(label(e, "timed"));
  const pugi::xml_node mmt = mmtLabels(e);
  std::optional<Text> rate = mmt ? label(mmt, "rate") : std::nullopt;
  if (!rate) rate = label(e, "rate");
  // PIPE 5 names a rate definition instead of (or beside) a rate.
  for (pugi::xml_node tool : e.children("toolspecific")) {
    const pugi::xml_attribute use = tool.attribute("rateDefinition");
    if (std::string(tool.attribute("tool").value()) != "PIPE" || !use) continue;
    if (auto d = definitions_.find(use.value()); d != definitions_.end())
      rate = d->second;
    else
      error(tool, "the transition '" + name + "' uses the rate definition '" + use.value() +
                      "', which the net does not define");
  }
  if (!rate || rate->text.empty()) {
    if (unrated_++ == 0) firstUnrated_ = {name, at.offset};
    rate = Text{"1", at.offset};
  }
  std::optional<gspn::TransitionId> id;
  if (timed) {
    Servers servers;
    auto k = mmt ? label(mmt, "servers") : std::nullopt;
    if (isTrue(label(e, "infiniteServer")) || (k && k->text == "infinite")) {
      servers.semantics = gspn::ServerSemantics::Infinite;
      servers.at = at;
    } else if (k) {
      const Label count(k->text, k->offset, diagnostics_, Dialect::Mmt);
      if (!count.ok()) return std::nullopt;
      auto n = reader.count(count.located(), "a server count", 1);
      if (!n) return std::nullopt;
      servers.count = *n;
      servers.semantics = *n == 1 ? gspn::ServerSemantics::Single : gspn::ServerSemantics::KServer;
      servers.at = count.located().site();
    }
    // A declared delay (written by mmt) replaces the rate, which PIPE reads as its mean's
    // exponential.
    if (auto delay = mmt ? label(mmt, "delay") : std::nullopt) {
      const Label d(delay->text, delay->offset, diagnostics_, Dialect::Mmt);
      auto distribution = d.ok() ? reader.distribution(d.located()) : std::nullopt;
      if (!distribution) return std::nullopt;
      id = reader.timed(name, at, *distribution, servers, group);
    } else {
      const Label r(rate->text, rate->offset, diagnostics_, Dialect::Mmt);
      auto value = r.ok() ? reader.marking(r.located()) : std::nullopt;
      if (!value) return std::nullopt;
      id = reader.timed(name, at, *value, r.located().site(), servers, group);
    }
  } else {
    const Label w(rate->text, rate->offset, diagnostics_, Dialect::Mmt);
    auto weight = w.ok() ? reader.constant(w.located(), "a weight") : std::nullopt;
    if (!weight) return std::nullopt;
    std::uint32_t priority = 1;
    if (auto p = label(e, "priority")) {
      const Label l(p->text, p->offset, diagnostics_, Dialect::Mmt);
      auto v = l.ok() ? reader.count(l.located(), "a priority", 1) : std::nullopt;
      if (!v) return std::nullopt;
      priority = *v;
    }
    id = reader.immediate(name, at, *weight, w.located().site(), priority, group);
  }
  if (!id) return std::nullopt;
  if (auto g = mmt ? label(mmt, "guard") : std::nullopt) {
    const Label guard(g->text, g->offset, diagnostics_, Dialect::Mmt);
    if (guard.ok())
      if (auto value = reader.marking(guard.located()))
        reader.guard(*id, *value, guard.located().site());
  }
  return id;
}

bool PnmlReader::addColoured(NetReader& reader) {
  struct Skip {};
  SymmetricLabels labels;
  bool ok = true;
  auto report = [&](const coloured::Error& e) {
    diagnostics_.error(e.offset, e.what());
    ok = false;
  };
  try {
    for (const pugi::xml_node& d : declarations_) labels.declare(d);
  } catch (const coloured::Error& e) {
    report(e);
    return false;
  }
  std::map<std::string, std::uint32_t> placeIndex;
  for (const Node& p : places_) {
    checkChildren(p.element, {"type", "hlinitialMarking"});
    try {
      const pugi::xml_node type = p.element.child("type");
      if (!type)
        throw coloured::Error(
            xmlOffset(p.element),
            "the place '" + p.name + "' has no <type>; a place of a symmetric net names its sort");
      coloured::Place place{p.name, labels.sort(type), std::nullopt, xmlOffset(p.element)};
      if (const pugi::xml_node m = p.element.child("hlinitialMarking"))
        place.initial = labels.term(m);
      placeIndex[p.name] = labels.net().addPlace(std::move(place));
    } catch (const coloured::Error& e) {
      report(e);
    }
  }
  // A transition on a place whose declaration failed is skipped (that place's error says
  // why); the others are read, so that one run reports every transition's mistakes.
  for (std::size_t i = 0; i < transitions_.size(); ++i) {
    const Node& t = transitions_[i];
    checkChildren(t.element, {"condition", "rate", "timed", "infiniteServer", "priority"});
    try {
      coloured::Transition ct{t.name, {}, {}, {}, {}, xmlOffset(t.element)};
      if (const pugi::xml_node c = t.element.child("condition")) ct.guard = labels.term(c);
      static const TransitionArcs kNone;
      const auto found = arcsOf_.find(i);
      const TransitionArcs& arcs = found == arcsOf_.end() ? kNone : found->second;
      for (const auto* list : {&arcs.inputs, &arcs.outputs}) {
        for (const ArcEnd& a : *list) {
          const auto place = placeIndex.find(a.place);
          if (place == placeIndex.end()) throw Skip{};
          coloured::Arc arc{place->second, {}, xmlOffset(a.arc)};
          if (const pugi::xml_node h = a.arc.child("hlinscription")) {
            arc.inscription = labels.term(h);
          } else if (labels.net().sort(labels.net().places()[arc.place].sort).kind ==
                     coloured::SortKind::Dot) {
            arc.inscription.op = coloured::Term::Op::Constant;  // one plain token
            arc.inscription.sort = labels.net().places()[arc.place].sort;
          } else {
            throw coloured::Error(arc.offset, "the arc between place '" + a.place +
                                                  "' and transition '" + t.name +
                                                  "' has no <hlinscription>; an arc of a "
                                                  "coloured place names the colours it moves");
          }
          (list == &arcs.inputs ? ct.inputs : ct.outputs).push_back(std::move(arc));
        }
      }
      labels.net().addTransition(std::move(ct));
    } catch (const coloured::Error& e) {
      report(e);
    } catch (const Skip&) {
    }
  }
  if (!ok) return false;
  coloured::Unfolding unfolding;
  try {
    unfolding = coloured::unfold(labels.net(), unfolding_);
  } catch (const coloured::Error& e) {
    report(e);
    return false;
  }
  return addUnfolding(
      reader, diagnostics_, labels.net(), unfolding, [&](const coloured::Unfolding::Transition& u) {
        const Node& t = transitions_[u.coloured];
        const std::string group = groupOf(t.element);
        return declareTransition(reader, t.element, u.name, group.empty() ? t.name : group);
      });
}

std::vector<ArcEnd> PnmlReader::withCapacities(const Node& t, const TransitionArcs& arcs) {
  std::vector<ArcEnd> inhibitors = arcs.inhibitors;
  for (const auto& entry : capacity_) {
    const std::string& place = entry.first;  // a plain reference: lambdas below capture it
    const auto [k, offset] = entry.second;
    std::int64_t change = 0;
    bool expression = false;
    for (const auto* list : {&arcs.inputs, &arcs.outputs})
      for (const ArcEnd& a : *list)
        if (a.place == place) {
          std::int64_t m = 0;
          const char* end = a.multiplicity.text.data() + a.multiplicity.text.size();
          const auto [at, ec] = std::from_chars(a.multiplicity.text.data(), end, m);
          if (a.verbatim || ec != std::errc() || at != end)
            expression = true;
          else
            change += list == &arcs.inputs ? -m : m;
        }
    if (expression) {
      diagnostics_.error(offset, "the place '" + place + "' has capacity " + std::to_string(k) +
                                     " and a marking-dependent arc from '" + t.name +
                                     "'; mmt cannot bound it: model the bound with a "
                                     "complementary place");
      continue;
    }
    if (change <= 0) continue;
    // Firing t must leave at most k tokens: m(p) + change ≤ k, i.e. an inhibitor arc of
    // multiplicity k − change + 1 (the tighter one where t already has one).
    if (static_cast<std::uint64_t>(change) > k) {
      diagnostics_.error(offset, "the transition '" + t.name + "' adds " + std::to_string(change) +
                                     " tokens to the place '" + place + "' of capacity " +
                                     std::to_string(k) + ": it could never fire");
      continue;
    }
    const std::uint64_t bound1 = k - static_cast<std::uint64_t>(change) + 1;
    auto existing = std::find_if(inhibitors.begin(), inhibitors.end(),
                                 [&](const ArcEnd& a) { return a.place == place && !a.verbatim; });
    if (existing == inhibitors.end()) {
      inhibitors.push_back({place, Text{std::to_string(bound1), offset}, false});
      continue;
    }
    const std::string& text = existing->multiplicity.text;
    std::uint64_t h = 0;
    if (std::from_chars(text.data(), text.data() + text.size(), h).ec != std::errc() || h > bound1)
      existing->multiplicity = Text{std::to_string(bound1), offset};  // the smaller bound
  }
  return inhibitors;
}

std::optional<gspn::Net> PnmlReader::run(const ParameterOverrides& overrides) {
  pugi::xml_document doc;
  const pugi::xml_node root = readXmlRoot(doc, source_, diagnostics_, "pnml", "a PNML document");
  if (!root) return std::nullopt;
  std::vector<pugi::xml_node> nets;
  for (pugi::xml_node n : root.children("net")) nets.push_back(n);
  if (nets.empty()) {
    error(root, "the document holds no <net>");
    return std::nullopt;
  }
  if (nets.size() > 1)
    error(nets[1], "the document holds " + std::to_string(nets.size()) +
                       " nets; mmt reads one net per file");
  const pugi::xml_node net = nets.front();
  const std::string type = net.attribute("type").value();
  symmetric_ = type.find("symmetric") != std::string::npos;
  if (type.find("hlpn") != std::string::npos || type.find("highlevel") != std::string::npos)
    error(net, "the net type '" + type +
                   "' is a high-level net of the full PNML grammar (lists, strings, "
                   "integers), which mmt does not read; it reads symmetric nets "
                   "(.../symmetricnet) and place/transition nets");
  collect(net);
  for (const pugi::xml_node& a : arcs_) readArc(a);
  // Capacities: 0 (PIPE) or none means unbounded.
  for (const Node& p : places_) {
    const auto c = label(p.element, "capacity");
    if (!c || c->text.empty()) continue;
    std::uint64_t k = 0;
    const char* end = c->text.data() + c->text.size();
    if (c->text[0] == '-') continue;  // a negative capacity: unbounded, as PIPE reads it
    if (auto [at, ec] = std::from_chars(c->text.data(), end, k); ec != std::errc() || at != end) {
      diagnostics_.error(c->offset, "the capacity of place '" + p.name +
                                        "' must be a whole "
                                        "number, not '" +
                                        c->text + "'");
      continue;
    }
    if (k == 0) continue;
    capacity_[p.name] = {k, c->offset};
    if (auto m = label(p.element, "initialMarking")) {
      const Text count = stripTokenClass(*m, tokenClass_);
      std::uint64_t initial = 0;
      const char* last = count.text.data() + count.text.size();
      if (auto [at, ec] = std::from_chars(count.text.data(), last, initial);
          ec == std::errc() && at == last && initial > k)
        diagnostics_.error(count.offset, "the place '" + p.name + "' starts with " + count.text +
                                             " tokens, above its capacity " + c->text);
    }
  }

  std::string netName = net.attribute("id").value();
  if (auto l = label(net, "name"); l && !l->text.empty()) netName = l->text;
  NetReader reader(netName.empty() ? "net" : netName, overrides, diagnostics_);
  reader.endParameters();
  if (symmetric_) {
    if (!addColoured(reader)) return std::nullopt;
  } else {
    for (const Node& p : places_) addPlace(reader, p);
    for (const Node& t : transitions_) addTransition(reader, t);
  }
  // An untimed net (the Model Checking Contest's are) has no rate anywhere: one warning for
  // them all, at the first, not one per transition.
  if (unrated_ == 1)
    diagnostics_.warning(firstUnrated_.second,
                         "the transition '" + firstUnrated_.first + "' has no rate; using 1");
  else if (unrated_ > 1)
    diagnostics_.warning(firstUnrated_.second, std::to_string(unrated_) + " of the " +
                                                   std::to_string(declared_) +
                                                   " transitions have no rate, the first '" +
                                                   firstUnrated_.first + "'; using 1 for each");
  if (const pugi::xml_node mmt = mmtLabels(net))
    for (pugi::xml_node m : mmt.children("measure")) {
      const Label value(m.child_value(), textOffset(m), diagnostics_, Dialect::Mmt);
      if (value.ok())
        reader.measure(m.attribute("name").value(), {&diagnostics_, xmlOffset(m)}, value.located());
    }
  return reader.finish();
}

}  // namespace

std::optional<gspn::Net> loadPnml(const SourceFile& source, Diagnostics& diagnostics,
                                  const ParameterOverrides& overrides,
                                  const coloured::UnfoldLimits& unfolding) {
  return PnmlReader(source, diagnostics, unfolding).run(overrides);
}

}  // namespace mmt::io
