#pragma once
/// \file
/// The labels of a PNML symmetric net (ISO/IEC 15909-2:2011, the `symmetricnet` grammar;
/// docs/formats.md, "Coloured nets"): its declarations, a place's `<type>` and
/// `<hlinitialMarking>`, a transition's `<condition>` and an arc's `<hlinscription>`, read
/// from their `<structure>` into the sorts, variables and terms of a coloured::Net.
///
/// Read: the sorts `dot`, `finiteenumeration`, `cyclicenumeration`, `finiteintrange`,
/// `productsort` and `partition` (with its `partitionelement`s); `variabledecl`; the terms
/// `variable`, `useroperator` (an enumeration's constant or a partition's element),
/// `dotconstant`, `finiteintrangeconstant`, `successor`, `predecessor`, `tuple`,
/// `partitionelementof`, `all`, `numberof`, `scalarproduct`, `add`, `subtract`, `empty`,
/// `booleanconstant`, `equality`, `inequality`, the four order comparisons, `and`, `or`,
/// `not` and `imply`. Any other element of a term is an error that names it.

#include <map>
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <utility>

#include "coloured/net.hpp"

namespace mmt::io {

class SymmetricLabels {
 public:
  /// Reads the sorts and variables of a `<declaration>` label into net(). Throws
  /// coloured::Error at the element it cannot read (an unknown sort, an unsupported one).
  void declare(const pugi::xml_node& declaration);
  /// The sort of a place's `<type>` label.
  coloured::SortId sort(const pugi::xml_node& type);
  /// The term in the `<structure>` of a label (`<hlinitialMarking>`, `<hlinscription>`,
  /// `<condition>`), untyped: Net::addPlace and Net::addTransition type it.
  coloured::Term term(const pugi::xml_node& label);

  coloured::Net& net() { return net_; }

 private:
  coloured::SortId sortOf(const pugi::xml_node& element);
  coloured::Term termOf(const pugi::xml_node& element, std::size_t depth);
  /// The canonical sort of the dot, and of each integer range by its bounds, so that a
  /// constant that writes its range again has the declared sort.
  coloured::SortId dotSort();
  coloured::SortId rangeSort(std::int64_t first, std::int64_t last, const std::string& name);

  coloured::Net net_;
  std::map<std::string, coloured::SortId> sorts_;  // namedsort and partition ids
  /// feconstant and partitionelement ids: the sort and the colour.
  std::map<std::string, std::pair<coloured::SortId, coloured::Colour>> constants_;
  std::map<std::string, coloured::VariableId> variables_;
  std::map<std::pair<std::int64_t, std::int64_t>, coloured::SortId> ranges_;
  std::optional<coloured::SortId> dot_;
};

}  // namespace mmt::io
