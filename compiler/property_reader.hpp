#pragma once
/// \file
/// Typed, range-checked reading of the `key: value;` properties of one element
/// (docs/language.md, "Elements and their properties"), after elaboration. Unknown and
/// repeated keys are reported when the reader is made; each accessor reports a wrong
/// value at its property and returns the fallback, so that one run reports every mistake.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/elaborated.hpp"
#include "grammar/diagnostics.hpp"
#include "gspn/distribution.hpp"

namespace mmt::compiler {

/// The shortest text that reads back as x ("0.000415", "2e+06").
std::string formatNumber(double x);

/// Reports `message` at `at`, naming the loop iteration that made the node, if any.
void reportAt(grammar::Diagnostics& diagnostics, const elab::Origin& at, std::string message,
              bool warning = false);

class PropertyReader {
 public:
  /// \param element how messages name the element, e.g. "processor 'P1'".
  /// \param known the keys this element accepts.
  PropertyReader(grammar::Diagnostics& diagnostics, const elab::Properties& properties,
                 std::string element, std::vector<std::string> known);

  /// A number > 0 (or >= 0 when `allowZero`); `fallback` when absent.
  double number(const std::string& key, double fallback, bool allowZero = false);

  /// A delay or size distribution (docs/language.md, "Delays"): a number is the mean of an
  /// exponential, a call such as `erlang(3, 4)` declares the distribution. With
  /// `allowZero`, 0 is allowed and means none (std::nullopt); `fallback` when absent.
  std::optional<gspn::Distribution> distribution(const std::string& key, double fallback,
                                                 bool allowZero = false);

  /// A whole number >= `least` (at most 1e6); `fallback` when absent.
  std::uint32_t count(const std::string& key, std::uint32_t fallback, std::uint32_t least = 1);

  /// One of `choices` (a bare word); `fallback` when absent.
  std::string choice(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& choices);

  /// The property `key`, or nullptr when absent.
  const elab::Property* find(const std::string& key) const;
  /// Reports `message` at property p.
  void error(const elab::Property& p, std::string message);

 private:
  grammar::Diagnostics& diagnostics_;
  std::string element_;
  std::map<std::string, const elab::Property*> values_;
};

}  // namespace mmt::compiler
