#pragma once
/// \file
/// Abstract syntax tree of a raw GSPN in text form (`.gspn`, described in docs/gspn.md).
/// Nodes that diagnostics point at derive from x3::position_tagged.

#include <optional>
#include <string>
#include <vector>

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

#include "grammar/ast.hpp"

namespace mmt::grammar::gspn_ast {

namespace x3 = boost::spirit::x3;
using ast::Identifier;

struct Call;
struct Unary;
struct Chain;

/// `#P`: the token count of place P.
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

/// `min(a, b)`, `mean(#P)`, `throughput(t)`, `if(c, a, b)`.
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

/// `P * 2` or `P * (#Q + 1)`: an arc and its multiplicity (1 when absent).
struct ArcSpec : x3::position_tagged {
  Identifier place;
  std::optional<Expr> multiplicity;
};

/// `@group`: the element a place or transition belongs to (for Graphviz clusters).
using Group = std::optional<std::string>;

struct NetName : x3::position_tagged {
  Identifier name;
};

struct Param : x3::position_tagged {
  Identifier name;
  Expr value;
};

struct PlaceDecl : x3::position_tagged {
  Identifier name;
  std::optional<Expr> initial;
  Group group;
};

struct Timed : x3::position_tagged {
  Identifier name;
  /// "rate" (then `rate` is the firing rate) or "delay" (then it is a distribution such as
  /// `erlang(3, 2)` or `0.5 + const(4)`).
  std::string timing;
  Expr rate;
  /// `servers 3`, or `servers infinite` (read as the name `infinite`).
  std::optional<Expr> servers;
  Group group;
  std::vector<ArcSpec> inputs, outputs, inhibitors;
};

struct Immediate : x3::position_tagged {
  Identifier name;
  std::optional<Expr> weight;
  std::optional<Expr> priority;
  Group group;
  std::vector<ArcSpec> inputs, outputs, inhibitors;
};

struct MeasureDecl : x3::position_tagged {
  Identifier name;
  Expr value;
};

using Statement = x3::variant<NetName, Param, PlaceDecl, Timed, Immediate, MeasureDecl>;

struct File : x3::position_tagged {
  std::vector<Statement> statements;
};

}  // namespace mmt::grammar::gspn_ast
