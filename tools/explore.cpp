#include "explore.hpp"

#include "report.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace mmt::tools {
namespace {

std::string mappingText(const compiler::Placements& m) {
  std::string out;
  for (const auto& [task, processor] : m) out += (out.empty() ? "" : " ") + task + "=" + processor;
  return out.empty() ? "(as written)" : out;
}

std::size_t shownCount(const ExploreResult& r) {
  return r.shown == 0 ? r.entries.size() : std::min(r.shown, r.entries.size());
}

}  // namespace

void rankExplored(ExploreResult& r) {
  std::stable_sort(r.entries.begin(), r.entries.end(), [&](const ExploreEntry& a, const ExploreEntry& b) {
    if (a.ok != b.ok) return a.ok;
    if (!a.ok) return a.order < b.order;
    const double x = a.value->value, y = b.value->value;
    if (x != y) return r.maximize ? x > y : x < y;
    return a.order < b.order;
  });
}

void printExploreTable(const ExploreResult& r, std::ostream& out) {
  out << "system " << r.model << ": " << r.candidates << " candidate mapping"
      << (r.candidates == 1 ? "" : "s") << ", " << r.entries.size() << " distinct";
  if (!r.symmetriesChecked)
    out << " (symmetries not searched beyond " << compiler::kMaxSymmetryProcessors << " processors)";
  else if (r.symmetries > 1)
    out << " up to " << r.symmetries - 1 << " symmetr" << (r.symmetries == 2 ? "y" : "ies")
        << " of identical processors";
  out << "\nranked by " << r.metric << " (" << (r.maximize ? "largest" : "smallest")
      << " first)\n\n";
  std::vector<std::string> texts;
  std::size_t width = 7;
  for (std::size_t i = 0; i < shownCount(r); ++i) {
    texts.push_back(mappingText(r.entries[i].mapping));
    width = std::max(width, texts.back().size());
  }
  out << std::left << std::setw(6) << "rank" << std::setw(int(width) + 2) << "mapping" << std::right
      << std::setw(14) << "metric" << std::setw(10) << "states" << std::setw(10) << "seconds"
      << '\n';
  for (std::size_t i = 0; i < shownCount(r); ++i) {
    const ExploreEntry& e = r.entries[i];
    out << std::left << std::setw(6) << (i + 1) << std::setw(int(width) + 2) << texts[i]
        << std::right;
    if (!e.ok) {
      out << "  failed: " << e.reason << '\n';
      continue;
    }
    std::ostringstream sec;
    sec << std::fixed << std::setprecision(3) << e.seconds;
    out << std::setw(14) << shortNumber(e.value->value) << std::setw(10) << e.states << std::setw(10) << sec.str()
        << '\n';
  }
  if (shownCount(r) < r.entries.size())
    out << "(" << r.entries.size() - shownCount(r) << " more; --top 0 shows all)\n";
}

nlohmann::ordered_json exploreJson(const ExploreResult& r) {
  using json = nlohmann::ordered_json;
  json ranking = json::array();
  for (std::size_t i = 0; i < shownCount(r); ++i) {
    const ExploreEntry& e = r.entries[i];
    json mapping = json::object();
    for (const auto& [task, processor] : e.mapping) mapping[task] = processor;
    json item = {{"rank", i + 1}, {"mapping", mapping}};
    if (!e.ok) {
      item["failed"] = e.reason;
    } else {
      item["metric"] = e.value->value;
      item["application"] = e.results.at("application");
      item["states"] = {{"tangible", e.states}, {"vanishing", e.vanishing}, {"edges", e.edges}};
      item["seconds"] = e.seconds;
    }
    ranking.push_back(std::move(item));
  }
  nlohmann::ordered_json out = schemaTag("explore");
  out.update(nlohmann::ordered_json{{"system", r.model},
          {"metric", r.metric},
          {"order", r.maximize ? "max" : "min"},
          {"ranking", ranking},
          {"mappings",
           {{"candidates", r.candidates},
            {"distinct", r.entries.size()},
            {"symmetries", r.symmetries},
            {"symmetries_searched", r.symmetriesChecked}}}});
  return out;
}

}  // namespace mmt::tools
