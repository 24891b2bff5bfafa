#include "grammar/formats.hpp"

#include <stdexcept>

namespace mmt::grammar {

bool isNetFile(std::string_view path) {
  return path.ends_with(".gspn") || path.ends_with(".pnml") || path.ends_with(".net");
}

std::optional<gspn::Net> loadNet(const SourceFile& source, Diagnostics& diagnostics,
                                 const SourceFile& definitions,
                                 Diagnostics& definitionDiagnostics,
                                 const ParameterOverrides& overrides) {
  const std::string_view path = source.path;
  if (path.ends_with(".gspn")) return loadGspn(source, diagnostics, overrides);
  if (path.ends_with(".pnml")) return loadPnml(source, diagnostics, overrides);
  if (path.ends_with(".net"))
    return loadGreatSpn(source, diagnostics, definitions, definitionDiagnostics, overrides);
  throw std::invalid_argument("loadNet: '" + source.path + "' is not a .gspn, .pnml or .net file");
}

}  // namespace mmt::grammar
