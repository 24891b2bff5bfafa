#pragma once
/// \file
/// A description after the elaborate pass: parameters evaluated (with `-D` overrides),
/// loops and conditions expanded, indexed names made concrete (`A[3]`, `N[2][5]`), every
/// value evaluated. check-names reads this, never the syntax tree, so that every later
/// pass sees one flat description (docs/modelling.md, "Compiler passes").

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "gspn/distribution.hpp"

namespace mmt::compiler::elab {

/// Where an elaborated node comes from: its offset in the source and, inside loops, the
/// index values of the iteration that made it ("i = 3" or "x = 2, y = 5").
struct Origin {
  std::size_t offset = 0;
  std::string iteration;
};

/// A concrete name such as `A1` or `W[3]`.
struct Name {
  std::string text;
  Origin at;
};

/// A bare word that is no parameter, such as `fcfs`.
struct Word {
  std::string text;
};

/// `closed(4)`, `exp(4)`, `erlang(3, 2)`: a name applied to evaluated arguments.
struct Call {
  std::string function;
  std::vector<double> arguments;
};

/// A property's value: a number, a word, a call, or a distribution written as a sum
/// (`0.5 + const(4)`).
using Value = std::variant<double, Word, Call, gspn::Distribution>;

struct Property {
  std::string key;
  Value value;
  Origin at;
};
using Properties = std::vector<Property>;

struct Processor {
  Name name;
  Properties properties;
  Origin at;
};

struct Link {
  Name name;
  std::vector<Name> ends;
  Properties properties;
  Origin at;
};

struct Actor {
  Name name;
  Properties properties;
  Origin at;
};

struct DataNode {
  Name name;
  Properties properties;
  Origin at;
};

struct Arc {
  Name from, to;
  Properties properties;
  Origin at;
};

struct Placement {
  std::vector<Name> elements;
  Name processor;
  Origin at;
};

struct Route {
  Name from, to;
  std::vector<Name> links;
  Origin at;
};

/// A skeleton after elaboration ([Benoit05]; [Yaikhom07]; docs/language.md, "Skeletons"):
/// a farm's, deal's or map's worker is replicated, each replica's names suffixed with its
/// number (`farm(3) F { task W; }` has the members W[1], W[2], W[3]).
struct Skeleton {
  enum class Kind { Pipeline, Farm, Deal, Map, Task };
  Kind kind = Kind::Task;
  Name name;
  Properties properties;
  std::vector<Skeleton> members;  ///< pipeline: its stages; farm, deal, map: the replicas
  Origin at;
};

using Item = std::variant<Processor, Link, Actor, DataNode, Arc, Placement, Route, Skeleton>;

/// An outermost farm or map of the application, as compiler::replicaCounts reads it: the
/// symmetric factor compiler/symmetry.hpp proposes for it when it has two replicas or more.
struct ReplicaCount {
  std::string label;                    ///< what a replica is: its worker's name ("W")
  long long replicas = 0;               ///< the n of farm(n)
  std::vector<std::string> parameters;  ///< the parameters n reads
  std::vector<double> values;           ///< their values, by `parameters`
};

struct System {
  Name name;
  std::vector<Item> items;                                 ///< every section's, in source order
  Properties properties;                                   ///< system-level properties (workload)
  std::vector<std::pair<std::string, double>> parameters;  ///< in declaration order
  std::size_t iterations = 0;                              ///< loop bodies expanded
  /// Counting replicas only (Compilation::countingReplicas): the outermost farms and maps
  /// of two replicas or more, in the order of compiler::replicaSymmetry's factors.
  std::vector<ReplicaCount> replicaCounts;
};

}  // namespace mmt::compiler::elab
