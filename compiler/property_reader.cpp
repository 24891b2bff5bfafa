#include "compiler/property_reader.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace mmt::compiler {
using grammar::join;
using grammar::suggestion;
using grammar::unknownName;

std::string formatNumber(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

void reportAt(grammar::Diagnostics& diagnostics, const elab::Origin& at, std::string message,
              bool warning) {
  if (!at.iteration.empty()) message += " (in iteration " + at.iteration + ")";
  if (warning)
    diagnostics.warning(at.offset, std::move(message));
  else
    diagnostics.error(at.offset, std::move(message));
}

PropertyReader::PropertyReader(grammar::Diagnostics& diagnostics,
                               const elab::Properties& properties, std::string element,
                               std::vector<std::string> known)
    : diagnostics_(diagnostics), element_(std::move(element)) {
  for (const elab::Property& p : properties) {
    if (std::find(known.begin(), known.end(), p.key) == known.end()) {
      error(p, "unknown property '" + p.key + "' of " + element_ + suggestion(p.key, known) +
                   " (known: " + join(known) + ")");
    } else if (!values_.emplace(p.key, &p).second) {
      error(p, "property '" + p.key + "' of " + element_ + " is given twice");
    }
  }
}

double PropertyReader::number(const std::string& key, double fallback, bool allowZero) {
  const elab::Property* p = find(key);
  if (!p) return fallback;
  const double* x = std::get_if<double>(&p->value);
  if (!x) {
    const auto* word = std::get_if<elab::Word>(&p->value);
    error(*p, "'" + key + "' of " + element_ + " must be a number" +
                  (word ? ", not the word '" + word->text + "' (no parameter has that name)" : ""));
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
  const elab::Property* p = find(key);
  if (p)
    if (const auto* d = std::get_if<gspn::Distribution>(&p->value)) return *d;
  const auto* call = p ? std::get_if<elab::Call>(&p->value) : nullptr;
  if (!call) {
    const double mean = number(key, fallback, allowZero);
    if (mean == 0) return std::nullopt;
    return gspn::Distribution::exponential(mean);
  }
  if (!gspn::Distribution::isName(call->function)) {
    error(*p, "'" + key + "' of " + element_ + ": " +
                  unknownName("distribution", call->function, gspn::Distribution::names()));
  } else {
    try {
      return gspn::Distribution::make(call->function, call->arguments);
    } catch (const std::invalid_argument& e) {
      error(*p, "'" + key + "' of " + element_ + ": " + e.what());
    }
  }
  if (fallback == 0) return std::nullopt;
  return gspn::Distribution::exponential(fallback);
}

std::uint32_t PropertyReader::count(const std::string& key, std::uint32_t fallback,
                                    std::uint32_t least) {
  const elab::Property* p = find(key);
  if (!p) return fallback;
  const double* x = std::get_if<double>(&p->value);
  if (!x || *x < least || *x != std::floor(*x) || *x > 1e6) {
    error(*p, "'" + key + "' of " + element_ + " must be a whole number of at least " +
                  std::to_string(least));
    return fallback;
  }
  return static_cast<std::uint32_t>(*x);
}

std::string PropertyReader::choice(const std::string& key, const std::string& fallback,
                                   const std::vector<std::string>& choices) {
  const elab::Property* p = find(key);
  if (!p) return fallback;
  const auto* word = std::get_if<elab::Word>(&p->value);
  if (!word || std::find(choices.begin(), choices.end(), word->text) == choices.end()) {
    error(*p, "'" + key + "' of " + element_ + " must be one of " + join(choices) +
                  (word ? suggestion(word->text, choices) : ""));
    return fallback;
  }
  return word->text;
}

const elab::Property* PropertyReader::find(const std::string& key) const {
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : it->second;
}

void PropertyReader::error(const elab::Property& p, std::string message) {
  reportAt(diagnostics_, p.at, std::move(message));
}

}  // namespace mmt::compiler
