#pragma once
/// \file
/// Models read from files of every format mmt knows, by their extension: a system
/// description (`.hdl`) is parsed and compiled to a GSPN (compiler/compile.hpp); a raw net
/// (`.gspn`, `.pnml`, GreatSPN `.net` with its `.def`, `.PNPRO`) is loaded
/// (grammar/formats.hpp). Parameters (`param` of a description, GreatSPN's marking and
/// rate parameters) are bound at load time. A file is read and parsed once: the points of
/// a sweep, a contract or an exploration compile the same parse again with their values.

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "compiler/compile.hpp"
#include "compiler/model.hpp"
#include "grammar/diagnostics.hpp"
#include "grammar/parameters.hpp"
#include "grammar/parse.hpp"
#include "gspn/net.hpp"
#include "gspn/phases.hpp"

namespace mmt::api {

/// Names listed as the diagnostics list them: "a, b, c".
using grammar::join;

/// Parameter values by name (`-D N=5`, Python's `params={"N": 5}`).
using Parameters = grammar::ParameterOverrides;

/// A model's files as read, and a description's parse: shared by every model compiled from
/// them (the parse tree points into the text).
struct ModelSource {
  std::string path;
  grammar::SourceFile source;
  /// A GreatSPN `.net`'s `.def` beside it (empty text when there is none).
  grammar::SourceFile definitions;
  /// The GSPN page of a PNPRO project to read; empty: the first.
  std::string page;
  /// A description's parse (set for `.hdl` files).
  std::optional<grammar::ParsedSystem> parsed;
  bool isDescription() const { return parsed.has_value(); }
};

/// A model ready to solve or simulate: a compiled system, or a raw net.
struct Model {
  std::shared_ptr<const ModelSource> source;
  /// The parameters it was built with.
  Parameters parameters;
  std::optional<compiler::CompiledSystem> compiled;
  std::optional<gspn::Net> raw;
  /// Warnings of the load, rendered (file:line:col, source line, caret); empty when none.
  std::string warnings;
  /// Declared delays replaced by phases (expandPhases), in the net's order.
  std::vector<gspn::PhaseExpansion> phases;

  const gspn::Net& net() const { return compiled ? compiled->net : *raw; }
  /// The system's name, or the net's.
  const std::string& name() const { return compiled ? compiled->system.name : raw->name(); }
  bool isSystem() const { return compiled.has_value(); }
  /// A system with a batch(n, k) workload: its chain ends by design.
  bool isBatch() const {
    return compiled && compiled->system.workload.kind == compiler::Workload::Kind::Batch;
  }
  const std::string& path() const { return source->path; }

  /// The same model built again with `parameters` (and, for a description, `placements`
  /// added to its mapping), from the text already read and parsed. Throws ModelError.
  Model at(const Parameters& parameters, const compiler::Placements& placements = {}) const;

  /// Replaces the net's declared non-exponential delays by phase-type expansions with at
  /// most `maxPhases` phases each (gspn/phases.hpp); what became of each delay is kept
  /// in `phases`.
  void expandPhases(std::uint32_t maxPhases);
};

/// True when `path` has an extension mmt reads: `.hdl`, `.gspn`, `.pnml`, `.net`, `.PNPRO`.
bool isModelFile(const std::string& path);

/// The files a model is read from: the path itself, and a GreatSPN `.net`'s `.def`.
std::vector<std::string> modelFiles(const std::string& path);

/// Reads (and, for a description, parses) a model's files. Throws ModelError: unknown
/// kind of file, unreadable file, syntax errors (all of them, with positions), a `page`
/// named for a file that is not a PNPRO project. With `text`, that is the file's contents
/// (an editor's unsaved text), and only a GreatSPN `.net`'s `.def` is read beside `path`.
/// `page` names the GSPN page of a PNPRO project to read (empty: the first).
std::shared_ptr<const ModelSource> readModel(const std::string& path,
                                             std::optional<std::string> text = std::nullopt,
                                             const std::string& page = {});

/// Builds a model from its read files with `parameters` bound; `placements` add to a
/// description's mapping (mmt explore). With `trace`, each compiler pass writes a summary
/// there. Throws ModelError with every diagnostic.
Model buildModel(std::shared_ptr<const ModelSource> source, const Parameters& parameters = {},
                 const compiler::Placements& placements = {}, std::ostream* trace = nullptr);

/// readModel then buildModel; `page` as readModel's.
Model loadModel(const std::string& path, const Parameters& parameters = {},
                std::ostream* trace = nullptr, const std::string& page = {});

/// A marking condition over the places of `net` in the `.gspn` expression language
/// (`#busy >= 1 && #idle == 0`; docs/gspn.md), read from `text`, which messages call
/// `name` (an option, "--from"). Throws ModelError with the error's column and a caret.
gspn::Expression readCondition(const gspn::Net& net, const std::string& text,
                               const std::string& name);

/// The replica counts of a description's outermost farms and maps of two replicas or more
/// at `parameters`, with the parameters each reads, without compiling it
/// (compiler::replicaCounts). Throws ModelError (also for a raw net).
std::vector<compiler::elab::ReplicaCount> replicaCounts(const ModelSource& source,
                                                        const Parameters& parameters);

/// A description's System as far as name checking, with skeleton tasks allowed to be
/// unplaced: what mapping exploration enumerates. Throws ModelError (also for a raw net).
compiler::System probeSystem(const ModelSource& source, const Parameters& parameters = {});

}  // namespace mmt::api
