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

#include "io/formats.hpp"
#include "io/label.hpp"
#include "io/net_reader.hpp"
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
  PnproReader(const SourceFile& source, Diagnostics& diagnostics)
      : source_(source), diagnostics_(diagnostics) {}

  std::optional<gspn::Net> run(const ParameterOverrides& overrides);

 private:
  void error(const pugi::xml_node& n, std::string message) {
    diagnostics_.error(xmlOffset(n), std::move(message));
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
  void readPlaces(NetReader& reader, const pugi::xml_node& nodes);
  void readTransition(NetReader& reader, const pugi::xml_node& t);
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
    if (tag == "constant") {
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

void PnproReader::readPlaces(NetReader& reader, const pugi::xml_node& nodes) {
  for (pugi::xml_node n : nodes.children()) {
    const std::string tag = n.name();
    const std::string name = n.attribute("name").value();
    if (tag == "place" || tag == "transition") {
      if (!kinds_.emplace(name, tag[0]).second) error(n, "a second node named '" + name + "'");
    }
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
      return;
    }
    if (!p.empty()) {
      const auto value = attribute(t, "priority", "1");
      auto v = value->ok() ? reader.count(value->located(), "a priority", 1) : std::nullopt;
      if (!v) return;
      priority = *v;
    }
    if (!w) return;
    id = reader.immediate(name, at, *w, weight->located().site(), priority);
  } else if (type == "EXP") {
    Servers servers;
    // `nservers` is Infinite when absent; `1` and `Single` are one server.
    const std::string n = t.attribute("nservers").value();
    if (n.empty() || n == "Infinite") {
      servers.semantics = gspn::ServerSemantics::Infinite;
    } else if (isDigits(n) && n != "1") {
      const auto value = attribute(t, "nservers", "1");
      auto k = value->ok() ? reader.count(value->located(), "a server count", 1) : std::nullopt;
      if (!k) return;
      servers.semantics = *k == 1 ? gspn::ServerSemantics::Single : gspn::ServerSemantics::KServer;
      servers.count = *k;
      servers.at = Site{&diagnostics_, valueOffset(t, "nservers")};
    } else if (n != "1" && n != "Single") {
      diagnostics_.error(valueOffset(t, "nservers"), "the server count of '" + name +
                                                         "' must be a whole number or "
                                                         "Infinite, not '" +
                                                         n + "'");
      return;
    }
    const auto delay = attribute(t, "delay", "1");
    auto rate = delay->ok() ? reader.marking(delay->located()) : std::nullopt;
    if (!rate) return;
    id = reader.timed(name, at, *rate, delay->located().site(), servers);
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
        return;
      }
    }
    const Label d(delay, offset, diagnostics_, Dialect::GreatSpn);
    auto value = d.ok() ? reader.constant(d.located(), "a delay") : std::nullopt;
    if (!value) return;
    try {
      id = reader.timed(name, at, gspn::Distribution::make("const", {*value}), Servers{});
    } catch (const std::invalid_argument& x) {
      diagnostics_.error(offset, x.what());
      return;
    }
  } else {
    error(t, "the transition '" + name + "' has type '" + type +
                 "'; mmt reads EXP, IMM, DET and deterministic GEN transitions");
    return;
  }
  if (!id) return;
  if (t.attribute("guard")) {
    const auto guard = attribute(t, "guard", "True");
    if (guard->ok())
      if (auto e = reader.marking(guard->located())) reader.guard(*id, *e, guard->located().site());
  }
  addArcs(reader, *id, name);
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

std::optional<gspn::Net> PnproReader::run(const ParameterOverrides& overrides) {
  pugi::xml_document doc;
  const pugi::xml_node root = readXmlRoot(doc, source_, diagnostics_, "project", "a PNPRO project");
  if (!root) return std::nullopt;
  std::vector<pugi::xml_node> pages;
  for (pugi::xml_node page : root.children("gspn")) {
    if (isColoured(page))
      error(page, "the page '" + std::string(page.attribute("name").value()) +
                      "' is a coloured net (SWN): mmt reads uncoloured GSPNs only; unfold it "
                      "first");
    else
      pages.push_back(page);
  }
  if (diagnostics_.hasErrors()) return std::nullopt;
  if (pages.empty()) {
    error(root, "the project holds no GSPN page (<gspn>)");
    return std::nullopt;
  }
  if (pages.size() > 1) {
    std::string names;
    for (const auto& p : pages)
      names += (names.empty() ? "'" : ", '") + std::string(p.attribute("name").value()) + "'";
    error(pages[1], "the project holds " + std::to_string(pages.size()) + " GSPN pages (" + names +
                        "); mmt reads one: save the page you want in a project of its own");
    return std::nullopt;
  }
  const pugi::xml_node page = pages.front();
  const std::string netName = page.attribute("name").value();
  NetReader reader(netName.empty() ? "net" : netName, overrides, diagnostics_);
  const pugi::xml_node nodes = page.child("nodes");
  readParameters(reader, nodes, overrides);
  readPlaces(reader, nodes);

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
  for (pugi::xml_node t : nodes.children("transition")) readTransition(reader, t);
  return reader.finish();
}

}  // namespace

std::optional<gspn::Net> loadPnpro(const SourceFile& source, Diagnostics& diagnostics,
                                   const ParameterOverrides& overrides) {
  return PnproReader(source, diagnostics).run(overrides);
}

}  // namespace mmt::io
