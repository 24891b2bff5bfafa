#pragma once
/// \file
/// Abstract syntax of the expressions shared by the system description (`.hdl`) and the
/// raw net format (`.gspn`): numbers, names, token counts `#P`, calls, unary and binary
/// operators (docs/language.md, "Expressions"; docs/gspn.md). One grammar
/// (expression_rules.hpp) builds them and one lowering (expressions.hpp) evaluates them.

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>
#include <string>
#include <vector>

namespace mmt::grammar::ast {

namespace x3 = boost::spirit::x3;

struct Identifier : x3::position_tagged {
  std::string name;
};

struct Call;
struct Unary;
struct Chain;

/// `#P`: the token count of place P (raw nets only).
struct TokenCount : x3::position_tagged {
  Identifier place;
};

struct Number : x3::position_tagged {
  double value = 0;
};

struct Expr : x3::variant<Number, Identifier, TokenCount, x3::forward_ast<Call>,
                          x3::forward_ast<Unary>, x3::forward_ast<Chain>> {
  using base_type::base_type;
  using base_type::operator=;
};

/// `min(a, b)`, `erlang(3, N / P)`, `closed(1)`, `mean(#P)`.
struct Call : x3::position_tagged {
  Identifier function;
  std::vector<Expr> arguments;
};

/// `-x` or `!x`.
struct Unary : x3::position_tagged {
  char op = '-';
  Expr operand;
};

struct Operation {
  std::string op;
  Expr operand;
};

/// `a + b - c`: operands of one precedence level, left to right (`^` folds right).
struct Chain : x3::position_tagged {
  Expr first;
  std::vector<Operation> rest;
};

}  // namespace mmt::grammar::ast
