#pragma once
/// \file
/// Abstract syntax tree of a raw GSPN in text form (`.gspn`, described in docs/gspn.md).
/// Nodes that diagnostics point at derive from x3::position_tagged.

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>
#include <optional>
#include <string>
#include <vector>

#include "grammar/expression_ast.hpp"

namespace mmt::grammar::gspn_ast {

namespace x3 = boost::spirit::x3;
using ast::Call;
using ast::Chain;
using ast::Expr;
using ast::Identifier;
using ast::Number;
using ast::Operation;
using ast::TokenCount;
using ast::Unary;

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
  /// `guard #P > 2`: enabled only where the expression is non-zero.
  std::optional<Expr> guard;
  Group group;
  std::vector<ArcSpec> inputs, outputs, inhibitors;
};

struct Immediate : x3::position_tagged {
  Identifier name;
  std::optional<Expr> weight;
  std::optional<Expr> priority;
  std::optional<Expr> guard;
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
