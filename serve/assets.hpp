#pragma once
/// \file
/// The workbench page, built from web/ by esbuild at build time and carried inside the
/// binary, so that an installed mmt serves it with no source tree and no network.

#include <string_view>
#include <vector>

namespace mmt::serve {

struct Asset {
  std::string_view path;  ///< as requested: "/", "/app.js", "/app.css"
  std::string_view contentType;
  std::string_view body;
};

/// Every file of the page.
const std::vector<Asset>& assets();

}  // namespace mmt::serve
