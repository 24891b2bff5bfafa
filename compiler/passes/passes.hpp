#pragma once
/// \file
/// The compiler passes, one file each (docs/modelling.md, "Compiler passes"), in the order
/// `standardPasses()` runs them.

#include <memory>

#include "compiler/compile.hpp"

namespace mmt::compiler::passes {

/// elaborate: evaluates parameters, expands loops and conditions, makes names concrete.
std::unique_ptr<Pass> elaborate();
/// check-names: resolves every name, checks properties, builds the System model.
std::unique_ptr<Pass> checkNames();
/// route: gives every remote message its route (explicit `via`, else fewest links) and
/// cuts it into hops.
std::unique_ptr<Pass> route();
/// instantiate: one compound template per element → the GSPN and its ports.
std::unique_ptr<Pass> instantiate();

}  // namespace mmt::compiler::passes
