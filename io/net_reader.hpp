#pragma once
/// \file
/// The one builder every net reader goes through (mmt's `.gspn` text, PNML, GreatSPN's
/// `.net`/`.def` and PNPRO): a reader hands it what it found — names, numbers and
/// expressions, each with where it found them — and the builder checks them by one set of
/// rules and fills a gspn::NetBuilder. Every mistake becomes a diagnostic at the position
/// of the file it is in (a `.def` error in the `.def` file), so a net is checked the same
/// way whatever format it comes in.
///
/// A reader declares in four phases, in this order: parameters (then endParameters(), which
/// checks the `-D` overrides), places, transitions with their arcs, measures; finish()
/// gives the net, or nothing when any file has an error.

#include <boost/unordered/unordered_flat_map.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "grammar/diagnostics.hpp"
#include "grammar/error_handler.hpp"
#include "grammar/expression_ast.hpp"
#include "grammar/expressions.hpp"
#include "grammar/parameters.hpp"
#include "gspn/distribution.hpp"
#include "gspn/net.hpp"

namespace mmt::io {

using grammar::Diagnostics;
using grammar::ParameterOverrides;

/// Where a reader found something: the diagnostics of its file and the offset there.
struct Site {
  Diagnostics* diagnostics;
  std::size_t offset;
};

/// An expression a reader found: its syntax tree, the positions of its nodes, and the
/// diagnostics of its file.
struct Located {
  const grammar::ast::Expr* expr;
  const grammar::SourcePositions* positions;
  Diagnostics* diagnostics;

  /// Where the expression starts, for messages about its whole value.
  Site site() const;
};

/// A transition's servers ([GSPN95] §6.3): single, k, or infinite, and where they were
/// given (for the message when they clash with a marking-dependent rate).
struct Servers {
  gspn::ServerSemantics semantics = gspn::ServerSemantics::Single;
  std::uint32_t count = 1;
  std::optional<Site> at = std::nullopt;
};

enum class ArcKind { Input, Output, Inhibitor };

class NetReader {
 public:
  /// `main` receives the diagnostics that belong to no element: an override naming no
  /// parameter, a net the builder refuses as a whole.
  NetReader(std::string netName, const ParameterOverrides& overrides, Diagnostics& main);

  /// A further file of the net (GreatSPN's `.def`): an error there, even one the reader
  /// reports itself, makes finish() give nothing.
  void addFile(Diagnostics& file) { watch(&file); }

  // --- 1. Parameters.
  /// A parameter whose value is a constant expression (a `-D` override replaces it).
  void parameter(const std::string& name, Site at, const Located& value);
  /// A parameter with a number its file gives directly.
  void parameter(const std::string& name, Site at, double value);
  /// Reports the overrides that name no parameter declared above.
  void endParameters();
  /// The value of a declared parameter (after overrides), if it is one.
  std::optional<double> parameterValue(const std::string& name) const;

  // --- 2. Places.
  void place(const std::string& name, Site at, gspn::Tokens initial, std::string group = {});
  /// A place whose initial marking is a constant expression (a whole number >= 0).
  void place(const std::string& name, Site at, const Located& initial, std::string group = {});
  bool hasPlace(const std::string& name) const { return places_.count(name) != 0; }
  /// The net unfolds a coloured net (gspn::NetBuilder::setUnfolded).
  void setUnfolded(std::uint64_t tried, std::uint64_t kept) { builder_.setUnfolded(tried, kept); }
  /// The colour symmetry of the coloured net it unfolds (gspn::NetBuilder::declareSymmetry).
  void declareSymmetry(gspn::DeclaredSymmetry symmetry) {
    builder_.declareSymmetry(std::move(symmetry));
  }
  /// Places declared so far: the next place's id.
  std::size_t placeCount() const { return builder_.placeCount(); }

  // --- Values, read against what is declared so far. Each reports its own errors.
  /// An expression over parameters and token counts (a rate, a multiplicity).
  std::optional<gspn::Expression> marking(const Located& e);
  /// A constant's finite value; `what` names it in messages ("a weight").
  std::optional<double> constant(const Located& e, const std::string& what);
  /// A whole number >= `least` (a priority, a server count).
  std::optional<std::uint32_t> count(const Located& e, const std::string& what,
                                     std::uint32_t least);
  /// A delay distribution plus constants (`erlang(3, 2)`, `0.5 + const(4)`).
  std::optional<gspn::Distribution> distribution(const Located& e);

  // --- 3. Transitions and arcs. Nothing is returned after an error.
  /// A timed transition of rate `rate` (an expression over the marking, or a constant > 0).
  std::optional<gspn::TransitionId> timed(const std::string& name, Site at,
                                          const gspn::Expression& rate, Site rateAt,
                                          const Servers& servers, std::string group = {});
  /// A timed transition with a declared delay (its rate is 1 / the mean).
  std::optional<gspn::TransitionId> timed(const std::string& name, Site at,
                                          const gspn::Distribution& delay, const Servers& servers,
                                          std::string group = {});
  /// An immediate transition: weight > 0, priority >= 1.
  std::optional<gspn::TransitionId> immediate(const std::string& name, Site at, double weight,
                                              Site weightAt, std::uint32_t priority,
                                              std::string group = {});
  /// Enables `transition` only where `guard` (over parameters and token counts) is
  /// non-zero. A guard that is always true is dropped; one always false is kept, with a
  /// warning.
  void guard(gspn::TransitionId transition, const gspn::Expression& guard, Site at);
  /// An arc between `transition` and the declared place `place`. A constant multiplicity
  /// must be a whole number >= 1.
  void arc(ArcKind kind, gspn::TransitionId transition, const std::string& place, Site at,
           const gspn::Expression& multiplicity, Site multiplicityAt);

  // --- 4. Measures.
  /// A measure over mean(…), prob(…), throughput(T), earlier measures and parameters.
  void measure(const std::string& name, Site at, const Located& value);

  /// The net, or nothing when any diagnostic so far (in any file) is an error.
  std::optional<gspn::Net> finish();

 private:
  class Resolver;
  friend class Resolver;
  /// Claims `name` for an element of `kind`; reports a second declaration.
  bool claim(const std::string& name, const char* kind, Site at);
  bool anyErrors() const;
  void watch(Diagnostics* d);

  gspn::NetBuilder builder_;
  const ParameterOverrides& overrides_;
  Diagnostics& main_;
  std::vector<Diagnostics*> files_;
  boost::unordered_flat_map<std::string, double> parameters_;
  boost::unordered_flat_map<std::string, bool> declaredParameters_;
  boost::unordered_flat_map<std::string, gspn::PlaceId> places_;
  boost::unordered_flat_map<std::string, gspn::TransitionId> transitions_;
  boost::unordered_flat_map<std::string, std::uint32_t> measures_;
  boost::unordered_flat_map<std::string, bool> failedMeasures_;
  boost::unordered_flat_map<std::string, std::string> declared_;  // name -> kind
};

}  // namespace mmt::io
