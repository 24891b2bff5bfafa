#include "grammar/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace mmt::grammar {

namespace {
/// Levenshtein distance, for "did you mean" hints.
std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string suggestion(std::string_view wrong, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t bestDistance = std::max<std::size_t>(2, wrong.size() / 3) + 1;
  for (const std::string& c : candidates)
    if (std::size_t d = editDistance(wrong, c); d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string unknownName(const std::string& kind, const std::string& name,
                        const std::vector<std::string>& known) {
  return "unknown " + kind + " '" + name + "'" + suggestion(name, known) +
         " (known: " + join(known) + ")";
}

SourceFile readSourceFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw std::runtime_error("cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  std::ostringstream text;
  if (in.peek() != std::ifstream::traits_type::eof() && !(text << in.rdbuf()))
    throw std::runtime_error("cannot read '" + path + "'");
  std::string content = text.str();
  // A UTF-8 byte-order mark, as some editors write: not part of the text (columns on the
  // first line count from after it, as editors show them).
  if (content.starts_with("\xEF\xBB\xBF")) content.erase(0, 3);
  return SourceFile{path, std::move(content)};
}

void Diagnostics::add(Severity severity, std::size_t offset, std::string message, bool anyMessage) {
  offset = std::min(offset, source_->text.size());
  for (const Diagnostic& d : diagnostics_)
    if (d.offset == offset && d.severity == severity && (anyMessage || d.message == message))
      return;
  diagnostics_.push_back({severity, offset, std::move(message)});
}

void Diagnostics::error(std::size_t offset, std::string message) {
  add(Severity::Error, offset, std::move(message));
}

void Diagnostics::syntaxError(std::size_t offset, std::string message) {
  add(Severity::Error, offset, std::move(message), /*anyMessage=*/true);
}

void Diagnostics::warning(std::size_t offset, std::string message) {
  add(Severity::Warning, offset, std::move(message));
}

bool Diagnostics::hasErrors() const { return errorCount() > 0; }

std::size_t Diagnostics::errorCount() const {
  return std::count_if(diagnostics_.begin(), diagnostics_.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

std::pair<std::size_t, std::size_t> Diagnostics::locate(std::size_t offset) const {
  const std::string& text = source_->text;
  std::size_t line = 1, lineStart = 0;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  return {line, offset - lineStart + 1};
}

void Diagnostics::print(std::ostream& out) const {
  std::vector<Diagnostic> sorted = diagnostics_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.offset < b.offset; });
  const std::string& text = source_->text;
  for (const Diagnostic& d : sorted) {
    auto [line, column] = locate(d.offset);
    out << source_->path << ':' << line << ':' << column << ": "
        << (d.severity == Severity::Error ? "error" : "warning") << ": " << d.message << '\n';
    const std::size_t begin = d.offset - (column - 1);
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string sourceLine = text.substr(begin, end - begin);
    // A long line (generated, or minified) is cut to a window around the column.
    constexpr std::size_t kWindow = 160;
    std::size_t caret = column - 1;
    if (sourceLine.size() > kWindow + 40) {
      const std::size_t from = caret > kWindow / 2 ? caret - kWindow / 2 : 0;
      const bool cutLeft = from > 0, cutRight = from + kWindow < sourceLine.size();
      sourceLine =
          (cutLeft ? "..." : "") + sourceLine.substr(from, kWindow) + (cutRight ? "..." : "");
      caret = caret - from + (cutLeft ? 3 : 0);
    }
    out << "  " << sourceLine << "\n  ";
    for (std::size_t i = 0; i < caret && i < sourceLine.size(); ++i)
      out << (sourceLine[i] == '\t' ? '\t' : ' ');
    out << "^\n";
  }
}

std::string Diagnostics::str() const {
  std::ostringstream out;
  print(out);
  return out.str();
}

std::string::const_iterator skipBlanks(std::string::const_iterator first,
                                       std::string::const_iterator last) {
  for (;;) {
    while (first != last && std::isspace(static_cast<unsigned char>(*first))) ++first;
    if (last - first >= 2 && first[0] == '/' && first[1] == '/') {
      while (first != last && *first != '\n') ++first;
    } else if (last - first >= 2 && first[0] == '/' && first[1] == '*') {
      constexpr std::string_view closer = "*/";
      auto close = std::search(first + 2, last, closer.begin(), closer.end());
      if (close == last) return first;  // unterminated: leave it for the parser to report
      first = close + 2;
    } else {
      return first;
    }
  }
}

bool checkNesting(const SourceFile& source, Diagnostics& diagnostics) {
  const std::string& text = source.text;
  const auto begin = text.begin(), last = text.end();
  std::size_t brackets = 0, prefixRun = 0, powers = 0;
  auto tooDeep = [&](std::string::const_iterator at, const std::string& what) {
    diagnostics.error(static_cast<std::size_t>(at - begin),
                      what + " nest deeper than " + std::to_string(kMaxNesting) +
                          " levels, the most mmt reads (it keeps the parser's stack safe)");
    return false;
  };
  for (auto it = begin; (it = skipBlanks(it, last)) != last; ++it) {
    if (last - it >= 2 && it[0] == '/' && it[1] == '*')
      return true;  // unterminated: the parser says so
    const char c = *it;
    if (c == '-' || c == '+' || c == '!' || c == '~') {
      if (++prefixRun > kMaxNesting) return tooDeep(it, "prefix operators (- + ! ~)");
      continue;
    }
    prefixRun = 0;
    if (c == '(' || c == '[' || c == '{') {
      if (++brackets > kMaxNesting) return tooDeep(it, "brackets");
    } else if (c == ')' || c == ']' || c == '}') {
      if (brackets > 0) --brackets;
    } else if (c == '^') {
      if (++powers > kMaxNesting) return tooDeep(it, "powers (^, right-associative)");
    } else if (c == ';') {
      powers = 0;
    }
  }
  return true;
}

std::string describeToken(std::string::const_iterator where, std::string::const_iterator last) {
  if (where == last) return "end of file";
  if (last - where >= 2 && where[0] == '/' && where[1] == '*')
    return "'/*', a comment that is never closed with '*/'";
  auto isName = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto isNumber = [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
           c == '-' || c == '+';
  };
  auto end = where + 1;
  if (isName(*where)) {
    bool numeric = std::isdigit(static_cast<unsigned char>(*where));
    while (end != last && (numeric ? isNumber(*end) : isName(*end))) ++end;
  } else if (*where == '-' && end != last && *end == '>') {
    ++end;
  }
  return "'" + std::string(where, end) + "'";
}

}  // namespace mmt::grammar
