#include "compiler/mappings.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>

namespace mmt::compiler {
namespace {

/// What makes two processors interchangeable.
auto processorKey(const Processor& p) {
  return std::make_tuple(p.policy, p.speed, p.servers, p.localBandwidth);
}

/// A link as the permutation sees it: its ends (sorted) and its properties.
using LinkKey = std::tuple<std::vector<Index>, LinkKind, double, double, std::uint32_t>;
LinkKey linkKey(const Link& l, const std::vector<Index>& perm) {
  std::vector<Index> ends;
  for (Index e : l.ends) ends.push_back(perm[e]);
  std::sort(ends.begin(), ends.end());
  return {ends, l.kind, l.bandwidth, l.latency, l.channels};
}

bool isSymmetry(const System& s, const std::vector<Index>& perm, const std::vector<bool>& fixed,
                const std::multiset<LinkKey>& links) {
  for (Index p = 0; p < perm.size(); ++p) {
    if (fixed[p] && perm[p] != p) return false;
    if (processorKey(s.processors[p]) != processorKey(s.processors[perm[p]])) return false;
  }
  std::multiset<LinkKey> image;
  for (const Link& l : s.links) image.insert(linkKey(l, perm));
  return image == links;
}

}  // namespace

MappingSpace mappingSpace(const System& s) {
  MappingSpace space;
  for (Index t = 0; t < s.tasks.size(); ++t)
    if (!s.tasks[t].processor) space.free.push_back(t);
  for (Index p = 0; p < s.processors.size(); ++p)
    if (!s.processors[p].policyGiven || s.processors[p].policy == Policy::Static)
      space.processors.push_back(p);

  const std::size_t n = s.processors.size();
  std::vector<Index> identity(n);
  std::iota(identity.begin(), identity.end(), Index(0));
  space.symmetries.push_back(identity);
  if (n > kMaxSymmetryProcessors) {
    space.symmetriesChecked = false;
    return space;
  }
  // Processors that something placed, or a skeleton's input or output, pins down.
  std::vector<bool> fixed(n, false);
  for (const Actor& a : s.actors)
    if (a.processor) fixed[*a.processor] = true;
  for (const DataNode& d : s.dataNodes)
    if (d.processor) fixed[*d.processor] = true;
  for (const Task& t : s.tasks)
    if (t.processor) fixed[*t.processor] = true;
  for (const Skeleton& k : s.skeletons)
    for (const Endpoint& e : {k.input, k.output})
      if (e.kind == Endpoint::Kind::Processor) fixed[e.processor] = true;
  // A processor no task may use is pinned too: a swap would move a task onto it.
  for (Index p = 0; p < n; ++p)
    if (std::find(space.processors.begin(), space.processors.end(), p) == space.processors.end())
      fixed[p] = true;
  std::multiset<LinkKey> links;
  for (const Link& l : s.links) links.insert(linkKey(l, identity));
  std::vector<Index> perm = identity;
  while (std::next_permutation(perm.begin(), perm.end()))
    if (isSymmetry(s, perm, fixed, links)) space.symmetries.push_back(perm);
  return space;
}

std::vector<Mapping> allMappings(const MappingSpace& space, std::size_t limit) {
  std::vector<Mapping> out;
  if (space.processors.empty()) return out;
  double count = 1;
  for (std::size_t i = 0; i < space.free.size(); ++i) count *= double(space.processors.size());
  if (count > double(limit))
    throw std::length_error(std::to_string(space.free.size()) + " free tasks on " +
                            std::to_string(space.processors.size()) + " processors make " +
                            std::to_string(static_cast<long long>(count)) +
                            " candidate mappings, more than " + std::to_string(limit) +
                            "; place some tasks in the description");
  std::vector<std::size_t> digit(space.free.size(), 0);
  for (;;) {
    Mapping m;
    for (std::size_t d : digit) m.push_back(space.processors[d]);
    out.push_back(std::move(m));
    std::size_t i = digit.size();
    while (i > 0 && ++digit[i - 1] == space.processors.size()) digit[--i] = 0;
    if (i == 0) break;
  }
  return out;
}

Mapping canonicalMapping(const MappingSpace& space, const Mapping& m) {
  Mapping best = m;
  for (const std::vector<Index>& perm : space.symmetries) {
    Mapping image;
    for (Index p : m) image.push_back(perm[p]);
    best = std::min(best, image);
  }
  return best;
}

std::vector<std::size_t> distinctMappings(const MappingSpace& space,
                                          const std::vector<Mapping>& candidates) {
  std::set<Mapping> seen;
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (seen.insert(canonicalMapping(space, candidates[i])).second) out.push_back(i);
  return out;
}

}  // namespace mmt::compiler
