#include "grammar/translation.hpp"

#include <algorithm>
#include <cctype>

#include "gspn/writers.hpp"

namespace mmt::grammar {

void GspnTranslation::emit(std::string_view text, Diagnostics& target, std::size_t origin) {
  spans_.push_back({text_.size(), &target, origin, false});
  text_ += text;
}

void GspnTranslation::copy(std::string_view text, Diagnostics& target, std::size_t origin) {
  spans_.push_back({text_.size(), &target, origin, true});
  text_ += text;
}

bool GspnTranslation::name(const std::string& name, Diagnostics& target, std::size_t origin) {
  if (name.empty() || name.find_first_of("\"\r\n") != std::string::npos) {
    target.error(origin, name.empty() ? "an element has an empty name"
                                      : "the name '" + name +
                                            "' contains a double quote or a line break, "
                                            "which mmt's nets cannot hold");
    emit("_", target, origin);
    return false;
  }
  emit(gspn::textName(name), target, origin);
  return true;
}

std::optional<gspn::Net> GspnTranslation::load(const ParameterOverrides& overrides,
                                               Diagnostics& fallback) const {
  const SourceFile generated{fallback.source().path + " (as .gspn)", text_};
  Diagnostics local(generated);
  auto net = loadGspn(generated, local, overrides);
  for (const Diagnostic& d : local.all()) {
    Diagnostics* target = &fallback;
    std::size_t at = 0;
    // The last span that starts at or before the diagnostic's offset holds it.
    auto it = std::upper_bound(spans_.begin(), spans_.end(), d.offset,
                               [](std::size_t offset, const Span& s) { return offset < s.begin; });
    if (it != spans_.begin() && d.offset > 0) {
      const Span& s = *std::prev(it);
      target = s.target;
      at = s.origin + (s.verbatim ? d.offset - s.begin : 0);
    }
    if (d.severity == Severity::Error)
      target->error(at, d.message);
    else
      target->warning(at, d.message);
  }
  if (local.hasErrors()) return std::nullopt;
  return net;
}

namespace {

/// True when text[i] opens a GreatSPN measure, `E{` or `P{`, not inside a longer name.
bool opensMeasure(std::string_view text, std::size_t i) {
  return (text[i] == 'E' || text[i] == 'P') && i + 1 < text.size() && text[i + 1] == '{' &&
         (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_'));
}

/// Where `text` could be more than one expression once pasted into .gspn text (a `;`, a
/// comment, a quote, a brace, or a parenthesis closed before it opens or never closed),
/// with what the reader should say; nothing when it is safe to paste. A label can then
/// never add or rewire a place or transition, whatever a foreign file puts in it.
std::optional<std::pair<std::size_t, std::string>> notOneExpression(std::string_view text) {
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const std::string_view two = text.substr(i, 2);
    if (two == "//" || two == "/*" || two == "*/")
      return std::pair{i, "a comment ('" + std::string(two) + "') cannot appear in a label"};
    if (c == ';' || c == '"' || c == '{' || c == '}')
      return std::pair{i, std::string("'") + c + "' cannot appear in a label: a label is one "
                                                 "expression"};
    if (c == '(') ++depth;
    if (c == ')' && --depth < 0)
      return std::pair{i, std::string("this ')' closes a parenthesis the label never opened")};
  }
  if (depth > 0) return std::pair{text.size(), std::string("a parenthesis is never closed")};
  return std::nullopt;
}

}  // namespace

void copyExpression(GspnTranslation& out, std::string_view text, Diagnostics& target,
                    std::size_t origin) {
  // Checked on the label with its E{…} and P{…} measures (whose braces are translated
  // below) taken out.
  std::string plain(text);
  for (std::size_t i = 0; i + 1 < plain.size(); ++i)
    if (opensMeasure(plain, i)) {
      const std::size_t close = plain.find('}', i + 2);
      if (close == std::string::npos) break;
      plain[i + 1] = '(';
      plain[close] = ')';
    }
  if (auto problem = notOneExpression(plain)) {
    target.error(origin + std::min(problem->first, text.size()), problem->second);
    out.emit("0", target, origin);  // keeps the generated text well formed
    return;
  }
  std::size_t run = 0;  // start of the pending verbatim run
  auto flush = [&](std::size_t end) {
    if (end > run) out.copy(text.substr(run, end - run), target, origin + run);
  };
  std::vector<char> closers;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#' && i + 1 < text.size() && text[i + 1] == '(') {
      const std::size_t close = text.find(')', i + 2);
      if (close == std::string_view::npos) continue;
      flush(i);
      out.emit("#" + gspn::textName(std::string(text.substr(i + 2, close - i - 2))), target,
               origin + i + 2);
      i = close;
      run = close + 1;
    } else if (opensMeasure(text, i)) {
      flush(i);
      out.emit(c == 'E' ? "mean(" : "prob(", target, origin + i);
      closers.push_back('}');
      ++i;
      run = i + 1;
    } else if (c == '}' && !closers.empty()) {
      flush(i);
      out.emit(")", target, origin + i);
      closers.pop_back();
      run = i + 1;
    }
  }
  flush(text.size());
}

}  // namespace mmt::grammar
