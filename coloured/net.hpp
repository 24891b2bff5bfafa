#pragma once
/// \file
/// Coloured Petri nets of the symmetric-net class: the sorts, variables and terms of
/// ISO/IEC 15909-2 (PNML, its `symmetricnet` grammar), which is the class of Chiola,
/// Dutheillet, Franceschinis and Haddad's well-formed nets ("Stochastic well-formed coloured
/// nets for symmetric modelling applications", IEEE Trans. Computers 42(11), 1993): finite
/// colour classes, ordered or circular, their products and partitions (static subclasses),
/// and multisets of colours on places and arcs. A reader fills a Net; coloured/unfold.hpp
/// turns it into the place/transition net that every solver takes (docs/formats.md,
/// "Coloured nets").
///
/// Every colour of a sort is an index in [0, size): an enumeration's constants in the order
/// they are declared, an integer range's values from its first, a product's tuples in
/// mixed radix with the last component varying fastest.

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace mmt::coloured {

using SortId = std::uint32_t;
using VariableId = std::uint32_t;
/// A colour of a sort: an index in [0, Sort::size).
using Colour = std::uint64_t;

/// A mistake in a coloured net, at `offset` in its file (an unknown sort, an ill-typed
/// term, a binding space past the limit, a negative multiset).
struct Error : std::runtime_error {
  Error(std::size_t at, const std::string& message) : std::runtime_error(message), offset(at) {}
  std::size_t offset;
};

enum class SortKind : std::uint8_t {
  Dot,           ///< one colour, the plain token
  Enumeration,   ///< named constants; `cyclic` gives successor and predecessor
  IntegerRange,  ///< the whole numbers first..last
  Product,       ///< tuples of the component sorts
  Partition      ///< the elements of a partition of another sort (static subclasses)
};

struct Sort {
  std::string name;
  SortKind kind = SortKind::Dot;
  /// An enumeration's constants (also a partition's elements), in declaration order.
  std::vector<std::string> constants;
  /// A cyclicenumeration: successor(last) = first.
  bool cyclic = false;
  std::int64_t first = 0, last = 0;  ///< an integer range
  std::vector<SortId> components;    ///< a product's
  /// A partition's: the sort it splits and, per colour of it, the element holding it.
  SortId partitioned = 0;
  std::vector<std::uint32_t> elementOf;
  /// Number of colours (a product's is the product of its components').
  std::uint64_t size = 1;
};

struct Variable {
  std::string name;
  SortId sort = 0;
};

/// One node of a term. Colour terms give one colour of `sort`; multiset terms a multiset
/// over `sort`; boolean terms (guards) true or false, `sort` unused.
struct Term {
  enum class Op : std::uint8_t {
    // colour terms
    Variable,     ///< `value` = the variable
    Constant,     ///< `value` = the colour of `sort`
    Successor,    ///< of operand 0, in a cyclic enumeration
    Predecessor,  ///< of operand 0, in a cyclic enumeration
    Tuple,        ///< of the operands, one per component of the product `sort`
    ElementOf,    ///< the element of the partition `sort` that holds operand 0
    // multiset terms
    All,       ///< every colour of `sort` once
    NumberOf,  ///< `value` copies of operand 0 (a colour or a multiset)
    Add,       ///< sum of the operands
    Subtract,  ///< operand 0 minus operand 1 (an error where it would go negative)
    /// The product of multisets over the components of the product `sort`, one operand
    /// per component: each tuple of their colours, its count the product of theirs
    /// (GreatSPN's `<All-s, r>`: every server but s, each with r).
    Product,
    Empty,  ///< the empty multiset over `sort`
    // boolean terms
    True,
    False,
    Equality,
    Inequality,
    LessThan,
    LessThanOrEqual,
    GreaterThan,
    GreaterThanOrEqual,
    And,
    Or,
    Not,
    Imply,
  };
  Op op = Op::True;
  SortId sort = 0;
  std::uint64_t value = 0;
  std::vector<Term> operands;
  std::size_t offset = 0;  ///< where the term is written, for messages

  bool isColour() const { return op <= Op::ElementOf; }
  bool isMultiset() const { return op >= Op::All && op <= Op::Empty; }
  bool isBoolean() const { return op >= Op::True; }
};

/// Adds the variables that `t` uses to `out`.
void variablesOf(const Term& t, std::set<VariableId>& out);

struct Place {
  std::string name;
  SortId sort = 0;
  /// The initial marking: a closed multiset term over `sort` (no variables), or none.
  std::optional<Term> initial;
  std::size_t offset = 0;
};

struct Arc {
  std::uint32_t place = 0;
  /// A multiset term over the place's sort.
  Term inscription;
  std::size_t offset = 0;
};

struct Transition {
  std::string name;
  /// A boolean term; `Op::True` when the transition has none.
  Term guard;
  std::vector<Arc> inputs, outputs;
  /// Inhibitor arcs: the binding is disabled while the place holds, of some colour, at
  /// least the tokens the inscription gives of it (GreatSPN's coloured inhibitor arcs).
  std::vector<Arc> inhibitors;
  std::size_t offset = 0;
};

/// A symmetric net. The add* functions type what they are given (type()) and throw Error
/// at the term's offset: a term of the wrong sort (a colour of `Philo` on a place of
/// `Fork`, a tuple of two in a product of three), successor on an enumeration that is not
/// cyclic, an order comparison on a product, a variable in an initial marking.
class Net {
 public:
  SortId addSort(Sort sort);
  VariableId addVariable(Variable variable);
  std::uint32_t addPlace(Place place);
  void addTransition(Transition transition);

  const std::vector<Sort>& sorts() const { return sorts_; }
  const std::vector<Variable>& variables() const { return variables_; }
  const std::vector<Place>& places() const { return places_; }
  const std::vector<Transition>& transitions() const { return transitions_; }
  const Sort& sort(SortId s) const { return sorts_.at(s); }

  /// The readable name of colour `c` of `sort`: an enumeration's constant, an integer, a
  /// product's components joined by '_', "" for the dot.
  std::string colourName(SortId sort, Colour c) const;
  /// Component `i` of the tuple `c` of the product `sort`.
  Colour component(SortId sort, Colour c, std::size_t i) const;
  /// The tuple of `components` in the product `sort`.
  Colour tuple(SortId sort, const std::vector<Colour>& components) const;

  /// Types `term` as a colour term of `sort`, a multiset term over it (a colour term
  /// there stands for that colour once) or a boolean term, whichever `want` names, and
  /// fills in the sorts that the context gives (a tuple's product, an empty multiset's);
  /// kAnySort asks for any sort the term has. Returns the term's sort; throws Error at the
  /// offending subterm.
  enum class Want { Colour, Multiset, Boolean };
  static constexpr SortId kAnySort = 0xffffffffu;
  SortId type(Term& term, Want want, SortId sort = kAnySort) const;

 private:
  std::vector<Sort> sorts_;
  std::vector<Variable> variables_;
  std::vector<Place> places_;
  std::vector<Transition> transitions_;
};

}  // namespace mmt::coloured
