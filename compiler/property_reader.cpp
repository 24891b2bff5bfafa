#include "compiler/property_reader.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace mmt::compiler {
namespace ast = grammar::ast;
using grammar::join;
using grammar::suggestion;
using grammar::unknownName;

std::string formatNumber(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

PropertyReader::PropertyReader(const grammar::ParsedSystem& parsed,
                               grammar::Diagnostics& diagnostics,
                               const ast::Properties& properties, std::string element,
                               std::vector<std::string> known)
    : parsed_(parsed), diagnostics_(diagnostics), element_(std::move(element)) {
  for (const ast::Property& p : properties) {
    const std::size_t at = parsed_.positions.offsetOf(p);
    if (std::find(known.begin(), known.end(), p.key.name) == known.end()) {
      diagnostics_.error(at, "unknown property '" + p.key.name + "' of " + element_ +
                                 suggestion(p.key.name, known) + " (known: " + join(known) + ")");
    } else if (!values_.emplace(p.key.name, &p).second) {
      diagnostics_.error(at, "property '" + p.key.name + "' of " + element_ + " is given twice");
    }
  }
}

double PropertyReader::number(const std::string& key, double fallback, bool allowZero) {
  const ast::Property* p = find(key);
  if (!p) return fallback;
  const double* x = boost::get<double>(&p->value);
  if (!x) {
    error(*p, "'" + key + "' of " + element_ + " must be a number");
    return fallback;
  }
  if (!std::isfinite(*x) || *x < 0 || (*x == 0 && !allowZero)) {
    error(*p, "'" + key + "' of " + element_ + " must be " +
                  (allowZero ? "zero or positive" : "positive") + ", not " + formatNumber(*x));
    return fallback;
  }
  return *x;
}

std::optional<gspn::Distribution> PropertyReader::distribution(const std::string& key,
                                                               double fallback, bool allowZero) {
  const ast::Property* p = find(key);
  const auto* call = p ? boost::get<ast::Call>(&p->value) : nullptr;
  if (!call) {
    const double mean = number(key, fallback, allowZero);
    if (mean == 0) return std::nullopt;
    return gspn::Distribution::exponential(mean);
  }
  const std::string& name = call->function.name;
  if (!gspn::Distribution::isName(name)) {
    error(*p, "'" + key + "' of " + element_ + ": " +
                  unknownName("distribution", name, gspn::Distribution::names()));
  } else {
    try {
      return gspn::Distribution::make(name, call->arguments);
    } catch (const std::invalid_argument& e) {
      error(*p, "'" + key + "' of " + element_ + ": " + e.what());
    }
  }
  if (fallback == 0) return std::nullopt;
  return gspn::Distribution::exponential(fallback);
}

std::uint32_t PropertyReader::count(const std::string& key, std::uint32_t fallback,
                                    std::uint32_t least) {
  const ast::Property* p = find(key);
  if (!p) return fallback;
  const double* x = boost::get<double>(&p->value);
  if (!x || *x < least || *x != std::floor(*x) || *x > 1e6) {
    error(*p, "'" + key + "' of " + element_ + " must be a whole number of at least " +
                  std::to_string(least));
    return fallback;
  }
  return static_cast<std::uint32_t>(*x);
}

std::string PropertyReader::choice(const std::string& key, const std::string& fallback,
                                   const std::vector<std::string>& choices) {
  const ast::Property* p = find(key);
  if (!p) return fallback;
  const ast::Identifier* word = boost::get<ast::Identifier>(&p->value);
  if (!word || std::find(choices.begin(), choices.end(), word->name) == choices.end()) {
    error(*p, "'" + key + "' of " + element_ + " must be one of " + join(choices) +
                  (word ? suggestion(word->name, choices) : ""));
    return fallback;
  }
  return word->name;
}

const ast::Property* PropertyReader::find(const std::string& key) const {
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : it->second;
}

void PropertyReader::error(const ast::Property& p, std::string message) {
  diagnostics_.error(parsed_.positions.offsetOf(p), std::move(message));
}

}  // namespace mmt::compiler
