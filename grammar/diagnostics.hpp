#pragma once
/// \file
/// Source text and the diagnostics reported against it. Diagnostics are collected, then
/// printed sorted by position, each as `file:line:col: error: message`, the source line and
/// a caret under the column — all at once, so a user fixes every mistake in one pass.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace mmt::grammar {

struct SourceFile {
  std::string path;  ///< as shown in diagnostics
  std::string text;
};

/// Reads a file; throws std::runtime_error naming it when it cannot be read.
SourceFile readSourceFile(const std::string& path);

enum class Severity { Error, Warning };

struct Diagnostic {
  Severity severity;
  std::size_t offset;  ///< byte offset into the source text
  std::string message;
};

class Diagnostics {
 public:
  explicit Diagnostics(const SourceFile& source) : source_(&source) {}

  /// Records an error at `offset` (the same message at the same offset only once).
  void error(std::size_t offset, std::string message);
  void warning(std::size_t offset, std::string message);
  /// Records a syntax error unless one is already recorded at `offset`: a parse failure is
  /// reported again by every enclosing rule, each time as another "expected …".
  void syntaxError(std::size_t offset, std::string message);

  bool hasErrors() const;
  std::size_t errorCount() const;
  const std::vector<Diagnostic>& all() const { return diagnostics_; }
  const SourceFile& source() const { return *source_; }

  /// 1-based line and column (in bytes) of an offset.
  std::pair<std::size_t, std::size_t> locate(std::size_t offset) const;

  /// Prints every diagnostic, sorted by position.
  void print(std::ostream& out) const;
  std::string str() const;

 private:
  /// Adds the diagnostic unless one of the same severity at the same offset with the same
  /// message (or, `anyMessage`, with any message) is there already.
  void add(Severity severity, std::size_t offset, std::string message, bool anyMessage = false);
  const SourceFile* source_;
  std::vector<Diagnostic> diagnostics_;
};

/// "; did you mean 'X'?" for the candidate closest to `wrong` in edit distance, or "" when
/// none is close (at most max(2, |wrong|/3) edits).
std::string suggestion(std::string_view wrong, const std::vector<std::string>& candidates);
/// "a, b, c".
std::string join(const std::vector<std::string>& words);
/// "unknown KIND 'NAME'; did you mean 'X'? (known: A, B, C)", for a name outside a fixed
/// list such as the functions or the distributions.
std::string unknownName(const std::string& kind, const std::string& name,
                        const std::vector<std::string>& known);

/// Skips white space and comments (`// ...`, `/* ... */`) as the parser's skipper does.
std::string::const_iterator skipBlanks(std::string::const_iterator first,
                                       std::string::const_iterator last);

/// How deeply a text may nest before the parser, which recurses once per level, is not
/// asked to read it: brackets ( [ {, a run of prefix operators (- + ! ~), and the
/// right-associative ^ within one statement. 3,000 parentheses or 100,000 minus signs
/// overflowed the stack; 256 levels cost the parser well under 1 MB of it.
inline constexpr std::size_t kMaxNesting = 256;

/// Reports, at its position, the first place where `source` nests deeper than kMaxNesting
/// (comments are skipped as the parser skips them). Returns false when it does.
bool checkNesting(const SourceFile& source, Diagnostics& diagnostics);

/// The token at `where`, for messages: a name, a number, `->`, one character, or
/// "end of file".
std::string describeToken(std::string::const_iterator where, std::string::const_iterator last);

}  // namespace mmt::grammar
