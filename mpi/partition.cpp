#include "mpi/partition.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "grammar/diagnostics.hpp"

namespace mmt::mpi {

namespace {

/// The count of starts (keys of k counts, back to back) at or below `key`: its owner.
template <typename KeyAt>
int countStartsAtOrBelow(const std::vector<gspn::Tokens>& starts, std::size_t k, KeyAt&& keyAt) {
  // Binary search for the first start above the key.
  std::size_t lo = 0, hi = k ? starts.size() / k : 0;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    const gspn::Tokens* start = starts.data() + mid * k;
    bool above = false;
    for (std::size_t i = 0; i < k; ++i) {
      const gspn::Tokens v = keyAt(i);
      if (start[i] != v) {
        above = start[i] > v;
        break;
      }
    }
    if (above)
      hi = mid;
    else
      lo = mid + 1;
  }
  return int(lo);
}

/// One key's ranges over the sample and what they cost.
struct Evaluation {
  std::vector<gspn::Tokens> starts;
  double crossFraction = 1;
  double largestShare = 1;
};

/// Cuts the sample's markings, sorted by their counts at `places`, into `ranks` ranges of
/// about equal size (a key is never split: each cut goes before the key nearest to its
/// target), and counts the edges whose two ends fall in different ranges.
Evaluation evaluate(const PartitionSample& sample, const std::vector<gspn::PlaceId>& places,
                    int ranks) {
  const std::size_t k = places.size(), n = sample.stateCount(), P = sample.places;
  std::vector<gspn::Tokens> keys(n * k);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t i = 0; i < k; ++i) keys[s * k + i] = sample.states[s * P + places[i]];
  auto less = [&](std::uint32_t a, std::uint32_t b) {
    return std::lexicographical_compare(keys.begin() + a * k, keys.begin() + (a + 1) * k,
                                        keys.begin() + b * k, keys.begin() + (b + 1) * k);
  };
  auto same = [&](std::uint32_t a, std::uint32_t b) {
    return std::equal(keys.begin() + a * k, keys.begin() + (a + 1) * k, keys.begin() + b * k);
  };
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), less);

  // Where each distinct key begins in `order`; the cut for rank r goes at the beginning
  // nearest to r · n / P, never before the previous cut.
  std::vector<std::size_t> begins;
  for (std::size_t i = 0; i < n; ++i)
    if (i == 0 || !same(order[i - 1], order[i])) begins.push_back(i);
  begins.push_back(n);
  Evaluation out;
  std::vector<std::size_t> cuts{0};
  for (int r = 1; r < ranks; ++r) {
    const double target = double(r) * double(n) / ranks;
    auto it = std::lower_bound(begins.begin(), begins.end(), std::size_t(std::ceil(target)));
    if (it != begins.begin() && target - double(*std::prev(it)) < double(*it) - target) --it;
    const std::size_t cut = std::max(cuts.back(), *it);
    cuts.push_back(cut);
    if (cut < n)
      out.starts.insert(out.starts.end(), keys.begin() + order[cut] * k,
                        keys.begin() + (order[cut] + 1) * k);
    else
      out.starts.insert(out.starts.end(), k, std::numeric_limits<gspn::Tokens>::max());
  }
  cuts.push_back(n);
  std::size_t largest = 0;
  for (int r = 0; r < ranks; ++r) largest = std::max(largest, cuts[r + 1] - cuts[r]);
  out.largestShare = n ? double(largest) / double(n) : 1.0;

  std::vector<int> ownerOf(n);
  for (std::size_t s = 0; s < n; ++s)
    ownerOf[s] =
        countStartsAtOrBelow(out.starts, k, [&](std::size_t i) { return keys[s * k + i]; });
  std::vector<gspn::Tokens> target(k);
  std::size_t cross = 0;
  for (std::size_t e = 0; e < sample.edgeCount(); ++e) {
    const std::uint32_t s = sample.source[e];
    std::copy(keys.begin() + s * k, keys.begin() + (s + 1) * k, target.begin());
    for (std::uint32_t c = sample.changesAt[e]; c < sample.changesAt[e + 1]; ++c)
      for (std::size_t i = 0; i < k; ++i)
        if (places[i] == sample.changes[c].place) target[i] = sample.changes[c].tokens;
    if (countStartsAtOrBelow(out.starts, k, [&](std::size_t i) { return target[i]; }) != ownerOf[s])
      ++cross;
  }
  out.crossFraction = sample.edgeCount() ? double(cross) / double(sample.edgeCount()) : 0.0;
  return out;
}

}  // namespace

Partition::Partition(int ranks, std::vector<gspn::PlaceId> places, std::vector<gspn::Tokens> starts)
    : ranks_(ranks), places_(std::move(places)), starts_(std::move(starts)) {
  if (starts_.size() != places_.size() * std::size_t(ranks - 1))
    throw std::logic_error("Partition: ranks - 1 starts of one count per place expected");
}

int Partition::owner(gspn::MarkingView m) const {
  if (places_.empty()) return int(gspn::hashMarking(m) % std::uint64_t(ranks_));
  return countStartsAtOrBelow(starts_, places_.size(),
                              [&](std::size_t i) { return m[places_[i]]; });
}

std::string Partition::describe(const gspn::Net& net) const {
  if (places_.empty()) return "hash";
  std::vector<std::string> names;
  for (const gspn::PlaceId p : places_) names.push_back(net.place(p).name);
  return (names.size() == 1 ? "place " : "places ") + grammar::join(names);
}

std::uint32_t PartitionSample::addState(gspn::MarkingView m) {
  states.insert(states.end(), m.begin(), m.end());
  return std::uint32_t(stateCount() - 1);
}

void PartitionSample::addEdge(std::uint32_t from, gspn::MarkingView target) {
  const gspn::Tokens* m = states.data() + std::size_t(from) * places;
  for (gspn::PlaceId p = 0; p < places; ++p)
    if (target[p] != m[p]) changes.push_back({p, target[p]});
  source.push_back(from);
  changesAt.push_back(std::uint32_t(changes.size()));
}

std::vector<std::uint32_t> PartitionSample::flatten() const {
  // States, edges and changes counted first, then each in turn.
  std::vector<std::uint32_t> out{std::uint32_t(stateCount()), std::uint32_t(edgeCount()),
                                 std::uint32_t(changes.size())};
  out.insert(out.end(), states.begin(), states.end());
  out.insert(out.end(), source.begin(), source.end());
  out.insert(out.end(), changesAt.begin() + 1, changesAt.end());
  for (const Change& c : changes) {
    out.push_back(c.place);
    out.push_back(c.tokens);
  }
  return out;
}

PartitionSample PartitionSample::merge(std::size_t placeCount,
                                       const std::vector<std::uint32_t>& flat) {
  PartitionSample out(placeCount);
  for (std::size_t at = 0; at < flat.size();) {
    const std::uint32_t states = flat[at], edges = flat[at + 1], changes = flat[at + 2];
    at += 3;
    const auto first = std::uint32_t(out.stateCount());
    const auto changesBefore = std::uint32_t(out.changes.size());
    out.states.insert(out.states.end(), flat.begin() + at, flat.begin() + at + states * placeCount);
    at += states * placeCount;
    for (std::uint32_t e = 0; e < edges; ++e) out.source.push_back(first + flat[at + e]);
    at += edges;
    for (std::uint32_t e = 0; e < edges; ++e) out.changesAt.push_back(changesBefore + flat[at + e]);
    at += edges;
    for (std::uint32_t c = 0; c < changes; ++c)
      out.changes.push_back({flat[at + 2 * c], flat[at + 2 * c + 1]});
    at += 2 * std::size_t(changes);
  }
  return out;
}

PartitionChoice choosePartition(const PartitionSample& sample, int ranks) {
  const double hashCost = 1.0 - 1.0 / ranks;
  PartitionChoice best{Partition(ranks), hashCost, 1.0 / ranks};
  if (ranks < 2 || sample.stateCount() == 0) return best;
  auto cost = [&](const Evaluation& e) { return e.crossFraction + ranks * e.largestShare - 1; };

  // Places whose count varies over the sample.
  std::vector<gspn::PlaceId> varying;
  for (gspn::PlaceId p = 0; p < sample.places; ++p)
    for (std::size_t s = 1; s < sample.stateCount(); ++s)
      if (sample.states[s * sample.places + p] != sample.states[p]) {
        varying.push_back(p);
        break;
      }

  std::vector<gspn::PlaceId> key;
  double keyCost = std::numeric_limits<double>::infinity();
  std::optional<Evaluation> keyEvaluation;
  for (int depth = 0; depth < 3; ++depth) {
    std::optional<std::pair<gspn::PlaceId, Evaluation>> step;
    double stepCost = keyCost;
    for (const gspn::PlaceId p : varying) {
      if (std::find(key.begin(), key.end(), p) != key.end()) continue;
      std::vector<gspn::PlaceId> longer = key;
      longer.push_back(p);
      Evaluation e = evaluate(sample, longer, ranks);
      // A longer key must earn its place: at least a hundredth off the cost.
      if (cost(e) < stepCost - (key.empty() ? 0.0 : 0.01)) {
        stepCost = cost(e);
        step.emplace(p, std::move(e));
      }
    }
    if (!step) break;
    key.push_back(step->first);
    keyCost = stepCost;
    keyEvaluation = std::move(step->second);
  }
  if (keyEvaluation && keyCost <= 0.75 * hashCost)
    best = {Partition(ranks, key, keyEvaluation->starts), keyEvaluation->crossFraction,
            keyEvaluation->largestShare};
  return best;
}

}  // namespace mmt::mpi
