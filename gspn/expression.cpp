#include "gspn/expression.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace mmt::gspn {
namespace {

using Op = Expression::Op;
using Instruction = Expression::Instruction;

std::size_t arity(const Instruction& in) {
  switch (in.op) {
    case Op::Constant:
    case Op::Tokens:
    case Op::Mean:
    case Op::Probability:
    case Op::Throughput:
    case Op::Measure:
      return 0;
    case Op::Negate:
    case Op::Not:
    case Op::Floor:
    case Op::Ceil:
    case Op::Abs:
    case Op::Sqrt:
    case Op::Log:
    case Op::Exp:
    case Op::Round:
    case Op::Factorial:
    case Op::Sin:
    case Op::Cos:
    case Op::Tan:
    case Op::Asin:
    case Op::Acos:
    case Op::Atan:
      return 1;
    case Op::Min:
    case Op::Max:
      return in.index;
    case Op::If:
      return 3;
    default:
      return 2;
  }
}

/// n! for a whole n >= 0, NaN otherwise (170! is the largest finite double).
double factorial(double n) {
  if (!(n >= 0) || n != std::floor(n)) return std::numeric_limits<double>::quiet_NaN();
  double product = 1;
  for (double k = 2; k <= n && std::isfinite(product); ++k) product *= k;
  return product;
}

/// C(n, k) for whole n and k: 0 when k < 0 or k > n; NaN when either is not whole or n < 0.
/// The product of k factors (n - k + i) / i is exact while the value fits 2^53.
double binomial(double n, double k) {
  if (n != std::floor(n) || k != std::floor(k) || !(n >= 0))
    return std::numeric_limits<double>::quiet_NaN();
  if (k < 0 || k > n) return 0;
  k = std::min(k, n - k);
  double value = 1;
  for (double i = 1; i <= k; ++i) value = value * (n - k + i) / i;
  return value < 9007199254740992.0 ? std::round(value) : value;
}

/// Applies a non-atom operator to its operands (top of stack last).
double apply(const Instruction& in, const double* a) {
  switch (in.op) {
    case Op::Negate:
      return -a[0];
    case Op::Not:
      return a[0] == 0 ? 1 : 0;
    case Op::Floor:
      return std::floor(a[0]);
    case Op::Ceil:
      return std::ceil(a[0]);
    case Op::Abs:
      return std::fabs(a[0]);
    case Op::Sqrt:
      return std::sqrt(a[0]);
    case Op::Log:
      return std::log(a[0]);
    case Op::Exp:
      return std::exp(a[0]);
    case Op::Round:
      return std::round(a[0]);
    case Op::Factorial:
      return factorial(a[0]);
    case Op::Sin:
      return std::sin(a[0]);
    case Op::Cos:
      return std::cos(a[0]);
    case Op::Tan:
      return std::tan(a[0]);
    case Op::Asin:
      return std::asin(a[0]);
    case Op::Acos:
      return std::acos(a[0]);
    case Op::Atan:
      return std::atan(a[0]);
    case Op::Mod:
      return std::fmod(a[0], a[1]);
    case Op::Binomial:
      return binomial(a[0], a[1]);
    case Op::Add:
      return a[0] + a[1];
    case Op::Subtract:
      return a[0] - a[1];
    case Op::Multiply:
      return a[0] * a[1];
    case Op::Divide:
      return a[0] / a[1];
    case Op::Power:
      return std::pow(a[0], a[1]);
    case Op::Less:
      return a[0] < a[1];
    case Op::LessEqual:
      return a[0] <= a[1];
    case Op::Greater:
      return a[0] > a[1];
    case Op::GreaterEqual:
      return a[0] >= a[1];
    case Op::Equal:
      return a[0] == a[1];
    case Op::NotEqual:
      return a[0] != a[1];
    case Op::And:
      return (a[0] != 0 && a[1] != 0) ? 1 : 0;
    case Op::Or:
      return (a[0] != 0 || a[1] != 0) ? 1 : 0;
    case Op::Min:
      return *std::min_element(a, a + in.index);
    case Op::Max:
      return *std::max_element(a, a + in.index);
    case Op::If:
      return a[0] != 0 ? a[1] : a[2];
    default:
      throw std::logic_error("expression: not an operator");
  }
}

/// Runs a postfix program of instructions, or of Expression's steps (an instruction, or a
/// fused sum of token counts: an operand). `leaf` gives the value of each operand.
const Instruction& instructionOf(const Instruction& in) { return in; }
template <typename Step>
const Instruction& instructionOf(const Step& step) {
  return step.in;
}
std::size_t arityOf(const Instruction& in) { return arity(in); }
template <typename Step>
std::size_t arityOf(const Step& step) {
  return step.count > 0 ? 0 : arity(step.in);
}

template <typename Program, typename Leaf>
double run(const Program& code, Leaf&& leaf) {
  std::array<double, 64> fixed;
  std::vector<double> grown;
  double* stack = fixed.data();
  if (code.size() > fixed.size()) {
    grown.resize(code.size());
    stack = grown.data();
  }
  std::size_t top = 0;
  for (const auto& in : code) {
    const std::size_t n = arityOf(in);
    if (n == 0) {
      stack[top++] = leaf(in);
    } else {
      top -= n;
      stack[top] = apply(instructionOf(in), stack + top);
      ++top;
    }
  }
  return top == 1 ? stack[0] : throw std::logic_error("expression: malformed program");
}

int precedence(Op op) {
  switch (op) {
    case Op::Or:
      return 1;
    case Op::And:
      return 2;
    case Op::Equal:
    case Op::NotEqual:
      return 3;
    case Op::Less:
    case Op::LessEqual:
    case Op::Greater:
    case Op::GreaterEqual:
      return 4;
    case Op::Add:
    case Op::Subtract:
      return 5;
    case Op::Multiply:
    case Op::Divide:
      return 6;
    case Op::Negate:
    case Op::Not:
      return 7;
    case Op::Power:
      return 8;
    default:
      return 9;  // atoms and calls
  }
}

const char* symbol(Op op) {
  switch (op) {
    case Op::Add:
      return " + ";
    case Op::Subtract:
      return " - ";
    case Op::Multiply:
      return " * ";
    case Op::Divide:
      return " / ";
    case Op::Power:
      return "^";
    case Op::Less:
      return " < ";
    case Op::LessEqual:
      return " <= ";
    case Op::Greater:
      return " > ";
    case Op::GreaterEqual:
      return " >= ";
    case Op::Equal:
      return " == ";
    case Op::NotEqual:
      return " != ";
    case Op::And:
      return " && ";
    case Op::Or:
      return " || ";
    case Op::Floor:
      return "floor";
    case Op::Ceil:
      return "ceil";
    case Op::Abs:
      return "abs";
    case Op::Sqrt:
      return "sqrt";
    case Op::Log:
      return "log";
    case Op::Exp:
      return "exp";
    case Op::Min:
      return "min";
    case Op::Max:
      return "max";
    case Op::If:
      return "if";
    case Op::Round:
      return "round";
    case Op::Factorial:
      return "factorial";
    case Op::Sin:
      return "sin";
    case Op::Cos:
      return "cos";
    case Op::Tan:
      return "tan";
    case Op::Asin:
      return "asin";
    case Op::Acos:
      return "acos";
    case Op::Atan:
      return "atan";
    case Op::Mod:
      return "mod";
    case Op::Binomial:
      return "binomial";
    default:
      return "?";
  }
}

/// Shortest text that reads back to the same double.
/// The shortest decimal text that reads back to exactly v ("10", "0.1", "1e-12").
std::string formatNumber(double v) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, end);
}

}  // namespace

void Expression::push(Instruction instruction) {
  code_.push_back(instruction);
  // `x #b +`, x a count or a sum of counts just before #b: x's counts and b's as one sum.
  // x's places are the last of sumPlaces_ (any sum made after x would be #b itself).
  const std::size_t n = steps_.size();
  if (instruction.op == Op::Add && n >= 2 && steps_[n - 1].count == 0 &&
      steps_[n - 1].in.op == Op::Tokens &&
      (steps_[n - 2].count > 0 || steps_[n - 2].in.op == Op::Tokens)) {
    Step& x = steps_[n - 2];
    if (x.count == 0) {
      x.first = static_cast<std::uint32_t>(sumPlaces_.size());
      x.count = 1;
      sumPlaces_.push_back(x.in.index);
    }
    sumPlaces_.push_back(steps_[n - 1].in.index);
    ++x.count;
    steps_.pop_back();
    return;
  }
  steps_.push_back({instruction});
}

Expression Expression::constant(double value) {
  Expression e;
  e.push({Op::Constant, 0, value});
  return e;
}

Expression Expression::tokens(std::uint32_t place) {
  Expression e;
  e.push({Op::Tokens, place, 0});
  return e;
}

std::uint32_t Expression::addOperand(Expression operand) {
  operands_.push_back(std::move(operand));
  return static_cast<std::uint32_t>(operands_.size() - 1);
}

bool Expression::isConstant() const {
  return std::all_of(code_.begin(), code_.end(),
                     [](const Instruction& in) { return arity(in) > 0 || in.op == Op::Constant; });
}

bool Expression::hasMeasureAtoms() const {
  return std::any_of(code_.begin(), code_.end(), [](const Instruction& in) {
    return in.op == Op::Mean || in.op == Op::Probability || in.op == Op::Throughput ||
           in.op == Op::Measure;
  });
}

std::optional<Expression::LinearForm> Expression::linearForm() const {
  // The same stack machine as evaluate, on linear forms instead of numbers.
  std::vector<LinearForm> stack;
  auto scale = [](LinearForm& f, double c) {
    f.constant *= c;
    for (auto& term : f.terms) term.second *= c;
  };
  auto add = [](LinearForm a, const LinearForm& b, double sign) {
    LinearForm out{a.constant + sign * b.constant, {}};
    std::size_t i = 0, k = 0;
    while (i < a.terms.size() || k < b.terms.size()) {
      if (k == b.terms.size() || (i < a.terms.size() && a.terms[i].first < b.terms[k].first))
        out.terms.push_back(a.terms[i++]);
      else if (i == a.terms.size() || b.terms[k].first < a.terms[i].first)
        out.terms.emplace_back(b.terms[k].first, sign * b.terms[k].second), ++k;
      else
        out.terms.emplace_back(a.terms[i].first, a.terms[i].second + sign * b.terms[k].second), ++i,
            ++k;
    }
    return out;
  };
  for (const Instruction& in : code_) {
    switch (in.op) {
      case Op::Constant:
        stack.push_back({in.value, {}});
        continue;
      case Op::Tokens:
        stack.push_back({0, {{in.index, 1.0}}});
        continue;
      case Op::Negate:
        scale(stack.back(), -1);
        continue;
      case Op::Add:
      case Op::Subtract:
      case Op::Multiply:
      case Op::Divide:
        break;
      default:
        return std::nullopt;
    }
    LinearForm b = std::move(stack.back());
    stack.pop_back();
    LinearForm& a = stack.back();
    if (in.op == Op::Add || in.op == Op::Subtract) {
      a = add(std::move(a), b, in.op == Op::Add ? 1 : -1);
    } else if (in.op == Op::Divide) {
      if (!b.terms.empty() || b.constant == 0) return std::nullopt;
      a.constant /= b.constant;
      for (auto& term : a.terms) term.second /= b.constant;
    } else if (b.terms.empty()) {
      scale(a, b.constant);
    } else if (a.terms.empty()) {
      scale(b, a.constant);
      a = std::move(b);
    } else {
      return std::nullopt;
    }
  }
  if (stack.size() != 1) return std::nullopt;
  return std::move(stack.back());
}

double Expression::evaluate(std::span<const std::uint32_t> m) const {
  auto count = [&](std::uint32_t place) -> double {
    if (place >= m.size()) throw std::logic_error("expression: token count needs a marking");
    return m[place];
  };
  return run(steps_, [&](const Step& step) -> double {
    if (step.count > 0) {
      // Whole counts: their sum is the same in any order, exact below 2^53.
      std::uint64_t sum = 0;
      for (std::uint32_t k = step.first; k < step.first + step.count; ++k)
        sum += static_cast<std::uint64_t>(count(sumPlaces_[k]));
      return static_cast<double>(sum);
    }
    if (step.in.op == Op::Constant) return step.in.value;
    if (step.in.op == Op::Tokens) return count(step.in.index);
    throw std::logic_error("expression: a measure atom in a marking expression");
  });
}

double Expression::evaluate(const std::function<double(std::uint32_t)>& tokens) const {
  return run(code_, [&](const Instruction& in) -> double {
    if (in.op == Op::Constant) return in.value;
    if (in.op == Op::Tokens) return tokens(in.index);
    throw std::logic_error("expression: a measure atom in a marking expression");
  });
}

double Expression::evaluateMeasure(
    const std::function<double(const Instruction&, const Expression*)>& atom) const {
  return run(code_, [&](const Instruction& in) -> double {
    if (in.op == Op::Constant) return in.value;
    const bool hasOperand = in.op == Op::Mean || in.op == Op::Probability;
    return atom(in, hasOperand ? &operands_[in.index] : nullptr);
  });
}

namespace {

/// GreatSPN's name of a function (its editor's ExprLang.g4, DSPN-Tool's lexer.ll).
std::string greatSpnName(Op op) {
  std::string n = symbol(op);
  if (op == Op::Power) return "Pow";
  n[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(n[0])));
  return n;
}

}  // namespace

std::string Expression::format(const std::function<std::string(Op, std::uint32_t)>& name,
                               Notation notation) const {
  const bool greatSpn = notation != Notation::Mmt;
  struct Piece {
    std::string text;
    int precedence;
  };
  std::vector<Piece> stack;
  auto wrap = [](const Piece& p, int needed) {
    return p.precedence < needed ? "(" + p.text + ")" : p.text;
  };
  for (const Instruction& in : code_) {
    const std::size_t n = arity(in);
    if (n == 0) {
      std::string text;
      switch (in.op) {
        case Op::Constant:
          text = formatNumber(in.value);
          break;
        case Op::Mean:
          text = (greatSpn ? "E{" : "mean(") + operands_[in.index].format(name, notation) +
                 (greatSpn ? "}" : ")");
          break;
        case Op::Probability:
          text = (greatSpn ? "P{" : "prob(") + operands_[in.index].format(name, notation) +
                 (greatSpn ? "}" : ")");
          break;
        case Op::Throughput:
          text = (greatSpn ? "X{" : "throughput(") + name(in.op, in.index) + (greatSpn ? "}" : ")");
          break;
        default:
          text = name(in.op, in.index);
          break;
      }
      // A negative literal reads back as a negation: give it the same precedence.
      stack.push_back({text, in.op == Op::Constant && in.value < 0 ? 7 : 9});
      continue;
    }
    std::vector<Piece> args(stack.end() - static_cast<std::ptrdiff_t>(n), stack.end());
    stack.resize(stack.size() - n);
    const int p = precedence(in.op);
    std::string text;
    if (in.op == Op::Negate || in.op == Op::Not) {
      text = (in.op == Op::Negate ? "-" : "!") + wrap(args[0], p + 1);
    } else if (greatSpn && (p == 9 || in.op == Op::Power)) {
      // Square brackets; Min and Max take two arguments.
      const std::string f = greatSpnName(in.op);
      text = f + "[" + args[0].text;
      for (std::size_t i = 1; i < n; ++i) {
        text += ", " + args[i].text + "]";
        if (i + 1 < n && (in.op == Op::Min || in.op == Op::Max))
          text = f + "[" + text;
        else if (i + 1 < n)
          text.pop_back();
      }
      if (n == 1) text += "]";
      stack.push_back({text, 9});
      continue;
    } else if (p == 9) {  // a call
      text = std::string(symbol(in.op)) + "(";
      for (std::size_t i = 0; i < n; ++i) text += (i ? ", " : "") + args[i].text;
      text += ")";
    } else if (notation == Notation::GreatSpnSolver && in.op == Op::NotEqual) {
      text = wrap(args[0], p) + " /= " + wrap(args[1], p + 1);
    } else {
      // Left-associative: the right operand needs parentheses at equal precedence.
      // Power is right-associative: the left one does.
      const bool right = in.op == Op::Power;
      text = wrap(args[0], right ? p + 1 : p) + symbol(in.op) + wrap(args[1], right ? p : p + 1);
    }
    stack.push_back({text, p});
  }
  return stack.empty() ? "" : stack.back().text;
}

bool operator==(const Expression::Instruction& a, const Expression::Instruction& b) {
  return a.op == b.op && a.index == b.index && a.value == b.value;
}

bool operator==(const Expression& a, const Expression& b) {
  return a.code_ == b.code_ && a.operands_ == b.operands_;
}

std::size_t operandCount(const Expression::Instruction& in) { return arity(in); }

std::vector<std::uint32_t> placesRead(const Expression& e) {
  std::vector<std::uint32_t> out;
  for (const Instruction& in : e.code())
    if (in.op == Op::Tokens) out.push_back(in.index);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace mmt::gspn
