#include "io/formats.hpp"

#include <cctype>
#include <stdexcept>
#include <string>

#include "io/load_gspn.hpp"

namespace mmt::io {

bool isPnproFile(std::string_view path) {
  if (path.size() < 6) return false;
  std::string tail(path.substr(path.size() - 6));
  for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".pnpro";
}

bool isNetFile(std::string_view path) {
  return path.ends_with(".gspn") || path.ends_with(".pnml") || path.ends_with(".net") ||
         isPnproFile(path);
}

std::optional<gspn::Net> loadNet(const SourceFile& source, Diagnostics& diagnostics,
                                 const SourceFile& definitions, Diagnostics& definitionDiagnostics,
                                 const ParameterOverrides& overrides,
                                 const coloured::UnfoldLimits& unfolding, const std::string& page) {
  const std::string_view path = source.path;
  if (!page.empty() && !isPnproFile(path))
    throw std::invalid_argument("loadNet: a page is named for '" + source.path +
                                "', which is not a PNPRO project");
  if (path.ends_with(".gspn")) return loadGspn(source, diagnostics, overrides);
  if (path.ends_with(".pnml")) return loadPnml(source, diagnostics, overrides, unfolding);
  if (path.ends_with(".net"))
    return loadGreatSpn(source, diagnostics, definitions, definitionDiagnostics, overrides);
  if (isPnproFile(path)) return loadPnpro(source, diagnostics, overrides, unfolding, page);
  throw std::invalid_argument("loadNet: '" + source.path +
                              "' is not a .gspn, .pnml, .net or .pnpro file");
}

}  // namespace mmt::io
