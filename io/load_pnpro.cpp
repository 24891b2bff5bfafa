// PNPRO reader: GreatSPN's editor project format (docs/formats.md § PNPRO). Walks the
// document with pugixml and builds its GSPN page through io::NetReader, as the PNML and
// GreatSPN readers do; every attribute that holds a value is read as one expression of
// GreatSPN's language (io/label.hpp).
//
// The meaning of each attribute and its default follow GreatSPN's editor
// (JavaGUI/Editor/src/editor/domain/elements/Transition.java and io/GreatSpnFormat.java in
// greatspn/SOURCES): an EXP transition's `delay` is its rate (the editor writes it to the
// rate field of the .net format unchanged), 1.0 when absent; `nservers` is Infinite when
// absent; an IMM transition has `weight` 1.0 and `priority` 1 when absent; an arc's `mult`
// is 1 when absent; a place's `marking` is 0 when absent.

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <pugixml.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "coloured/unfold.hpp"
#include "io/formats.hpp"
#include "io/greatspn_colours.hpp"
#include "io/label.hpp"
#include "io/net_reader.hpp"
#include "io/unfolded_net.hpp"
#include "io/xml.hpp"

namespace mmt::io {
namespace {

bool isDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

class PnproReader {
 public:
  PnproReader(const SourceFile& source, Diagnostics& diagnostics,
              const coloured::UnfoldLimits& unfolding, const std::string& page)
      : source_(source), diagnostics_(diagnostics), unfolding_(unfolding), page_(page) {}

  std::optional<gspn::Net> run(const ParameterOverrides& overrides);

 private:
  void error(const pugi::xml_node& n, std::string message) {
    diagnostics_.error(xmlOffset(n), std::move(message));
  }
  void warning(const pugi::xml_node& n, std::string message) {
    diagnostics_.warning(xmlOffset(n), std::move(message));
  }
  /// Where the value of attribute `name` of `node` starts in the file (pugixml keeps no
  /// attribute positions: found after the element's start), or the element's offset.
  std::size_t valueOffset(const pugi::xml_node& node, const char* name) const {
    const std::size_t start = xmlOffset(node);
    const std::size_t end = source_.text.find('>', start);
    for (const char quote : {'"', '\''}) {
      const std::string key = std::string(" ") + name + "=" + quote;
      const std::size_t at = source_.text.find(key, start);
      if (at != std::string::npos && at < end) return at + key.size();
    }
    return start;
  }
  /// The attribute `name` of `node` read as an expression (`fallback` when absent).
  std::unique_ptr<Label> attribute(const pugi::xml_node& node, const char* name,
                                   const char* fallback) {
    const pugi::xml_attribute a = node.attribute(name);
    return a ? std::make_unique<Label>(a.value(), valueOffset(node, name), diagnostics_,
                                       Dialect::GreatSpn)
             : std::make_unique<Label>(fallback, xmlOffset(node), diagnostics_, Dialect::GreatSpn);
  }
  bool isColoured(const pugi::xml_node& page) const;
  void readParameters(NetReader& reader, const pugi::xml_node& nodes,
                      const ParameterOverrides& overrides);
  /// Records each place's and transition's name (kinds_).
  void nameNodes(const pugi::xml_node& nodes);
  void readPlaces(NetReader& reader, const pugi::xml_node& nodes);
  void readTransition(NetReader& reader, const pugi::xml_node& t);
  /// The transition `name` of the kind, delay or weight, servers and priority `t` gives
  /// (without guard and arcs), in `group`; nothing after an error.
  std::optional<gspn::TransitionId> declareTransition(NetReader& reader, const pugi::xml_node& t,
                                                      const std::string& name,
                                                      const std::string& group);
  /// A coloured page (a stochastic well-formed net): read into a coloured::Net
  /// (io/greatspn_colours.hpp), unfolded and built in `reader`. False after an error.
  bool readColoured(NetReader& reader, const pugi::xml_node& nodes);
  void addArcs(NetReader& reader, gspn::TransitionId id, const std::string& transition);

  struct Arc {
    pugi::xml_node element;
    std::string place;
  };
  struct Arcs {
    std::vector<Arc> inputs, outputs, inhibitors;
  };

  const SourceFile& source_;
  Diagnostics& diagnostics_;
  const coloured::UnfoldLimits& unfolding_;
  const std::string& page_;            // the page to read; empty: the first
  std::map<std::string, char> kinds_;  // node name -> 'p' | 't'
  std::map<std::string, Arcs> arcs_;   // by transition name
};

bool PnproReader::isColoured(const pugi::xml_node& page) const {
  for (pugi::xml_node n : page.child("nodes").children()) {
    const std::string tag = n.name();
    if (tag == "color-class" || tag == "color-var" || n.attribute("domain")) return true;
  }
  return false;
}

void PnproReader::readParameters(NetReader& reader, const pugi::xml_node& nodes,
                                 const ParameterOverrides& overrides) {
  for (pugi::xml_node n : nodes.children()) {
    const std::string tag = n.name();
    const std::string name = n.attribute("name").value();
    const Site at{&diagnostics_, xmlOffset(n)};
    if (tag == "constant" && n.attribute("domain")) {
      // a coloured constant (a multiset): readColoured
    } else if (tag == "constant") {
      if (!n.attribute("value")) error(n, "the constant '" + name + "' has no value");
      const auto value = attribute(n, "value", "0");
      if (value->ok()) reader.parameter(name, at, value->located());
    } else if (tag == "template") {
      // A template is bound when the model is solved: GreatSPN keeps the last binding, and
      // -D NAME=VALUE gives another.
      if (!n.attribute("last-binding") && !overrides.count(name)) {
        error(n,
              "the template '" + name + "' has no value: give it one with -D " + name + "=VALUE");
        continue;
      }
      const auto value = attribute(n, "last-binding", "0");
      if (value->ok()) reader.parameter(name, at, value->located());
    }
  }
  reader.endParameters();
}

void PnproReader::nameNodes(const pugi::xml_node& nodes) {
  for (pugi::xml_node n : nodes.children()) {
    const std::string tag = n.name();
    const std::string name = n.attribute("name").value();
    if (tag == "place" || tag == "transition")
      if (!kinds_.emplace(name, tag[0]).second) error(n, "a second node named '" + name + "'");
  }
}

void PnproReader::readPlaces(NetReader& reader, const pugi::xml_node& nodes) {
  for (pugi::xml_node n : nodes.children()) {
    const std::string tag = n.name();
    const std::string name = n.attribute("name").value();
    if (tag == "place") {
      const auto marking = attribute(n, "marking", "0");
      if (marking->ok()) reader.place(name, {&diagnostics_, xmlOffset(n)}, marking->located());
    } else if (tag == "transition" || tag == "constant" || tag == "template" || tag == "text-box") {
      // transitions after the arcs are known; parameters above; text boxes are notes
    } else {
      error(n, "unsupported PNPRO node <" + tag +
                   ">; mmt reads places, transitions, "
                   "constants and templates");
    }
  }
}

void PnproReader::readTransition(NetReader& reader, const pugi::xml_node& t) {
  const std::string name = t.attribute("name").value();
  const std::optional<gspn::TransitionId> id = declareTransition(reader, t, name, "");
  if (!id) return;
  if (t.attribute("guard")) {
    const auto guard = attribute(t, "guard", "True");
    if (guard->ok())
      if (auto e = reader.marking(guard->located())) reader.guard(*id, *e, guard->located().site());
  }
  addArcs(reader, *id, name);
}

std::optional<gspn::TransitionId> PnproReader::declareTransition(NetReader& reader,
                                                                 const pugi::xml_node& t,
                                                                 const std::string& name,
                                                                 const std::string& group) {
  std::string type = t.attribute("type").value();
  if (type.empty()) type = "EXP";
  const Site at{&diagnostics_, xmlOffset(t)};
  std::optional<gspn::TransitionId> id;
  if (type == "IMM") {
    const auto weight = attribute(t, "weight", "1");
    auto w = weight->ok() ? reader.constant(weight->located(), "a weight") : std::nullopt;
    std::uint32_t priority = 1;
    const std::string p = t.attribute("priority").value();
    if (!p.empty() && !isDigits(p)) {
      diagnostics_.error(valueOffset(t, "priority"),
                         "the priority of '" + name + "' must be a whole number, not '" + p + "'");
      return std::nullopt;
    }
    if (!p.empty()) {
      const auto value = attribute(t, "priority", "1");
      auto v = value->ok() ? reader.count(value->located(), "a priority", 1) : std::nullopt;
      if (!v) return std::nullopt;
      priority = *v;
    }
    if (!w) return std::nullopt;
    id = reader.immediate(name, at, *w, weight->located().site(), priority, group);
  } else if (type == "EXP") {
    Servers servers;
    // `nservers` is Infinite when absent; `1` and `Single` are one server.
    const std::string n = t.attribute("nservers").value();
    if (n.empty() || n == "Infinite") {
      servers.semantics = gspn::ServerSemantics::Infinite;
    } else if (isDigits(n) && n != "1") {
      const auto value = attribute(t, "nservers", "1");
      auto k = value->ok() ? reader.count(value->located(), "a server count", 1) : std::nullopt;
      if (!k) return std::nullopt;
      servers.semantics = *k == 1 ? gspn::ServerSemantics::Single : gspn::ServerSemantics::KServer;
      servers.count = *k;
      servers.at = Site{&diagnostics_, valueOffset(t, "nservers")};
    } else if (n != "1" && n != "Single") {
      diagnostics_.error(valueOffset(t, "nservers"), "the server count of '" + name +
                                                         "' must be a whole number or "
                                                         "Infinite, not '" +
                                                         n + "'");
      return std::nullopt;
    }
    const auto delay = attribute(t, "delay", "1");
    auto rate = delay->ok() ? reader.marking(delay->located()) : std::nullopt;
    if (!rate) return std::nullopt;
    id = reader.timed(name, at, *rate, delay->located().site(), servers, group);
  } else if (type == "DET" || type == "GEN") {
    // A deterministic delay d (DET, or GEN with GreatSPN's impulse I[d]) is a declared
    // constant delay: the solver uses its mean, the simulator the constant.
    std::string delay = t.attribute("delay").value();
    if (delay.empty()) delay = "1.0";
    std::size_t offset = valueOffset(t, "delay");
    if (type == "GEN") {
      if (delay.size() > 3 && delay.compare(0, 2, "I[") == 0 && delay.back() == ']') {
        delay = delay.substr(2, delay.size() - 3);
        offset += 2;
      } else {
        error(t, "the general transition '" + name + "' has the delay '" + delay +
                     "'; mmt reads general transitions with a deterministic delay I[d] only");
        return std::nullopt;
      }
    }
    const Label d(delay, offset, diagnostics_, Dialect::GreatSpn);
    auto value = d.ok() ? reader.constant(d.located(), "a delay") : std::nullopt;
    if (!value) return std::nullopt;
    try {
      id = reader.timed(name, at, gspn::Distribution::make("const", {*value}), Servers{}, group);
    } catch (const std::invalid_argument& x) {
      diagnostics_.error(offset, x.what());
      return std::nullopt;
    }
  } else {
    error(t, "the transition '" + name + "' has type '" + type +
                 "'; mmt reads EXP, IMM, DET and deterministic GEN transitions");
    return std::nullopt;
  }
  return id;
}

void PnproReader::addArcs(NetReader& reader, gspn::TransitionId id, const std::string& transition) {
  const auto it = arcs_.find(transition);
  if (it == arcs_.end()) return;
  const Arcs& arcs = it->second;
  for (const auto& [kind, list] :
       {std::pair{ArcKind::Input, &arcs.inputs}, std::pair{ArcKind::Output, &arcs.outputs},
        std::pair{ArcKind::Inhibitor, &arcs.inhibitors}}) {
    for (const Arc& a : *list) {
      const Site at{&diagnostics_, xmlOffset(a.element)};
      const auto mult = attribute(a.element, "mult", "1");
      if (!mult->ok()) continue;
      if (auto m = reader.marking(mult->located()))
        reader.arc(kind, id, a.place, at, *m, mult->located().site());
    }
  }
}

bool PnproReader::readColoured(NetReader& reader, const pugi::xml_node& nodes) {
  GreatSpnColours colours(source_);
  bool ok = true;
  auto report = [&](const coloured::Error& e) {
    diagnostics_.error(e.offset, e.what());
    ok = false;
  };
  // Whole-number constants and templates, by name, for the uncoloured places' markings.
  std::map<std::string, double> numbers;
  for (pugi::xml_node n : nodes.children()) {
    const std::string tag = n.name(), name = n.attribute("name").value();
    try {
      if (tag == "color-class")
        colours.colourClass(name, n.attribute("definition").value(), valueOffset(n, "definition"));
      else if (tag == "color-var")
        colours.variable(name, n.attribute("domain").value(), valueOffset(n, "domain"));
      else if (tag == "constant" && n.attribute("domain"))
        colours.constant(name, n.attribute("domain").value(), n.attribute("value").value(),
                         valueOffset(n, "value"));
      else if (tag == "constant" || tag == "template") {
        if (auto v = reader.parameterValue(name)) numbers[name] = *v;
      } else if (tag != "place" && tag != "transition" && tag != "text-box")
        error(n, "unsupported PNPRO node <" + tag +
                     ">; mmt reads places, transitions, constants, templates, colour classes "
                     "and colour variables");
    } catch (const coloured::Error& e) {
      report(e);
    }
  }
  if (!ok) return false;  // the places' domains need the classes
  coloured::Net& net = colours.net();
  std::map<std::string, std::uint32_t> placeIndex;
  for (pugi::xml_node n : nodes.children("place")) {
    const std::string name = n.attribute("name").value();
    try {
      coloured::Place place{name,
                            colours.domain(n.attribute("domain").value(), valueOffset(n, "domain")),
                            std::nullopt, xmlOffset(n)};
      if (n.attribute("marking"))
        place.initial = colours.multiset(n.attribute("marking").value(), valueOffset(n, "marking"),
                                         place.sort, numbers);
      placeIndex[name] = net.addPlace(std::move(place));
    } catch (const coloured::Error& e) {
      report(e);
    }
  }
  std::vector<pugi::xml_node> transitions;
  for (pugi::xml_node t : nodes.children("transition")) {
    const std::string name = t.attribute("name").value();
    try {
      coloured::Transition ct{name, {}, {}, {}, {}, xmlOffset(t)};
      if (t.attribute("guard"))
        ct.guard = colours.guard(t.attribute("guard").value(), valueOffset(t, "guard"));
      bool skip = false;
      if (const auto it = arcs_.find(name); it != arcs_.end()) {
        for (const auto& [list, into] : {std::pair{&it->second.inputs, &ct.inputs},
                                         std::pair{&it->second.outputs, &ct.outputs},
                                         std::pair{&it->second.inhibitors, &ct.inhibitors}}) {
          for (const Arc& a : *list) {
            const auto place = placeIndex.find(a.place);
            if (place == placeIndex.end()) {
              skip = true;  // its place's error is reported
              continue;
            }
            coloured::Arc arc{place->second, {}, xmlOffset(a.element)};
            const coloured::SortId sort = net.places()[place->second].sort;
            if (a.element.attribute("mult"))
              arc.inscription = colours.multiset(a.element.attribute("mult").value(),
                                                 valueOffset(a.element, "mult"), sort, numbers);
            else if (net.sort(sort).kind == coloured::SortKind::Dot)
              arc.inscription = colours.multiset("1", xmlOffset(a.element), sort, numbers);
            else
              throw coloured::Error(arc.offset, "the arc between '" + a.place + "' and '" + name +
                                                    "' has no mult; an arc of a coloured place "
                                                    "names the colours it moves, such as <x>");
            into->push_back(std::move(arc));
          }
        }
      }
      if (skip) continue;
      net.addTransition(std::move(ct));
      transitions.push_back(t);
    } catch (const coloured::Error& e) {
      report(e);
    }
  }
  if (!ok) return false;
  coloured::Unfolding unfolding;
  try {
    unfolding = coloured::unfold(net, unfolding_);
  } catch (const coloured::Error& e) {
    report(e);
    return false;
  }
  return addUnfolding(reader, diagnostics_, net, unfolding,
                      [&](const coloured::Unfolding::Transition& u) {
                        const pugi::xml_node& t = transitions[u.coloured];
                        return declareTransition(reader, t, u.name, t.attribute("name").value());
                      });
}

std::optional<gspn::Net> PnproReader::run(const ParameterOverrides& overrides) {
  pugi::xml_document doc;
  const pugi::xml_node root = readXmlRoot(doc, source_, diagnostics_, "project", "a PNPRO project");
  if (!root) return std::nullopt;
  std::vector<pugi::xml_node> pages;
  for (pugi::xml_node page : root.children("gspn")) pages.push_back(page);
  if (pages.empty()) {
    error(root, "the project holds no GSPN page (<gspn>)");
    return std::nullopt;
  }
  std::string names;
  for (const auto& p : pages)
    names += (names.empty() ? "'" : ", '") + std::string(p.attribute("name").value()) + "'";
  pugi::xml_node page = pages.front();
  if (!page_.empty()) {
    const auto named = std::find_if(pages.begin(), pages.end(), [&](const pugi::xml_node& p) {
      return p.attribute("name").value() == page_;
    });
    if (named == pages.end()) {
      error(root, "the project has no GSPN page named '" + page_ + "'; its " +
                      (pages.size() == 1 ? "page is " : "pages are ") + names);
      return std::nullopt;
    }
    page = *named;
  } else if (pages.size() > 1) {
    warning(pages.front(), "the project holds " + std::to_string(pages.size()) + " GSPN pages (" +
                               names + "); reading the first, '" + page.attribute("name").value() +
                               "' (--page NAME reads another)");
  }
  const std::string netName = page.attribute("name").value();
  NetReader reader(netName.empty() ? "net" : netName, overrides, diagnostics_);
  const pugi::xml_node nodes = page.child("nodes");
  readParameters(reader, nodes, overrides);
  nameNodes(nodes);
  const bool coloured = isColoured(page);
  if (!coloured) readPlaces(reader, nodes);

  for (pugi::xml_node a : page.child("edges").children()) {
    if (std::string(a.name()) != "arc") {
      error(a, "unsupported PNPRO edge <" + std::string(a.name()) + ">");
      continue;
    }
    const std::string head = a.attribute("head").value(), tail = a.attribute("tail").value();
    const std::string kind = a.attribute("kind").value();
    auto kindOf = [&](const std::string& n) {
      auto it = kinds_.find(n);
      return it == kinds_.end() ? '?' : it->second;
    };
    const bool toTransition = kind == "INPUT" || kind == "INHIBITOR";
    const std::string& place = toTransition ? tail : head;
    const std::string& transition = toTransition ? head : tail;
    if (kind != "INPUT" && kind != "OUTPUT" && kind != "INHIBITOR") {
      error(a, "the arc from '" + tail + "' to '" + head + "' has kind '" + kind +
                   "'; mmt reads INPUT, OUTPUT and INHIBITOR arcs");
    } else if (kindOf(place) != 'p' || kindOf(transition) != 't') {
      error(a, "the " + kind + " arc from '" + tail + "' to '" + head + "' must join " +
                   (toTransition ? "a place to a transition" : "a transition to a place"));
    } else {
      Arcs& arcs = arcs_[transition];
      (kind == "INPUT"    ? arcs.inputs
       : kind == "OUTPUT" ? arcs.outputs
                          : arcs.inhibitors)
          .push_back({a, place});
    }
  }
  if (coloured) {
    if (!readColoured(reader, nodes)) return std::nullopt;
  } else {
    for (pugi::xml_node t : nodes.children("transition")) readTransition(reader, t);
  }
  return reader.finish();
}

}  // namespace

std::optional<gspn::Net> loadPnpro(const SourceFile& source, Diagnostics& diagnostics,
                                   const ParameterOverrides& overrides,
                                   const coloured::UnfoldLimits& unfolding,
                                   const std::string& page) {
  return PnproReader(source, diagnostics, unfolding, page).run(overrides);
}

}  // namespace mmt::io
