#include "compiler/compile.hpp"

#include <ostream>

#include "compiler/passes/passes.hpp"

namespace mmt::compiler {

const char* toString(Policy policy) {
  switch (policy) {
    case Policy::Fcfs:
      return "fcfs";
    case Policy::ProcessorSharing:
      return "ps";
    case Policy::Static:
      return "static";
  }
  return "?";
}

const char* toString(LinkKind kind) {
  switch (kind) {
    case LinkKind::Circuit:
      return "circuit";
    case LinkKind::StoreForward:
      return "store_forward";
    case LinkKind::Bus:
      return "bus";
  }
  return "?";
}

std::vector<std::unique_ptr<Pass>> standardPasses() {
  std::vector<std::unique_ptr<Pass>> list;
  list.push_back(passes::elaborate());
  list.push_back(passes::checkNames());
  list.push_back(passes::route());
  list.push_back(passes::instantiate());
  return list;
}

std::optional<CompiledSystem> compile(const grammar::ParsedSystem& parsed,
                                      grammar::Diagnostics& diagnostics, std::ostream* trace,
                                      const grammar::ParameterOverrides& overrides,
                                      const Placements& placements) {
  Compilation c{parsed, diagnostics, overrides, placements, false, false, {}, {}, {}, std::nullopt};
  for (const auto& pass : standardPasses()) {
    pass->apply(c);
    if (trace) {
      *trace << "after " << pass->name() << ": ";
      pass->dump(c, *trace);
    }
    if (diagnostics.hasErrors()) return std::nullopt;
  }
  return std::move(c.result);
}

std::optional<System> probeSystem(const grammar::ParsedSystem& parsed,
                                  grammar::Diagnostics& diagnostics,
                                  const grammar::ParameterOverrides& overrides) {
  const Placements none;
  Compilation c{parsed, diagnostics, overrides, none, true, false, {}, {}, {}, std::nullopt};
  std::unique_ptr<Pass> probe[] = {passes::elaborate(), passes::checkNames()};
  for (const auto& pass : probe) {
    pass->apply(c);
    if (diagnostics.hasErrors()) return std::nullopt;
  }
  return std::move(c.system);
}

std::optional<std::vector<elab::ReplicaCount>> replicaCounts(
    const grammar::ParsedSystem& parsed, grammar::Diagnostics& diagnostics,
    const grammar::ParameterOverrides& overrides) {
  const Placements none;
  Compilation c{parsed, diagnostics, overrides, none, false, true, {}, {}, {}, std::nullopt};
  passes::elaborate()->apply(c);
  if (diagnostics.hasErrors()) return std::nullopt;
  return std::move(c.elaborated.replicaCounts);
}

}  // namespace mmt::compiler
