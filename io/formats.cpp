#include "io/formats.hpp"

#include <cctype>
#include <stdexcept>
#include <string>

#include "io/load_gspn.hpp"

namespace mmt::io {

namespace {
/// GreatSPN's editor saves `.PNPRO`; other tools write `.pnpro`.
bool isPnpro(std::string_view path) {
  if (path.size() < 6) return false;
  std::string tail(path.substr(path.size() - 6));
  for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".pnpro";
}
}  // namespace

bool isNetFile(std::string_view path) {
  return path.ends_with(".gspn") || path.ends_with(".pnml") || path.ends_with(".net") ||
         isPnpro(path);
}

std::optional<gspn::Net> loadNet(const SourceFile& source, Diagnostics& diagnostics,
                                 const SourceFile& definitions, Diagnostics& definitionDiagnostics,
                                 const ParameterOverrides& overrides,
                                 const coloured::UnfoldLimits& unfolding) {
  const std::string_view path = source.path;
  if (path.ends_with(".gspn")) return loadGspn(source, diagnostics, overrides);
  if (path.ends_with(".pnml")) return loadPnml(source, diagnostics, overrides, unfolding);
  if (path.ends_with(".net"))
    return loadGreatSpn(source, diagnostics, definitions, definitionDiagnostics, overrides);
  if (isPnpro(path)) return loadPnpro(source, diagnostics, overrides, unfolding);
  throw std::invalid_argument("loadNet: '" + source.path +
                              "' is not a .gspn, .pnml, .net or .pnpro file");
}

}  // namespace mmt::io
