#pragma once
/// \file
/// Arithmetic expressions over token counts, for marking-dependent rates and arc
/// multiplicities ([GSPN95] §6.3; GreatSPN's "marking-dependent" parameters), and over
/// steady-state quantities, for user measures (mean tokens, probability of a condition,
/// throughput: the reward structures of [GSPN95] §6.4).
///
/// An expression is a postfix program evaluated on a small stack, so a rate depending on
/// the marking costs a few instructions per evaluation and no allocation.
/// Booleans are numbers: comparisons give 1 or 0; `&&`, `||`, `!` and `if` treat any
/// non-zero value as true.
///
/// Besides the arithmetic of mmt's languages, the functions of GreatSPN's expression
/// language (its editor's grammar ExprLang.g4 and DSPN-Tool's Language.h): `round` (half
/// away from zero), `factorial(n)` = n! for a whole n >= 0 (NaN otherwise), `binomial(n, k)`
/// = n! / (k! (n - k)!) for whole 0 <= k <= n (0 for whole k outside, NaN when not whole),
/// `mod(a, b)` = fmod(a, b) (the sign of a, as C's `%` on GreatSPN's integers), and the
/// trigonometric functions in radians.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mmt::gspn {

class Expression {
 public:
  enum class Op : std::uint8_t {
    Constant,  // value
    Tokens,    // #place (index)
    Negate,
    Not,
    Floor,
    Ceil,
    Abs,
    Sqrt,
    Log,
    Exp,  // unary
    Round,
    Factorial,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,  // unary (GreatSPN's functions)
    Add,
    Subtract,
    Multiply,
    Divide,
    Power,  // binary arithmetic
    Mod,
    Binomial,  // binary (GreatSPN's functions)
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    Equal,
    NotEqual,
    And,
    Or,
    Min,
    Max,  // n-ary (index = operand count)
    If,   // if(condition, then, else)
    // Measure atoms: only in user measures, evaluated against a steady-state solution.
    Mean,         // E[operand(index)]
    Probability,  // P(operand(index) != 0)
    Throughput,   // X(transition index)
    Measure,      // value of an earlier measure (index)
  };
  struct Instruction {
    Op op;
    std::uint32_t index = 0;
    double value = 0;
  };

  Expression() = default;
  static Expression constant(double value);
  static Expression tokens(std::uint32_t place);

  // Building in postfix order: push the operands, then the operator.
  void push(Instruction instruction);
  /// Adds the marking expression `operand` for a Mean or Probability atom; returns its index.
  std::uint32_t addOperand(Expression operand);

  bool empty() const { return code_.empty(); }
  const std::vector<Instruction>& code() const { return code_; }
  const std::vector<Expression>& operands() const { return operands_; }
  /// True when the expression reads no token count and no measure atom.
  bool isConstant() const;
  /// True when it contains a Mean, Probability, Throughput or Measure atom.
  bool hasMeasureAtoms() const;

  /// c₀ + Σ_p c_p · #p, the form of an expression linear in the token counts.
  struct LinearForm {
    double constant = 0;
    std::vector<std::pair<std::uint32_t, double>> terms;  ///< (place, c_p), places ascending
  };
  /// The expression's linear form when it is built only from constants, token counts,
  /// +, − (binary and unary), products with a constant and quotients by a non-zero
  /// constant; nothing otherwise. Its mean over any distribution of markings is then
  /// c₀ + Σ_p c_p · E[#p], by linearity of expectation.
  std::optional<LinearForm> linearForm() const;

  /// Value in marking m (token counts indexed by place). Measure atoms are an error here.
  double evaluate(std::span<const std::uint32_t> m) const;
  double evaluateConstant() const { return evaluate(std::span<const std::uint32_t>()); }
  /// Value where `tokens(p)` is the amount in place p: real amounts, or places that stand
  /// for something else (the mean-field's counts of replicas, meanfield/population.hpp).
  /// Measure atoms are an error here.
  double evaluate(const std::function<double(std::uint32_t)>& tokens) const;
  /// Value of a measure: `atom` gives the value of each measure atom instruction.
  double evaluateMeasure(
      const std::function<double(const Instruction&, const Expression*)>& atom) const;

  /// How format() spells an expression. `Mmt`: mmt's languages (docs/gspn.md). The two
  /// GreatSPN ones: functions capitalized with square brackets (`Min[a, b]`, `If[c, a, b]`),
  /// `Pow[a, b]` for a ^ b, min and max of more than two nested two by two, and the measure
  /// atoms as `E{…}`, `P{…}`, `X{T}`; `GreatSpnSolver` (the `.def` file, read by
  /// DSPN-Tool and WN) writes `!=` as `/=`, `GreatSpnEditor` (PNPRO) keeps `!=`.
  enum class Notation { Mmt, GreatSpnEditor, GreatSpnSolver };

  /// Infix text; `name(op, index)` names places (#P is written by the caller's callback),
  /// transitions and measures. Parentheses only where precedence needs them.
  std::string format(const std::function<std::string(Op, std::uint32_t)>& name,
                     Notation notation = Notation::Mmt) const;

  friend bool operator==(const Expression&, const Expression&);

 private:
  std::vector<Instruction> code_;
  std::vector<Expression> operands_;
  /// The program evaluate() runs, kept in step with code_ by push(): code_ with every sum
  /// of token counts (#a + #b + #c …, added left to right) fused into one step that adds
  /// them in a loop. A farm's shared rate sums a count per replica: 1,000 workers make
  /// 2,000 instructions of code_ and one step here. A step with `count` > 0 is the sum of
  /// the counts of sumPlaces_[first, first + count); otherwise it is `in`.
  struct Step {
    Instruction in;
    std::uint32_t first = 0, count = 0;
  };
  std::vector<Step> steps_;
  std::vector<std::uint32_t> sumPlaces_;
};

bool operator==(const Expression::Instruction& a, const Expression::Instruction& b);

/// How many values instruction `in` pops: 0 for constants, token counts and measure atoms,
/// 1 for unary functions, `in.index` for min and max, 3 for if, 2 otherwise.
std::size_t operandCount(const Expression::Instruction& in);

/// The places expression e reads (its token counts), ascending, each once.
std::vector<std::uint32_t> placesRead(const Expression& e);

}  // namespace mmt::gspn
