#include <ostream>

#include "compiler/passes/passes.hpp"
#include "compiler/symmetry.hpp"

namespace mmt::compiler::passes {
namespace {

class Instantiate final : public Pass {
 public:
  std::string_view name() const override { return "instantiate"; }
  void apply(Compilation& c) const override {
    gspn::NetBuilder builder(c.system.name);
    Ports ports = instantiateTemplates(builder, c.system, c.routing);
    std::vector<gspn::SymmetryFactor> symmetry = replicaSymmetry(c.system, c.routing, ports);
    c.result = CompiledSystem{c.system,         c.routing,           builder.freeze(),
                              std::move(ports), std::move(symmetry), c.elaborated.parameters};
  }
  void dump(const Compilation& c, std::ostream& out) const override {
    if (c.result)
      out << c.result->net.placeCount() << " places, " << c.result->net.transitionCount()
          << " transitions\n";
  }
};

}  // namespace

std::unique_ptr<Pass> instantiate() { return std::make_unique<Instantiate>(); }

}  // namespace mmt::compiler::passes
