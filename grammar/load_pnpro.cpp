// PNPRO reader: GreatSPN's editor project format (docs/formats.md § PNPRO). Walks the
// document with pugixml and translates its GSPN page into the .gspn format, as the PNML
// and GreatSPN readers do; every label goes through copyExpression, which refuses
// anything but one expression.
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
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "grammar/formats.hpp"
#include "grammar/translation.hpp"
#include "grammar/xml.hpp"

namespace mmt::grammar {
namespace {

bool isDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
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
  /// Copies the attribute `name` of `node` as an expression (`fallback` when absent).
  void copyAttribute(const pugi::xml_node& node, const char* name, const char* fallback) {
    const pugi::xml_attribute a = node.attribute(name);
    if (!a) {
      out_.emit(fallback, diagnostics_, xmlOffset(node));
      return;
    }
    out_.emit("(", diagnostics_, xmlOffset(node));
    copyExpression(out_, a.value(), diagnostics_, valueOffset(node, name));
    out_.emit(")", diagnostics_, xmlOffset(node));
  }
  bool isColoured(const pugi::xml_node& page) const;
  void readNodes(const pugi::xml_node& nodes, const ParameterOverrides& overrides);
  void readTransition(const pugi::xml_node& t);
  void emitArcs(const std::string& transition);

  struct Arc {
    pugi::xml_node element;
    std::string place;
  };
  struct Arcs {
    std::vector<Arc> inputs, outputs, inhibitors;
  };

  const SourceFile& source_;
  Diagnostics& diagnostics_;
  GspnTranslation out_;
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

void PnproReader::readNodes(const pugi::xml_node& nodes, const ParameterOverrides& overrides) {
  // Constants and templates first: places and transitions may use them.
  for (pugi::xml_node n : nodes.children()) {
    const std::string tag = n.name();
    if (tag == "constant") {
      out_.emit("param ", diagnostics_, xmlOffset(n));
      out_.name(n.attribute("name").value(), diagnostics_, xmlOffset(n));
      out_.emit(" = ", diagnostics_, xmlOffset(n));
      if (!n.attribute("value")) error(n, "the constant '" + std::string(n.attribute("name").value()) + "' has no value");
      copyAttribute(n, "value", "0");
      out_.emit(";\n", diagnostics_, xmlOffset(n));
    } else if (tag == "template") {
      // A template is bound when the model is solved: GreatSPN keeps the last binding, and
      // -D NAME=VALUE gives another.
      const std::string name = n.attribute("name").value();
      const pugi::xml_attribute binding = n.attribute("last-binding");
      if (!binding && !overrides.count(name)) {
        error(n, "the template '" + name + "' has no value: give it one with -D " + name +
                     "=VALUE");
        continue;
      }
      out_.emit("param ", diagnostics_, xmlOffset(n));
      out_.name(name, diagnostics_, xmlOffset(n));
      out_.emit(" = ", diagnostics_, xmlOffset(n));
      copyAttribute(n, "last-binding", "0");
      out_.emit(";\n", diagnostics_, xmlOffset(n));
    }
  }
  for (pugi::xml_node n : nodes.children()) {
    const std::string tag = n.name();
    const std::string name = n.attribute("name").value();
    if (tag == "place" || tag == "transition") {
      if (!kinds_.emplace(name, tag[0]).second) error(n, "a second node named '" + name + "'");
    }
    if (tag == "place") {
      out_.emit("place ", diagnostics_, xmlOffset(n));
      out_.name(name, diagnostics_, xmlOffset(n));
      if (n.attribute("marking")) {
        out_.emit(" = ", diagnostics_, xmlOffset(n));
        copyAttribute(n, "marking", "0");
      }
      out_.emit(";\n", diagnostics_, xmlOffset(n));
    } else if (tag == "transition" || tag == "constant" || tag == "template" ||
               tag == "text-box") {
      // transitions after the arcs are known; parameters above; text boxes are notes
    } else {
      error(n, "unsupported PNPRO node <" + tag + ">; mmt reads places, transitions, "
                                                 "constants and templates");
    }
  }
}

void PnproReader::readTransition(const pugi::xml_node& t) {
  const std::string name = t.attribute("name").value();
  std::string type = t.attribute("type").value();
  if (type.empty()) type = "EXP";
  if (const std::string guard = t.attribute("guard").value(); !guard.empty() && guard != "True")
    error(t, "the transition '" + name + "' has the guard '" + guard +
                 "'; guards belong to coloured nets, which mmt does not read");
  const std::size_t at = xmlOffset(t);
  if (type == "IMM") {
    out_.emit("immediate ", diagnostics_, at);
    out_.name(name, diagnostics_, at);
    out_.emit(" weight ", diagnostics_, at);
    copyAttribute(t, "weight", "1");
    const std::string priority = t.attribute("priority").value();
    if (!priority.empty() && !isDigits(priority))
      diagnostics_.error(valueOffset(t, "priority"),
                         "the priority of '" + name + "' must be a whole number, not '" +
                             priority + "'");
    else if (!priority.empty())
      out_.emit(" priority " + priority, diagnostics_, valueOffset(t, "priority"));
  } else if (type == "EXP") {
    out_.emit("timed ", diagnostics_, at);
    out_.name(name, diagnostics_, at);
    out_.emit(" rate ", diagnostics_, at);
    copyAttribute(t, "delay", "1");
    // Single server (`1`, `Single`) is the .gspn default and needs no keyword.
    const std::string servers = t.attribute("nservers").value();
    if (servers.empty() || servers == "Infinite")
      out_.emit(" servers infinite", diagnostics_, at);
    else if (isDigits(servers) && servers != "1")
      out_.emit(" servers " + servers, diagnostics_, valueOffset(t, "nservers"));
    else if (servers != "1" && servers != "Single")
      diagnostics_.error(valueOffset(t, "nservers"),
                         "the server count of '" + name + "' must be a whole number or "
                         "Infinite, not '" + servers + "'");
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
    out_.emit("timed ", diagnostics_, at);
    out_.name(name, diagnostics_, at);
    out_.emit(" delay const(", diagnostics_, at);
    copyExpression(out_, delay, diagnostics_, offset);
    out_.emit(")", diagnostics_, at);
  } else {
    error(t, "the transition '" + name + "' has type '" + type +
                 "'; mmt reads EXP, IMM, DET and deterministic GEN transitions");
    return;
  }
  emitArcs(name);
  out_.emit(";\n", diagnostics_, at);
}

void PnproReader::emitArcs(const std::string& transition) {
  const auto it = arcs_.find(transition);
  if (it == arcs_.end()) return;
  const Arcs& arcs = it->second;
  for (const auto& [keyword, list] : {std::pair{" in ", &arcs.inputs}, std::pair{" out ", &arcs.outputs},
                                      std::pair{" inhibit ", &arcs.inhibitors}}) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const Arc& a = (*list)[i];
      const std::size_t at = xmlOffset(a.element);
      out_.emit(i == 0 ? keyword : ", ", diagnostics_, at);
      out_.name(a.place, diagnostics_, at);
      const std::string mult = a.element.attribute("mult").value();
      if (mult.empty() || mult == "1") continue;
      out_.emit(" * ", diagnostics_, at);
      if (isDigits(mult))
        out_.copy(mult, diagnostics_, valueOffset(a.element, "mult"));
      else
        copyAttribute(a.element, "mult", "1");
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
    for (const auto& p : pages) names += (names.empty() ? "'" : ", '") + std::string(p.attribute("name").value()) + "'";
    error(pages[1], "the project holds " + std::to_string(pages.size()) + " GSPN pages (" +
                        names + "); mmt reads one: save the page you want in a project of its own");
    return std::nullopt;
  }
  const pugi::xml_node page = pages.front();
  std::string netName = page.attribute("name").value();
  out_.emit("net ", diagnostics_, xmlOffset(page));
  out_.name(netName.empty() ? "net" : netName, diagnostics_, xmlOffset(page));
  out_.emit(";\n", diagnostics_, xmlOffset(page));
  const pugi::xml_node nodes = page.child("nodes");
  readNodes(nodes, overrides);

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
      (kind == "INPUT" ? arcs.inputs : kind == "OUTPUT" ? arcs.outputs : arcs.inhibitors)
          .push_back({a, place});
    }
  }
  for (pugi::xml_node t : nodes.children("transition")) readTransition(t);
  if (diagnostics_.hasErrors()) return std::nullopt;
  return out_.load(overrides, diagnostics_);
}

}  // namespace

std::optional<gspn::Net> loadPnpro(const SourceFile& source, Diagnostics& diagnostics,
                                   const ParameterOverrides& overrides) {
  return PnproReader(source, diagnostics).run(overrides);
}

}  // namespace mmt::grammar
