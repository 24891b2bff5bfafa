#pragma once
/// \file
/// Abstract syntax tree of a system description (`.hdl`). Every node that can be named in
/// a diagnostic derives from x3::position_tagged; `SourcePositions` maps it back to text.
/// The concrete syntax is summarised in docs/language.md.

#include <string>
#include <vector>

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

namespace mmt::grammar::ast {

namespace x3 = boost::spirit::x3;

struct Identifier : x3::position_tagged {
  std::string name;
};

/// `closed(1)`, `exp(4)`: a name applied to numbers.
struct Call : x3::position_tagged {
  Identifier function;
  std::vector<double> arguments;
};

/// The right-hand side of a property: a number, a name, or a call.
struct Value : x3::variant<double, Identifier, Call> {
  using base_type::base_type;
  using base_type::operator=;
};

/// `key: value;`
struct Property : x3::position_tagged {
  Identifier key;
  Value value;
};
using Properties = std::vector<Property>;

/// `processor P1 { policy: fcfs; speed: 1; }`
struct Processor : x3::position_tagged {
  Identifier name;
  Properties properties;
};

/// `link L12 (P1, P2) { kind: circuit; bandwidth: 1; }`
struct Link : x3::position_tagged {
  Identifier name;
  std::vector<Identifier> ends;
  Properties properties;
};

/// `actor A1 { demand: 4; }`
struct Actor : x3::position_tagged {
  Identifier name;
  Properties properties;
};

/// `data D1;`
struct DataNode : x3::position_tagged {
  Identifier name;
  Properties properties;
};

/// `A1 -> D1 { size: 20; }` (a write arc) or `D1 -> A2 { size: 10; }` (a read arc).
struct Arc : x3::position_tagged {
  Identifier from;
  Identifier to;
  Properties properties;
};

/// `A1, D1 on P1;`
struct Placement : x3::position_tagged {
  std::vector<Identifier> elements;
  Identifier processor;
};

/// `D1 -> A3 via L12, L23;`
struct Route : x3::position_tagged {
  Identifier from;
  Identifier to;
  std::vector<Identifier> links;
};

using Item = x3::variant<Processor, Link, Actor, DataNode, Arc, Placement, Route>;

/// `hardware { ... }`, `application { ... }` or `mapping { ... }`.
struct Section : x3::position_tagged {
  std::string keyword;
  std::vector<Item> items;
};

/// A section, or a system-level property such as `workload: closed(1);`.
struct SystemItem : x3::variant<Section, Property> {
  using base_type::base_type;
  using base_type::operator=;
};

/// `system NAME { ... }`
struct System : x3::position_tagged {
  Identifier name;
  std::vector<SystemItem> items;
};

}  // namespace mmt::grammar::ast
