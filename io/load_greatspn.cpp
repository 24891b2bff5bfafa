// GreatSPN reader: the .net/.def pair of the GreatSPN 2 editor, built through io::NetReader.
//
// The .net layout, as the GreatSPN editor reads it (docs/formats.md has the full table):
//   |0|                  first line
//   comment lines ...    up to a line starting with '|'
//   f M P R T G [C ...]  counts: marking parameters, places, rate parameters, transitions,
//                        priority groups, colour sets
//   M lines   NAME value x y ...
//   P lines   NAME marking x y ...        (marking -k: the value of marking parameter k)
//   R lines   NAME value x y ...
//   G lines   NAME x y [priority]
//   T blocks  NAME rate servers kind inputs orientation x y ...
//               rate -k: rate parameter k, or (k > R) the next definition of the .def;
//               servers: 1 single, 0 infinite, k > 1 k-server, -n load-dependent (n-1
//               further lines give the rates at enabling degree 2..n);
//               kind: 0 exponential, 127 deterministic, g > 0 immediate of group g;
//             then `inputs` arc lines "multiplicity place points ..." (each followed by
//             `points` coordinate lines), a line with the output count and its arcs, a
//             line with the inhibitor count and its arcs.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "gspn/writers.hpp"
#include "io/formats.hpp"
#include "io/label.hpp"
#include "io/net_reader.hpp"

namespace mmt::io {
namespace {

using grammar::SourceFile;

/// One whitespace-separated word of a line and its offset in the file.
struct Word {
  std::string_view text;
  std::size_t offset;
};

/// Reads a file line by line, splitting lines into words, keeping offsets.
/// A name as GreatSPN's editor means it: the text before the first '|' (what follows is
/// the editor's own annotation), or the whole word when it starts with one.
std::string elementName(std::string_view word) {
  const std::size_t bar = word.find('|');
  return std::string(bar == std::string_view::npos || bar == 0 ? word : word.substr(0, bar));
}

class Lines {
 public:
  explicit Lines(const std::string& text) : text_(text) {}
  bool atEnd() const { return next_ >= text_.size(); }
  std::size_t offset() const { return next_; }
  /// Lines not yet read (a line break ends each; a last line without one counts).
  std::size_t remaining() const {
    if (atEnd()) return 0;
    const std::size_t breaks = static_cast<std::size_t>(
        std::count(text_.begin() + static_cast<long>(next_), text_.end(), '\n'));
    return breaks + (text_.back() != '\n');
  }
  /// The next line (without its line break) and its offset.
  std::string_view line(std::size_t& at) {
    at = next_;
    std::size_t end = text_.find('\n', next_);
    if (end == std::string::npos) end = text_.size();
    std::string_view l(text_.data() + next_, end - next_);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    next_ = std::min(text_.size(), end + 1);
    return l;
  }
  static std::vector<Word> words(std::string_view l, std::size_t at) {
    std::vector<Word> out;
    std::size_t i = 0;
    while (i < l.size()) {
      while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
      const std::size_t start = i;
      while (i < l.size() && l[i] != ' ' && l[i] != '\t') ++i;
      if (i > start) out.push_back({l.substr(start, i - start), at + start});
    }
    return out;
  }

 private:
  const std::string& text_;
  std::size_t next_ = 0;
};

template <typename T>
std::optional<T> parseNumber(std::string_view s) {
  T value{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

struct ArcLine {
  std::uint32_t multiplicity;
  std::size_t place;  // 0-based
  std::size_t offset;
  /// A marking-dependent multiplicity (GreatSPN writes it after the label position,
  /// with multiplicity 1), and where it starts; empty for a constant one.
  std::string expression = {};
  std::size_t expressionOffset = 0;
};

struct TransitionRecord {
  std::string name;
  std::size_t offset;
  double rate;
  std::size_t rateOffset;
  int servers;
  std::size_t serversOffset;
  int kind;
  std::vector<double> loadRates;  // rates at enabling degree 1..n for servers = -n
  /// Index of its rate definition in the .def file, for a rate of -k with k beyond the
  /// rate parameters.
  std::optional<std::size_t> definition;
  /// The guard GreatSPN's editor writes at the end of the line, `[condition]`, and where
  /// its text starts; empty when there is none.
  std::string guard = {};
  std::size_t guardOffset = 0;
  std::vector<ArcLine> inputs, outputs, inhibitors;
};

class GreatSpnReader {
 public:
  GreatSpnReader(const SourceFile& net, Diagnostics& netDiagnostics, const SourceFile& def,
                 Diagnostics& defDiagnostics)
      : net_(net), d_(netDiagnostics), def_(def), dd_(defDiagnostics), lines_(net.text) {}

  std::optional<gspn::Net> run(const ParameterOverrides& overrides);

 private:
  /// The words of the next line, at least `least` of them; reports `what` was expected.
  std::optional<std::vector<Word>> record(std::size_t least, const std::string& what);
  template <typename T>
  std::optional<T> number(const Word& w, const std::string& what) {
    auto v = parseNumber<T>(w.text);
    if (!v) d_.error(w.offset, "expected " + what + ", found '" + std::string(w.text) + "'");
    return v;
  }
  bool readCounts();
  bool readParameters(std::size_t count, std::vector<std::pair<std::string, Word>>& out,
                      const char* kind);
  bool readPlaces();
  bool readGroups();
  bool readTransition(TransitionRecord& t);
  bool readArcs(std::size_t count, std::vector<ArcLine>& out, const std::string& owner);
  void readDefinitions();
  void declarePlaces(NetReader& reader);
  void addArcs(NetReader& reader, gspn::TransitionId id, ArcKind kind,
               const std::vector<ArcLine>& arcs);
  void addTransition(NetReader& reader, const TransitionRecord& t);
  std::optional<gspn::Expression> rate(NetReader& reader, const TransitionRecord& t);
  gspn::Expression loadDependentRate(const TransitionRecord& t);

  const SourceFile& net_;
  Diagnostics& d_;
  const SourceFile& def_;
  Diagnostics& dd_;
  Lines lines_;
  std::size_t rateDefinitionCount_ = 0;  ///< rates the .def file must define
  std::size_t markingParameters_ = 0, places_ = 0, rateParameters_ = 0, transitions_ = 0,
              groups_ = 0;
  std::vector<std::pair<std::string, Word>> mpars_, rpars_;
  std::vector<std::string> placeNames_;
  struct PlaceRecord {
    Word marking;
    std::size_t offset;
  };
  std::vector<PlaceRecord> placeRecords_;
  std::vector<int> groupPriority_;
  std::vector<TransitionRecord> records_;
  /// Definitions read from the .def: marking-dependent rates in order, then measures.
  struct Text {
    std::string text;
    std::size_t offset;
  };
  std::vector<Text> rateDefinitions_;
  std::vector<std::pair<std::string, Text>> measures_;
};

std::optional<std::vector<Word>> GreatSpnReader::record(std::size_t least,
                                                        const std::string& what) {
  // Blank lines between records are tolerated.
  while (!lines_.atEnd()) {
    std::size_t at = 0;
    const std::string_view line = lines_.line(at);
    auto words = Lines::words(line, at);
    if (words.empty()) continue;
    if (words.size() < least) {
      d_.error(words.back().offset + words.back().text.size(),
               "expected " + what + ": the line ends too early");
      return std::nullopt;
    }
    return words;
  }
  d_.error(net_.text.size(), "the file ends where " + what + " was expected");
  return std::nullopt;
}

bool GreatSpnReader::readCounts() {
  std::size_t at = 0;
  std::string_view first = lines_.line(at);
  if (first.empty() || first[0] != '|') {
    d_.error(at, "not a GreatSPN net: the first line must be '|0|'");
    return false;
  }
  while (!lines_.atEnd()) {  // the comment, up to a line starting with '|'
    std::string_view l = lines_.line(at);
    if (!l.empty() && l[0] == '|') break;
  }
  auto w = record(6, "the counts line 'f M P R T G'");
  if (!w) return false;
  if ((*w)[0].text != "f") {
    d_.error((*w)[0].offset,
             "expected the counts line 'f M P R T G', found '" + std::string((*w)[0].text) + "'");
    return false;
  }
  std::size_t* counts[] = {&markingParameters_, &places_, &rateParameters_, &transitions_,
                           &groups_};
  static const char* names[] = {"the number of marking parameters", "the number of places",
                                "the number of rate parameters", "the number of transitions",
                                "the number of priority groups"};
  // Every element declared takes at least one line (a transition three): a count beyond
  // what the file holds is refused before anything is allocated for it.
  const std::size_t lines = lines_.remaining();
  for (std::size_t i = 0; i < 5; ++i) {
    auto v = number<std::size_t>((*w)[i + 1], names[i]);
    if (!v) return false;
    if (*v > lines) {
      d_.error((*w)[i + 1].offset, std::string(names[i]) + " is " + std::to_string(*v) +
                                       ", but only " + std::to_string(lines) +
                                       (lines == 1 ? " line follows" : " lines follow") +
                                       " in the file");
      return false;
    }
    *counts[i] = *v;
  }
  if (w->size() > 6 && (*w)[6].text != "0") {
    d_.error((*w)[6].offset,
             "the net declares colour sets: coloured nets (SWN) are not "
             "supported; unfold the net first");
    return false;
  }
  return true;
}

bool GreatSpnReader::readParameters(std::size_t count,
                                    std::vector<std::pair<std::string, Word>>& out,
                                    const char* kind) {
  for (std::size_t i = 0; i < count; ++i) {
    auto w = record(2, std::string("a ") + kind + " 'NAME value x y'");
    if (!w || !number<double>((*w)[1], std::string("the value of ") + kind + " '" +
                                           std::string((*w)[0].text) + "'"))
      return false;
    out.emplace_back(elementName((*w)[0].text), (*w)[1]);
  }
  return true;
}

bool GreatSpnReader::readPlaces() {
  for (std::size_t i = 0; i < places_; ++i) {
    auto w = record(2, "a place 'NAME marking x y'");
    if (!w) return false;
    const std::string name = elementName((*w)[0].text);
    if (!number<long>((*w)[1], "the initial marking of '" + name + "'")) return false;
    placeNames_.push_back(name);
    placeRecords_.push_back({(*w)[1], (*w)[0].offset});
  }
  return true;
}

void GreatSpnReader::declarePlaces(NetReader& reader) {
  for (std::size_t i = 0; i < placeNames_.size(); ++i) {
    const std::string& name = placeNames_[i];
    const auto [word, offset] = placeRecords_[i];
    const long m = *parseNumber<long>(word.text);
    double initial = static_cast<double>(m);
    if (m < 0 && m >= -static_cast<long>(mpars_.size())) {
      initial = *reader.parameterValue(mpars_[static_cast<std::size_t>(-m - 1)].first);
    } else if (m < 0) {
      d_.error(word.offset, m < -10000 ? "a coloured initial marking: coloured nets (SWN) are "
                                         "not supported"
                                       : "the initial marking refers to marking parameter " +
                                             std::to_string(-m) + ", but the net declares " +
                                             std::to_string(mpars_.size()));
      initial = 0;
    }
    if (auto problem = grammar::tokenCountProblem(initial, 0)) {
      d_.error(word.offset, "an initial marking must be " + *problem);
      initial = 0;
    }
    reader.place(name, {&d_, offset}, static_cast<gspn::Tokens>(initial));
  }
}

bool GreatSpnReader::readGroups() {
  for (std::size_t i = 0; i < groups_; ++i) {
    auto w = record(3, "a priority group 'NAME x y [priority]'");
    if (!w) return false;
    int priority = static_cast<int>(i + 1);
    if (w->size() > 3) {
      auto p = number<int>((*w)[3], "the priority of group '" + std::string((*w)[0].text) + "'");
      if (!p) return false;
      priority = *p;
    }
    groupPriority_.push_back(priority);
  }
  return true;
}

bool GreatSpnReader::readArcs(std::size_t count, std::vector<ArcLine>& out,
                              const std::string& owner) {
  for (std::size_t i = 0; i < count; ++i) {
    auto w = record(3, "an arc 'multiplicity place points' of '" + owner + "'");
    if (!w) return false;
    auto m = number<long>((*w)[0], "an arc multiplicity");
    auto p = number<std::size_t>((*w)[1], "a place number");
    auto points = number<std::size_t>((*w)[2], "a number of points");
    if (!m || !p || !points) return false;
    // After the layer and the label position (numbers), GreatSPN's editor writes a
    // marking-dependent multiplicity (`#P1s`), or, in a coloured net, a colour annotation
    // (`<x>`).
    std::string expression;
    std::size_t expressionOffset = 0;
    std::size_t k = 3;
    while (k < w->size() && k < 6 && parseNumber<double>((*w)[k].text)) ++k;
    if (k < w->size()) {
      expressionOffset = (*w)[k].offset;
      std::size_t end = net_.text.find('\n', expressionOffset);
      if (end == std::string::npos) end = net_.text.size();
      expression = net_.text.substr(expressionOffset, end - expressionOffset);
      while (!expression.empty() && std::isspace(static_cast<unsigned char>(expression.back())))
        expression.pop_back();
      if (k < 6 || expression.find('<') != std::string::npos) {
        d_.error(expressionOffset, "an arc of '" + owner + "' has the colour annotation '" +
                                       expression + "': coloured nets (SWN) are not supported");
        return false;
      }
    }
    // A negative multiplicity is an arc GreatSPN's editor draws "broken" (without its
    // line): the same arc, of multiplicity |m|.
    if (*m < 0 && *m != std::numeric_limits<long>::min()) *m = -*m;
    if (*m < 1 || *m > std::numeric_limits<gspn::Tokens>::max()) {
      d_.error((*w)[0].offset, "an arc multiplicity must be from 1 to " +
                                   std::to_string(std::numeric_limits<gspn::Tokens>::max()) +
                                   ", not " + std::to_string(*m));
      return false;
    }
    if (*p < 1 || *p > places_) {
      d_.error((*w)[1].offset, "place number " + std::to_string(*p) +
                                   " does not exist (the "
                                   "net has " +
                                   std::to_string(places_) + " places)");
      return false;
    }
    out.push_back(
        {static_cast<std::uint32_t>(*m), *p - 1, (*w)[0].offset, expression, expressionOffset});
    for (std::size_t k = 0; k < *points; ++k)
      if (!record(2, "a point 'x y' of an arc of '" + owner + "'")) return false;
  }
  return true;
}

bool GreatSpnReader::readTransition(TransitionRecord& t) {
  auto w = record(6, "a transition 'NAME rate servers kind inputs orientation x y'");
  if (!w) return false;
  t.name = elementName((*w)[0].text);
  t.offset = (*w)[0].offset;
  auto rate = number<double>((*w)[1], "the rate of '" + t.name + "'");
  auto servers = number<int>((*w)[2], "the server count of '" + t.name + "'");
  auto kind = number<int>((*w)[3], "the kind of '" + t.name + "'");
  auto inputs = number<std::size_t>((*w)[4], "the number of input arcs of '" + t.name + "'");
  if (!rate || !servers || !kind || !inputs) return false;
  // After the positions and the layers (numbers), `x y [guard]` (its text may hold
  // brackets of its own: up to the line's last ']').
  for (std::size_t k = 6; k < w->size(); ++k) {
    if ((*w)[k].text[0] != '[') continue;
    const std::size_t open = (*w)[k].offset;
    std::size_t end = net_.text.find('\n', open);
    if (end == std::string::npos) end = net_.text.size();
    const std::size_t close = net_.text.rfind(']', end);
    if (close == std::string::npos || close <= open) {
      d_.error(open, "the guard of '" + t.name + "' is not closed with ']'");
      return false;
    }
    t.guard = net_.text.substr(open + 1, close - open - 1);
    t.guardOffset = open + 1;
    break;
  }
  t.rate = *rate;
  // A rate of -k with k beyond the rate parameters is defined in the .def file, in order.
  if (t.rate <= 0 && static_cast<std::size_t>(std::lround(-t.rate)) > rateParameters_)
    t.definition = rateDefinitionCount_++;
  t.rateOffset = (*w)[1].offset;
  t.servers = *servers;
  t.serversOffset = (*w)[2].offset;
  t.kind = *kind;
  // Wrong kinds are reported, and the transition is read on as exponential.
  if (t.kind == 127) {
    d_.error((*w)[3].offset, "'" + t.name +
                                 "' is a deterministic transition: mmt solves "
                                 "exponential and immediate transitions only");
    t.kind = 0;
  } else if (t.kind < 0 || (t.kind > 0 && static_cast<std::size_t>(t.kind) > groups_)) {
    d_.error((*w)[3].offset, "the kind of '" + t.name +
                                 "' must be 0 (exponential) or a "
                                 "priority group 1.." +
                                 std::to_string(groups_) + ", not " + std::to_string(t.kind));
    t.kind = 0;
  }
  if (t.servers < 0) {
    // -n reads n - 1 more rates, one a line: refuse an n the file cannot hold (and
    // INT_MIN, whose negation overflows) before reading.
    if (static_cast<std::size_t>(-static_cast<long long>(t.servers)) > lines_.remaining() + 1) {
      d_.error(t.serversOffset, "'" + t.name + "' declares load-dependent rates for " +
                                    std::to_string(-static_cast<long long>(t.servers)) +
                                    " enabling degrees, but only " +
                                    std::to_string(lines_.remaining()) +
                                    " lines follow in the file");
      return false;
    }
    t.loadRates.push_back(t.rate);
    for (int k = 1; k < -t.servers; ++k) {
      auto r = record(1, "a load-dependent rate of '" + t.name + "'");
      if (!r) return false;
      auto v = number<double>((*r)[0], "a load-dependent rate of '" + t.name + "'");
      if (!v) return false;
      t.loadRates.push_back(*v);
    }
  }
  if (!readArcs(*inputs, t.inputs, t.name)) return false;
  for (auto* list : {&t.outputs, &t.inhibitors}) {
    auto c =
        record(1, std::string("the number of ") + (list == &t.outputs ? "output" : "inhibitor") +
                      " arcs of '" + t.name + "'");
    if (!c) return false;
    auto n = number<std::size_t>((*c)[0], "a number of arcs");
    if (!n || !readArcs(*n, *list, t.name)) return false;
  }
  return true;
}

void GreatSpnReader::readDefinitions() {
  if (def_.text.empty()) return;
  Lines def(def_.text);
  std::size_t at = 0;
  std::string_view l = def.line(at);
  if (l.empty() || l[0] != '|') {
    dd_.error(at, "not a GreatSPN definitions file: the first line must start with '|'");
    return;
  }
  // The text of the file from `from` to the end of the line read last, line breaks and all
  // (they are blanks to the expression's parser, and keep every column where it is).
  auto upTo = [&](std::size_t from, std::size_t lineStart, std::string_view line) {
    const std::size_t end = lineStart + line.size();
    return Text{def_.text.substr(from, end - from), from};
  };
  // Marking-dependent rate definitions, one block per such transition, each ended by '|'.
  for (std::size_t i = 0; i < rateDefinitionCount_ && !def.atEnd(); ++i) {
    Text block{"", 0};
    bool any = false;
    while (!def.atEnd()) {
      l = def.line(at);
      if (!l.empty() && l[0] == '|') break;
      if (!any) block.offset = at;
      block = upTo(block.offset, at, l);
      any = true;
    }
    rateDefinitions_.push_back(block);
  }
  // Then '%' and the measures: "|NAME x y : expression" lines, continued up to a '|'.
  if (!def.atEnd()) def.line(at);
  std::optional<std::pair<std::string, Text>> current;
  while (!def.atEnd()) {
    l = def.line(at);
    if (!l.empty() && l[0] == '|') {
      if (current) measures_.push_back(*current);
      current.reset();
      const auto colon = l.find(':');
      if (l.size() < 2 || !std::isalpha(static_cast<unsigned char>(l[1]))) continue;
      if (colon == std::string_view::npos) {
        dd_.error(at, "expected a measure '|NAME x y : expression'");
        continue;
      }
      const std::string_view head = l.substr(1, l.find_first_of(" \t", 1) - 1);
      std::size_t start = colon + 1;
      while (start < l.size() && l[start] == ' ') ++start;
      current = std::make_pair(std::string(head), upTo(at + start, at, l));
    } else if (current) {
      current->second = upTo(current->second.offset, at, l);
    }
  }
  if (current) measures_.push_back(*current);
}

void GreatSpnReader::addArcs(NetReader& reader, gspn::TransitionId id, ArcKind kind,
                             const std::vector<ArcLine>& arcs) {
  for (const ArcLine& a : arcs) {
    const Site at{&d_, a.offset};
    if (a.expression.empty()) {
      reader.arc(kind, id, placeNames_[a.place], at, gspn::Expression::constant(a.multiplicity),
                 at);
      continue;
    }
    const Label label(a.expression, a.expressionOffset, d_, Dialect::GreatSpn);
    if (!label.ok()) continue;
    if (auto m = reader.marking(label.located()))
      reader.arc(kind, id, placeNames_[a.place], at, *m, label.located().site());
  }
}

/// Load-dependent rates r1..rn: the rate at enabling degree e is r_min(e, n), where e is
/// the least over the input arcs of floor(#P / w) (1 without input arcs).
gspn::Expression GreatSpnReader::loadDependentRate(const TransitionRecord& t) {
  using Op = gspn::Expression::Op;
  gspn::Expression degree;
  if (t.inputs.empty()) degree.push({Op::Constant, 0, 1});
  for (std::size_t i = 0; i < t.inputs.size(); ++i) {
    const ArcLine& a = t.inputs[i];
    if (!a.expression.empty())
      d_.error(a.expressionOffset, "'" + t.name +
                                       "' has load-dependent rates and the "
                                       "marking-dependent arc multiplicity '" +
                                       a.expression + "': its enabling degree is not defined");
    degree.push({Op::Tokens, static_cast<std::uint32_t>(a.place), 0});
    if (a.multiplicity != 1) {
      degree.push({Op::Constant, 0, static_cast<double>(a.multiplicity)});
      degree.push({Op::Divide, 0, 0});
      degree.push({Op::Floor, 0, 0});
    }
  }
  if (t.inputs.size() > 1) degree.push({Op::Min, static_cast<std::uint32_t>(t.inputs.size()), 0});
  // if(e <= 1, r1, if(e <= 2, r2, … rn)), in postfix.
  gspn::Expression rate;
  for (std::size_t e = 0; e + 1 < t.loadRates.size(); ++e) {
    for (const auto& in : degree.code()) rate.push(in);
    rate.push({Op::Constant, 0, static_cast<double>(e + 1)});
    rate.push({Op::LessEqual, 0, 0});
    rate.push({Op::Constant, 0, t.loadRates[e]});
  }
  rate.push({Op::Constant, 0, t.loadRates.back()});
  for (std::size_t e = 0; e + 1 < t.loadRates.size(); ++e) rate.push({Op::If, 0, 0});
  return rate;
}

std::optional<gspn::Expression> GreatSpnReader::rate(NetReader& reader, const TransitionRecord& t) {
  const bool immediate = t.kind > 0;
  const long k = t.rate <= 0 ? std::lround(-t.rate) : 0;
  if (t.rate > 0)
    return !immediate && t.servers < 0 ? loadDependentRate(t) : gspn::Expression::constant(t.rate);
  if (k >= 1 && static_cast<std::size_t>(k) <= rpars_.size())
    return gspn::Expression::constant(
        *reader.parameterValue(rpars_[static_cast<std::size_t>(k - 1)].first));
  if (k < 1) {
    d_.error(t.rateOffset, "the rate of '" + t.name +
                               "' must be positive or refer to a rate "
                               "parameter (-k)");
    return std::nullopt;
  }
  const std::size_t index = *t.definition;
  if (immediate) {
    d_.error(t.rateOffset, "'" + t.name +
                               "' is immediate with a marking-dependent weight, "
                               "which mmt does not support");
    return std::nullopt;
  }
  if (index >= rateDefinitions_.size() || rateDefinitions_[index].text.empty()) {
    d_.error(t.rateOffset, "the rate of '" + t.name + "' is marking-dependent (" +
                               std::string(def_.path.empty() ? "no .def file" : def_.path) +
                               " has no definition for it)");
    return std::nullopt;
  }
  const Label label(rateDefinitions_[index].text, rateDefinitions_[index].offset, dd_,
                    Dialect::GreatSpn);
  if (!label.ok()) return std::nullopt;
  return reader.marking(label.located());
}

void GreatSpnReader::addTransition(NetReader& reader, const TransitionRecord& t) {
  const Site at{&d_, t.offset}, rateAt{&d_, t.rateOffset};
  auto r = rate(reader, t);
  if (!r) return;
  std::optional<gspn::TransitionId> id;
  if (t.kind > 0) {
    const int priority = groupPriority_[static_cast<std::size_t>(t.kind - 1)];
    if (priority < 1) {
      d_.error(t.offset,
               "a priority must be an integer of at least 1, not " + std::to_string(priority));
      return;
    }
    id = reader.immediate(t.name, at, r->evaluateConstant(), rateAt,
                          static_cast<std::uint32_t>(priority));
  } else {
    Servers servers;
    if (t.servers == 0) {
      servers.semantics = gspn::ServerSemantics::Infinite;
    } else if (t.servers > 1) {
      if (!r->isConstant()) {
        d_.error(t.serversOffset, "'" + t.name + "' has a marking-dependent rate and " +
                                      std::to_string(t.servers) +
                                      " servers; write the "
                                      "dependence in the rate definition");
        return;
      }
      servers.semantics = gspn::ServerSemantics::KServer;
      servers.count = static_cast<std::uint32_t>(t.servers);
    }
    id = reader.timed(t.name, at, *r, rateAt, servers);
  }
  if (!id) return;
  if (!t.guard.empty()) {
    const Label guard(t.guard, t.guardOffset, d_, Dialect::GreatSpn);
    if (guard.ok())
      if (auto e = reader.marking(guard.located())) reader.guard(*id, *e, guard.located().site());
  }
  addArcs(reader, *id, ArcKind::Input, t.inputs);
  addArcs(reader, *id, ArcKind::Output, t.outputs);
  addArcs(reader, *id, ArcKind::Inhibitor, t.inhibitors);
}

std::optional<gspn::Net> GreatSpnReader::run(const ParameterOverrides& overrides) {
  if (!readCounts()) return std::nullopt;
  std::string stem = net_.path.substr(net_.path.find_last_of('/') + 1);
  stem = stem.substr(0, stem.rfind('.'));
  if (!readParameters(markingParameters_, mpars_, "marking parameter") || !readPlaces() ||
      !readParameters(rateParameters_, rpars_, "rate parameter") || !readGroups())
    return std::nullopt;
  records_.resize(transitions_);
  for (TransitionRecord& t : records_)
    if (!readTransition(t)) return std::nullopt;
  readDefinitions();
  if (d_.hasErrors() || dd_.hasErrors()) return std::nullopt;

  NetReader reader(stem.empty() ? "net" : stem, overrides, d_);
  reader.addFile(dd_);
  for (const auto* list : {&mpars_, &rpars_})
    for (const auto& [name, value] : *list)
      reader.parameter(name, {&d_, value.offset}, *parseNumber<double>(value.text));
  reader.endParameters();
  declarePlaces(reader);
  for (const TransitionRecord& t : records_) addTransition(reader, t);
  for (const auto& [name, text] : measures_) {
    const Label label(text.text, text.offset, dd_, Dialect::GreatSpn);
    if (label.ok()) reader.measure(name, {&dd_, text.offset}, label.located());
  }
  return reader.finish();
}

}  // namespace

std::optional<gspn::Net> loadGreatSpn(const SourceFile& net, Diagnostics& netDiagnostics,
                                      const SourceFile& definitions,
                                      Diagnostics& definitionDiagnostics,
                                      const ParameterOverrides& overrides) {
  return GreatSpnReader(net, netDiagnostics, definitions, definitionDiagnostics).run(overrides);
}

}  // namespace mmt::io
