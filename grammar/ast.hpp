#pragma once
/// \file
/// Abstract syntax tree of a system description (`.hdl`). Every node that can be named in
/// a diagnostic derives from x3::position_tagged; `SourcePositions` maps it back to text.
/// The concrete syntax is summarised in docs/language.md. Values are expressions
/// (expression_ast.hpp); loops, conditions and indexed names are expanded by the
/// compiler's elaborate pass.

#include <optional>
#include <string>
#include <vector>

#include "grammar/expression_ast.hpp"

namespace mmt::grammar::ast {

/// `[i]` or, in a list of names, `[1..P]`.
struct Subscript : x3::position_tagged {
  Expr from;
  std::optional<Expr> to;
};

/// `A`, `A[i]`, `N[x][y + 1]`, `W[1..P]`.
struct Name : x3::position_tagged {
  Identifier base;
  std::vector<Subscript> subscripts;
};

/// `key: value;`
struct Property : x3::position_tagged {
  Identifier key;
  Expr value;
};
using Properties = std::vector<Property>;

/// `processor P1 { policy: fcfs; speed: 1; }`
struct Processor : x3::position_tagged {
  Name name;
  Properties properties;
};

/// `link L12 (P1, P2) { kind: circuit; bandwidth: 1; }`
struct Link : x3::position_tagged {
  Name name;
  std::vector<Name> ends;
  Properties properties;
};

/// `actor A1 { demand: 4; }`
struct Actor : x3::position_tagged {
  Name name;
  Properties properties;
};

/// `data D1;`
struct DataNode : x3::position_tagged {
  Name name;
  Properties properties;
};

/// `A1 -> D1 { size: 20; }` (a write arc) or `D1 -> A2 { size: 10; }` (a read arc).
struct Arc : x3::position_tagged {
  Name from;
  Name to;
  Properties properties;
};

/// `A1, D1 on P1;`
struct Placement : x3::position_tagged {
  std::vector<Name> elements;
  Name processor;
};

/// `D1 -> A3 via L12, L23;`
struct Route : x3::position_tagged {
  Name from;
  Name to;
  std::vector<Name> links;
};

struct Loop;
struct Conditional;
struct Skeleton;
struct SkeletonLoop;
struct SkeletonIf;

/// What a skeleton's braces hold: its properties and its stages or worker; a pipeline's
/// stages may come from `for` and `if`.
using SkeletonMember = x3::variant<Property, x3::forward_ast<Skeleton>,
                                   x3::forward_ast<SkeletonLoop>, x3::forward_ast<SkeletonIf>>;

/// `for i in 1..N { task S[i]; }` among a pipeline's stages.
struct SkeletonLoop : x3::position_tagged {
  Identifier index;
  Expr from, to;
  std::vector<SkeletonMember> body;
};

/// `if c { stages } [else { stages }]` among a pipeline's stages.
struct SkeletonIf : x3::position_tagged {
  Expr condition;
  std::vector<SkeletonMember> then;
  std::vector<SkeletonMember> otherwise;
};

/// `pipeline S { ... }`, `farm(3) F { worker }`, `deal(2) D { worker }` or
/// `task T { work: 1; }` ([Benoit05]; [Yaikhom07]; docs/language.md, "Skeletons").
struct Skeleton : x3::position_tagged {
  std::string kind;              ///< "pipeline", "farm", "deal", "map" or "task"
  std::optional<Expr> replicas;  ///< farm, deal and map: the n of farm(n)
  Name name;
  std::vector<SkeletonMember> members;
};

using Item =
    x3::variant<Processor, Link, Actor, DataNode, Arc, Placement, Route, x3::forward_ast<Skeleton>,
                x3::forward_ast<Loop>, x3::forward_ast<Conditional>>;

/// `for i in 1..P { ... }`: the items of its section, once per value of the index.
struct Loop : x3::position_tagged {
  Identifier index;
  Expr from, to;
  std::vector<Item> body;
};

/// `if i > 1 { ... } else { ... }`
struct Conditional : x3::position_tagged {
  Expr condition;
  std::vector<Item> then;
  std::vector<Item> otherwise;
};

/// `hardware { ... }`, `application { ... }` or `mapping { ... }`.
struct Section : x3::position_tagged {
  std::string keyword;
  std::vector<Item> items;
};

/// `param N = 512;`
struct Param : x3::position_tagged {
  Identifier name;
  Expr value;
};

/// A section, a parameter, or a system-level property such as `workload: closed(1);`.
struct SystemItem : x3::variant<Section, Param, Property> {
  using base_type::base_type;
  using base_type::operator=;
};

/// `system NAME { ... }`
struct System : x3::position_tagged {
  Identifier name;
  std::vector<SystemItem> items;
};

}  // namespace mmt::grammar::ast
