#pragma once
/// \file
/// Decimal numbers read to the nearest double. Spirit's real parser scales the digits by
/// powers of ten and can be one unit in the last place off (0.11764705882352941 became
/// 0.1176470588235294), so a net written with 17 significant digits would not read back
/// to the same rates. The parser only recognises the number; std::strtod, which rounds
/// correctly, gives its value.

#include <boost/spirit/home/x3.hpp>
#include <cstdlib>
#include <string>

namespace mmt::grammar {

namespace x3 = boost::spirit::x3;

/// Decimal numbers only: no `inf` or `nan`, which would swallow names such as `infinite`;
/// and a dot followed by another dot is not a decimal point, so that `1..P` is a range.
template <typename Base>
struct strict_policies : Base {
  template <typename Iterator, typename Attribute>
  static bool parse_nan(Iterator&, const Iterator&, Attribute&) {
    return false;
  }
  template <typename Iterator, typename Attribute>
  static bool parse_inf(Iterator&, const Iterator&, Attribute&) {
    return false;
  }
  template <typename Iterator>
  static bool parse_dot(Iterator& first, const Iterator& last) {
    if (first == last || *first != '.') return false;
    Iterator next = first;
    if (++next != last && *next == '.') return false;
    first = next;
    return true;
  }
};
using strict_real_policies = strict_policies<x3::ureal_policies<double>>;

/// A real parser whose value is std::strtod of the text it matched.
template <typename Policies>
struct exact_real_parser : x3::parser<exact_real_parser<Policies>> {
  using attribute_type = double;
  static const bool has_attribute = true;

  template <typename Iterator, typename Context, typename RContext, typename Attribute>
  bool parse(Iterator& first, const Iterator& last, const Context& context, RContext& rcontext,
             Attribute& attribute) const {
    x3::skip_over(first, last, context);
    const Iterator start = first;
    double rough;
    if (!x3::real_parser<double, Policies>().parse(first, last, context, rcontext, rough))
      return false;
    x3::traits::move_to(std::strtod(std::string(start, first).c_str(), nullptr), attribute);
    return true;
  }
};

const exact_real_parser<strict_real_policies> exact_unsigned_real{};

}  // namespace mmt::grammar
