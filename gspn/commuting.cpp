#include "gspn/commuting.hpp"

#include <algorithm>
#include <limits>

namespace mmt::gspn {

namespace {

/// Appends the places of `arcs` whose multiplicity depends on the marking, and the places
/// their expressions read.
void addMarkingDependent(const Net& net, std::span<const Arc> arcs, std::vector<PlaceId>& reads,
                         std::vector<PlaceId>& changes, bool changing) {
  for (const Arc& a : arcs) {
    if (a.expression == Arc::kConstant) continue;
    if (changing) changes.push_back(a.place);
    for (std::uint32_t p : placesRead(net.arcExpressions()[a.expression])) reads.push_back(p);
  }
}

void sortUnique(std::vector<PlaceId>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

CommutingImmediates::CommutingImmediates(const Net& net)
    : net_(net),
      filled_(net.placeCount(), 0),
      met_(net.transitionCount(), 0),
      enabledMark_(net.transitionCount(), 0) {
  std::vector<std::vector<TransitionId>> readers(net.placeCount()), changers(net.placeCount());
  std::vector<PlaceId> reads, changes;
  std::vector<std::int64_t> delta(net.placeCount(), 0);
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    reads.clear();
    changes.clear();
    if (net.isImmediate(t)) {
      for (const Arc& a : net.inputs(t)) {
        reads.push_back(a.place);
        if (a.expression == Arc::kConstant) delta[a.place] -= a.multiplicity;
      }
      for (const Arc& a : net.inhibitors(t)) reads.push_back(a.place);
      for (const Arc& a : net.outputs(t))
        if (a.expression == Arc::kConstant) delta[a.place] += a.multiplicity;
      for (std::span<const Arc> arcs : {net.inputs(t), net.outputs(t)})
        for (const Arc& a : arcs) {
          if (delta[a.place] != 0) changes.push_back(a.place);
          if (delta[a.place] > 0) filled_[a.place] = 1;
          delta[a.place] = 0;
        }
      addMarkingDependent(net, net.inputs(t), reads, changes, true);
      addMarkingDependent(net, net.outputs(t), reads, changes, true);
      addMarkingDependent(net, net.inhibitors(t), reads, changes, false);
      for (const Arc& a : net.outputs(t))
        if (a.expression != Arc::kConstant) filled_[a.place] = 1;
      for (std::uint32_t p : placesRead(net.transition(t).guard)) reads.push_back(p);
      sortUnique(reads);
      sortUnique(changes);
      for (PlaceId p : reads) readers[p].push_back(t);
      for (PlaceId p : changes) changers[p].push_back(t);
    }
    reads_.index.insert(reads_.index.end(), reads.begin(), reads.end());
    reads_.endRow();
    changes_.index.insert(changes_.index.end(), changes.begin(), changes.end());
    changes_.endRow();
  }
  for (PlaceId p = 0; p < net.placeCount(); ++p) {
    readers_.index.insert(readers_.index.end(), readers[p].begin(), readers[p].end());
    readers_.endRow();
    changers_.index.insert(changers_.index.end(), changers[p].begin(), changers[p].end());
    changers_.endRow();
  }
}

bool CommutingImmediates::mayFire(TransitionId t, MarkingView m) const {
  for (const Arc& a : net_.inputs(t))
    if (a.expression == Arc::kConstant && m[a.place] < a.multiplicity && !filled_[a.place])
      return false;
  return true;
}

bool CommutingImmediates::meet(TransitionId t, MarkingView m) {
  if (met_[t] == stamp_) return false;
  met_[t] = stamp_;
  if (enabledMark_[t] == stamp_) {  // enabled, so it may fire
    process_.push_back(t);
    return true;
  }
  if (mayFire(t, m)) process_.push_back(t);
  return false;
}

bool CommutingImmediates::keepOneProcess(MarkingView m,
                                         std::vector<std::pair<TransitionId, double>>& enabled) {
  if (enabled.size() < 2) return false;
  if (++stamp_ == 0) {  // wrapped: clear the marks once every 2^32 calls
    std::fill(met_.begin(), met_.end(), 0);
    std::fill(enabledMark_.begin(), enabledMark_.end(), 0);
    stamp_ = 1;
  }
  for (const auto& [t, weight] : enabled) enabledMark_[t] = stamp_;
  process_.clear();
  std::size_t enabledMet = 0;
  if (meet(enabled.front().first, m)) ++enabledMet;
  // Breadth-first over the dependency relation, through the places between transitions.
  for (std::size_t i = 0; i < process_.size(); ++i) {
    const TransitionId u = process_[i];
    for (PlaceId p : changes_[u])
      for (TransitionId v : readers_[p])
        if (meet(v, m) && ++enabledMet == enabled.size()) return false;
    for (PlaceId p : reads_[u])
      for (TransitionId v : changers_[p])
        if (meet(v, m) && ++enabledMet == enabled.size()) return false;
  }
  std::erase_if(enabled, [&](const auto& e) { return met_[e.first] != stamp_; });
  return true;
}

}  // namespace mmt::gspn
