#pragma once
/// \file
/// The one evaluator of the expressions both languages share (expression_ast.hpp): lowers
/// an expression to a gspn::Expression (postfix), reporting every mistake at its position.
/// What a *name* means is the language's business (a parameter, a loop index, a measure),
/// and so are token counts and throughputs: a subclass says, through the three hooks.
///
/// Functions: min, max (two or more arguments), floor, ceil, abs, sqrt, log, exp, if(c, a,
/// b); operators + - * / ^ (right-associative), comparisons, && || !. A delay or demand may
/// be a distribution (gspn/distribution.hpp) plus constants: `0.5 + erlang(3, N / P)`;
/// there a call to a distribution's name is the distribution, so `exp(4)` is the
/// exponential of mean 4 and not e⁴ (docs/language.md, "Expressions").

#include <cstdint>
#include <optional>
#include <string>

#include "grammar/diagnostics.hpp"
#include "grammar/error_handler.hpp"
#include "grammar/expression_ast.hpp"
#include "gspn/distribution.hpp"
#include "gspn/expression.hpp"

namespace mmt::grammar {

/// What an expression may contain where it appears.
enum class ExpressionContext {
  Constant,  ///< constants and names only (parameters, loop indices)
  Marking,   ///< plus token counts (rates, multiplicities, inside mean/prob)
  Measure,   ///< plus measure atoms, but token counts only inside mean/prob
};

class ExpressionLowering {
 public:
  using Context = ExpressionContext;

  ExpressionLowering(const SourcePositions& positions, Diagnostics& diagnostics)
      : positions_(positions), diagnostics_(diagnostics) {}
  virtual ~ExpressionLowering() = default;

  /// Lowers `e` into `out` (postfix). Returns false after reporting an error.
  bool lower(const ast::Expr& e, Context context, gspn::Expression& out);
  std::optional<gspn::Expression> expression(const ast::Expr& e, Context context);
  /// A constant expression's finite value, or nothing after an error naming `what`.
  std::optional<double> constant(const ast::Expr& e, const std::string& what);
  /// A whole number between `least` and 4294967295 (a token count), or nothing after an error.
  std::optional<std::uint32_t> count(const ast::Expr& e, const std::string& what,
                                     std::uint32_t least);
  /// A distribution call plus constants (`erlang(3, 2)`, `0.5 + const(4)`); an error when
  /// the expression names no distribution.
  std::optional<gspn::Distribution> distribution(const ast::Expr& e);

  void error(const x3::position_tagged& node, std::string message);
  std::size_t offsetOf(const x3::position_tagged& node) const { return positions_.offsetOf(node); }
  Diagnostics& diagnostics() { return diagnostics_; }

 protected:
  /// A name in an expression: push its value into `out`, or report and return false.
  virtual bool name(const ast::Identifier& id, Context context, gspn::Expression& out) = 0;
  /// `#P`, only asked in the Marking context. Default: no places here.
  virtual bool tokenCount(const ast::TokenCount& count, gspn::Expression& out);
  /// `throughput(t)`, only asked in the Measure context. Default: no transitions here.
  virtual bool throughput(const ast::Identifier& transition, gspn::Expression& out);

 private:
  bool lowerChain(const ast::Chain& chain, Context context, gspn::Expression& out);
  bool lowerCall(const ast::Call& call, Context context, gspn::Expression& out);

  const SourcePositions& positions_;
  Diagnostics& diagnostics_;
};

/// The expression seen through the chains of one operand that each precedence level of
/// the grammar wraps it in.
const ast::Expr& unwrap(const ast::Expr& e);
/// The name an expression consists of, if it is just a name (seen through unwrap).
const ast::Identifier* asName(const ast::Expr& e);
/// The call an expression consists of, if it is just a call (seen through unwrap).
const ast::Call* asCall(const ast::Expr& e);
/// The position-tagged node an expression starts with, for messages about the whole value.
const x3::position_tagged& anchor(const ast::Expr& e);
/// True for min, max, floor, ceil, abs, sqrt, log, exp and if.
bool isArithmeticFunction(const std::string& name);
/// True when `e` is a sum of terms one of which calls a distribution (`0.5 + const(4)`),
/// the form `ExpressionLowering::distribution` reads.
bool callsDistribution(const ast::Expr& e);

/// Why v cannot be a count (an initial marking, an arc multiplicity, servers) of at least
/// `least`, as gspn::Tokens holds them: "an integer of at least 1, not 0.5", "at most
/// 4294967295, not 4294967297"; nothing when it can.
std::optional<std::string> tokenCountProblem(double v, std::uint32_t least);

}  // namespace mmt::grammar
