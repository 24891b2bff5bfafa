#pragma once
/// \file
/// The colour language of GreatSPN's stochastic well-formed nets as its editor writes them
/// in PNPRO pages (docs/formats.md, "Coloured PNPRO pages"; Chiola, Dutheillet,
/// Franceschinis & Haddad, IEEE Trans. Computers 42(11), 1993, for the net class), read
/// into the sorts, variables and terms of a coloured::Net:
///
/// - colour classes: `enum r{1 .. 3}`, `circular s{1..4}`, `{a, b, c}`, unions of parts
///   with `+`, a part named as a static subclass with `is` (`p{1..3} is fast + p{4..5}`),
///   and products of classes (`Srv * R`);
/// - multisets (markings, arc multiplicities, coloured constants): `<x>`, `2<x, y>`,
///   `<All>`, `<All - s, r>`, `<s++>`, `<s-->`, a static subclass `<fast>`, sums and
///   differences `<x> + 2<y> - <z>`, the name of a coloured constant; a whole number on an
///   uncoloured place;
/// - guards: `==` `=` `!=` `<` `<=` `>` `>=` between colours (a variable, a constant,
///   `x++`, `x--`), `d(x)` (x's static subclass) compared with a subclass name, `&&` `||`
///   `!`, parentheses, `True`, `False`, the whole optionally in square brackets.
///
/// Each function throws coloured::Error at the offset in the file of the character it
/// cannot read (entities such as `&lt;` in the attribute counted as the file has them).

#include <map>
#include <optional>
#include <string>

#include "coloured/net.hpp"
#include "grammar/diagnostics.hpp"

namespace mmt::io {

class GreatSpnColours {
 public:
  /// `source` is the file; every `at` below is the offset in it where the attribute's value
  /// starts.
  explicit GreatSpnColours(const grammar::SourceFile& source) : source_(source) {}

  void colourClass(const std::string& name, const std::string& definition, std::size_t at);
  void variable(const std::string& name, const std::string& domain, std::size_t at);
  /// A `<constant>` with a domain: a multiset other labels use by its name.
  void constant(const std::string& name, const std::string& domain, const std::string& value,
                std::size_t at);
  /// A place's domain: a colour class, or the dot sort when `domain` is empty.
  coloured::SortId domain(const std::string& domain, std::size_t at);
  /// A marking or an arc multiplicity over `sort`. On the dot sort a whole number k is k
  /// tokens; `count` resolves a name to a number there (a `<constant>` of the page).
  coloured::Term multiset(const std::string& text, std::size_t at, coloured::SortId sort,
                          const std::map<std::string, double>& numbers);
  coloured::Term guard(const std::string& text, std::size_t at);

  coloured::Net& net() { return net_; }

 private:
  struct Parser;
  coloured::SortId dotSort();
  /// The variable or the colour called `name`, at `offset`; nothing when it is neither.
  std::optional<coloured::Term> variableOrColour(const std::string& name, std::size_t offset) const;

  const grammar::SourceFile& source_;
  coloured::Net net_;
  std::map<std::string, coloured::SortId> classes_;
  /// Colour constants by name (`s1`): sort and colour.
  std::map<std::string, std::pair<coloured::SortId, coloured::Colour>> colours_;
  /// Static subclasses by name: the partition sort and its element.
  std::map<std::string, std::pair<coloured::SortId, coloured::Colour>> subclasses_;
  /// A class's partition into static subclasses, where it has named ones.
  std::map<coloured::SortId, coloured::SortId> partitionOf_;
  std::map<std::string, coloured::VariableId> variables_;
  std::map<std::string, std::pair<coloured::SortId, coloured::Term>> constants_;
  std::optional<coloured::SortId> dot_;
};

}  // namespace mmt::io
