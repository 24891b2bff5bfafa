#pragma once
/// \file
/// What the parser knows about positions and errors: the x3::position_cache that ties AST
/// nodes to source ranges (filled by `annotate_on_success`), and the recovery policy that
/// lets one parse report every syntax error instead of only the first.

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/utility/error_reporting.hpp>
#include <functional>
#include <string>
#include <vector>

#include "grammar/diagnostics.hpp"

namespace mmt::grammar {

namespace x3 = boost::spirit::x3;
using Iterator = std::string::const_iterator;

/// Maps position-tagged AST nodes to byte offsets in their source. A text cut out of a
/// larger file (a label of an XML file) is positioned by `base`, where it starts there.
class SourcePositions {
 public:
  explicit SourcePositions(const SourceFile& source, std::size_t base = 0)
      : source_(&source), base_(base) {}
  template <typename Node>
  void tag(Node& node, Iterator first, Iterator last) {
    cache_.annotate(node, first, last);
  }
  /// Offset of the first character of `node` (0 for an untagged node).
  std::size_t offsetOf(const x3::position_tagged& node) const {
    if (node.id_first < 0) return base_;
    auto range = cache_.position_of(node);
    return base_ + static_cast<std::size_t>(skipBlanks(range.begin(), source_->text.end()) -
                                            source_->text.begin());
  }

 private:
  const SourceFile* source_;
  std::size_t base_;
  x3::position_cache<std::vector<Iterator>> cache_{source_->text.begin(), source_->text.end()};
};

/// The object the parser's rules find under x3::error_handler_tag.
struct ParseHandler {
  Diagnostics& diagnostics;
  SourcePositions& positions;
  Iterator begin;

  template <typename Node>
  void tag(Node& node, Iterator first, Iterator last) {
    positions.tag(node, first, last);
  }
  std::size_t offset(Iterator it) const { return static_cast<std::size_t>(it - begin); }
  /// Reports "expected WHAT but found TOKEN" at the first token at or after `where`.
  void expected(Iterator where, Iterator last, const std::string& what) {
    Iterator at = skipBlanks(where, last);
    diagnostics.syntaxError(offset(at),
                            "expected " + what + " but found " + describeToken(at, last));
  }
};

namespace parser {

/// Stop reporting after this many syntax errors: later ones are mostly echoes.
inline constexpr std::size_t kMaxSyntaxErrors = 50;

/// Where to resume after an error inside a statement: just after the next `;` or braced
/// block at the statement's own level, or just before the `}` that closes the enclosing
/// block.
inline Iterator resumePoint(Iterator where, Iterator last) {
  int depth = 0;
  for (Iterator it = skipBlanks(where, last); it != last; it = skipBlanks(it + 1, last)) {
    if (*it == '{') {
      ++depth;
    } else if (*it == '}') {
      if (depth == 0) return it;
      if (--depth == 0) return it + 1;
    } else if (*it == ';' && depth == 0) {
      return it + 1;
    }
  }
  return last;
}

/// on_error policy for statement rules (properties, items, sections): report the error,
/// skip to the end of the statement and carry on as if it had parsed. The skip always
/// consumes at least one token, so recovery cannot loop: the loops inside blocks guard
/// with `!lit('}')`, and a `TopLevel` statement (one that no block encloses, as in a .gspn
/// file) skips a stray `}`. At the end of the input there is nothing to resume: the
/// failure goes up to report_and_fail.
template <bool TopLevel>
struct recover_at {
  template <typename Exception, typename Context>
  x3::error_handler_result on_error(Iterator& first, const Iterator& last, const Exception& x,
                                    const Context& context) {
    ParseHandler& handler = x3::get<x3::error_handler_tag>(context).get();
    handler.expected(x.where(), last, x.which());
    Iterator resume = resumePoint(x.where(), last);
    // Where no block can be open, a '}' is stray: skip it, or the same statement would
    // fail at it forever.
    if (TopLevel && resume != last && *resume == '}') ++resume;
    // Nothing left to resume at: let the enclosing rules see the same failure (their
    // reports at the same position are dropped), so no later rule misreads the input.
    if (resume == last || handler.diagnostics.errorCount() >= kMaxSyntaxErrors)
      return x3::error_handler_result::rethrow;
    first = resume;
    return x3::error_handler_result::accept;
  }
};
using recover_at_statement_end = recover_at<false>;
using recover_at_top_level_statement_end = recover_at<true>;

/// on_error policy for the whole file: report and stop.
struct report_and_fail {
  template <typename Exception, typename Context>
  x3::error_handler_result on_error(Iterator& first, const Iterator& last, const Exception& x,
                                    const Context& context) {
    x3::get<x3::error_handler_tag>(context).get().expected(x.where(), last, x.which());
    return x3::error_handler_result::fail;
  }
};

}  // namespace parser
}  // namespace mmt::grammar
