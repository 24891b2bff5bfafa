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

void copyExpression(GspnTranslation& out, std::string_view text, Diagnostics& target,
                    std::size_t origin) {
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
    } else if ((c == 'E' || c == 'P') && i + 1 < text.size() && text[i + 1] == '{' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                            text[i - 1] == '_'))) {
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
