#pragma once
// `mmt explore`'s table of an api::ExploreResult (docs/skeletons.md, "Exploring mappings").
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "api/explore.hpp"
#include "sweep.hpp"

namespace mmt::tools {

using api::ExploreEntry;
using api::ExploreResult;

void printExploreTable(const ExploreResult& r, std::ostream& out);

}  // namespace mmt::tools
