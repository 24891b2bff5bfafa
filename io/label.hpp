#pragma once
/// \file
/// A value a reader found in a file — a PNML rate, a PNPRO attribute, a `.def` block —
/// parsed as one expression of its format's language and positioned in that file, so that
/// every message about it points at the file's own line and column.
///
/// Two languages are read:
/// - mmt's (`Dialect::Mmt`, docs/gspn.md), for PNML, which also takes PIPE's `#(P)`;
/// - GreatSPN's (`Dialect::GreatSpn`, io/greatspn_grammar.hpp), for PNPRO and `.def`
///   files. Its names are read as mmt's: `Min[a, b]` as min(a, b), `If[c, a, b]` and
///   `when c: a; ever b;` as if(c, a, b), `Fract[a, b]` as a / b, `Log[x, b]` as
///   log(x) / log(b), `True`/`False` as 1/0, `a -> b` as !a || b, `a <-> b` as
///   !a == !b, `E{e}` as mean(e), `E{e / c}` as mean(if(c, e, 0)) (DSPN-Tool's conditional
///   reward), `P{c}` as prob(c), `X{T}` as throughput(T); classic GreatSPN's lower-case
///   `fact`, `comb` and `inv` as factorial, binomial and 1 / x. The rest of GreatSPN's
///   functions (`FromList`, `Card`, the general distributions, …) are errors naming them.

#include <string>

#include "grammar/diagnostics.hpp"
#include "grammar/error_handler.hpp"
#include "grammar/expression_ast.hpp"
#include "io/net_reader.hpp"

namespace mmt::io {

enum class Dialect { Mmt, GreatSpn };

class Label {
 public:
  /// Parses `text`, found at `offset` in the file whose diagnostics are `file` (an XML
  /// value after its entities are decoded; a `.def` block as it stands). Errors are
  /// reported in `file`, offset by `offset`.
  Label(std::string text, std::size_t offset, Diagnostics& file, Dialect dialect);
  Label(const Label&) = delete;
  Label& operator=(const Label&) = delete;

  /// False when the text is no expression (the error is reported).
  bool ok() const { return ok_; }
  /// The parsed expression; only when ok().
  Located located() const { return {&expr_, &positions_, file_}; }
  const std::string& text() const { return source_.text; }

 private:
  grammar::SourceFile source_;
  grammar::SourcePositions positions_;
  grammar::ast::Expr expr_;
  Diagnostics* file_;
  bool ok_ = false;
};

}  // namespace mmt::io
