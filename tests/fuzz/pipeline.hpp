#pragma once
// The pipeline every fuzz input goes through, shared by the libFuzzer targets
// (fuzz_reader.cpp) and the regression test that replays what they found
// (tests/grammar/fuzz_regressions.cpp): read the input as one kind of file and, when it
// loads, explore it (a few hundred markings at most), solve and measure it. Bad input
// must end in diagnostics: a crash, hang, sanitizer report or escaping exception is a bug.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "compiler/compile.hpp"
#include "grammar/parse.hpp"
#include "gspn/invariants.hpp"
#include "gspn/measure_source.hpp"
#include "gspn/reachability.hpp"
#include "io/formats.hpp"
#include "io/load_gspn.hpp"
#include "solver/ctmc.hpp"
#include "solver/measures.hpp"
#include "solver/pipeline.hpp"
#include "solver/steady_state.hpp"

namespace mmt::fuzz {

/// The readers, in the order of tests/fuzz/regressions/<name>/ and the fuzz_<name> targets.
enum Reader { kHdl, kGspn, kPnml, kGreatSpn, kPnpro };
inline constexpr const char* kReaderNames[] = {"hdl", "gspn", "pnml", "greatspn", "pnpro"};
inline constexpr const char* kReaderPaths[] = {"fuzz.hdl", "fuzz.gspn", "fuzz.pnml", "fuzz.net",
                                               "fuzz.PNPRO"};

inline std::optional<gspn::Net> load(Reader reader, const grammar::SourceFile& source) {
  grammar::Diagnostics diagnostics(source);
  if (reader == kHdl) {
    auto parsed = grammar::parseSystem(source, diagnostics);
    if (!parsed) return std::nullopt;
    auto compiled = compiler::compile(*parsed, diagnostics);
    if (!compiled) return std::nullopt;
    return std::move(compiled->net);
  }
  grammar::SourceFile definitions{"fuzz.def", ""};
  grammar::Diagnostics definitionDiagnostics(definitions);
  // A coloured net unfolds to a few thousand elements at most, as exploration stops at a
  // few hundred markings.
  coloured::UnfoldLimits unfolding;
  unfolding.tried = 1'000'000;
  unfolding.transitions = 20'000;
  unfolding.places = 100'000;
  return io::loadNet(source, diagnostics, definitions, definitionDiagnostics, {}, unfolding);
}

/// Runs `data` through the pipeline as a file of kind `reader`.
inline void runPipeline(Reader reader, std::string_view data) {
  const grammar::SourceFile source{kReaderPaths[reader], std::string(data)};
  const std::optional<gspn::Net> net = load(reader, source);
  if (!net) return;
  gspn::analyzeBoundedness(*net, gspn::computePSemiflows(*net, 2'000));
  gspn::ExplorationSettings settings;
  settings.maxStates = 300;
  settings.maxVanishingPerFiring = 300;
  solver::SteadyStateSettings solve;
  solve.maxIterations = 2'000;
  const auto solved = solver::solveNet(*net, {.exploration = settings, .steadyState = solve});
  if (solved->stage != solver::SolvedNet::Stage::Ok) return;
  const solver::SteadyStateMeasures& measures = *solved->measures;
  gspn::evaluateMeasures(*net, measures);
}

}  // namespace mmt::fuzz
