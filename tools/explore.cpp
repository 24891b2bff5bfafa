#include "explore.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "report.hpp"

namespace mmt::tools {
namespace {

std::string mappingText(const compiler::Placements& m) {
  std::string out;
  for (const auto& [task, processor] : m) out += (out.empty() ? "" : " ") + task + "=" + processor;
  return out.empty() ? "(as written)" : out;
}

}  // namespace

void printExploreTable(const ExploreResult& r, std::ostream& out) {
  out << "system " << r.model << ": " << r.candidates << " candidate mapping"
      << (r.candidates == 1 ? "" : "s") << ", " << r.entries.size() << " distinct";
  if (!r.symmetriesChecked)
    out << " (symmetries not searched beyond " << compiler::kMaxSymmetryProcessors
        << " processors)";
  else if (r.symmetries > 1)
    out << " up to " << r.symmetries - 1 << " symmetr" << (r.symmetries == 2 ? "y" : "ies")
        << " of identical processors";
  out << "\nranked by " << r.metric << " (" << (r.maximize ? "largest" : "smallest") << " first)"
      << (r.meanField ? " by the mean-field approximation (docs/meanfield.md)" : "") << "\n\n";
  std::vector<std::string> texts;
  std::size_t width = 7;
  for (std::size_t i = 0; i < r.shownCount(); ++i) {
    texts.push_back(mappingText(r.entries[i].mapping));
    width = std::max(width, texts.back().size());
  }
  out << std::left << std::setw(6) << "rank" << std::setw(int(width) + 2) << "mapping" << std::right
      << std::setw(14) << "metric" << std::setw(10) << "states" << std::setw(10) << "seconds"
      << '\n';
  for (std::size_t i = 0; i < r.shownCount(); ++i) {
    const ExploreEntry& e = r.entries[i];
    out << std::left << std::setw(6) << (i + 1) << std::setw(int(width) + 2) << texts[i]
        << std::right;
    if (!e.ok) {
      out << "  failed: " << e.reason << '\n';
      continue;
    }
    std::ostringstream sec;
    sec << std::fixed << std::setprecision(3) << e.seconds;
    out << std::setw(14) << shortNumber(e.value->value) << std::setw(10)
        << (r.meanField ? std::string("-") : std::to_string(e.states)) << std::setw(10) << sec.str()
        << '\n';
  }
  if (r.shownCount() < r.entries.size())
    out << "(" << r.entries.size() - r.shownCount() << " more; --top 0 shows all)\n";
}

}  // namespace mmt::tools
