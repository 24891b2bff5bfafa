#pragma once
/// \file
/// One tangible state's outgoing CTMC row, vanishing markings eliminated on the fly: the
/// step the explorers repeat for every state (exploreTangible on one machine's threads,
/// mpi/state_space.hpp over the ranks of an MPI run).

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gspn/marking_store.hpp"
#include "gspn/net.hpp"
#include "gspn/reachability.hpp"
#include "gspn/symmetry.hpp"
#include "gspn/vanishing.hpp"

namespace mmt::gspn {

/// A failure that ends exploration.
struct ExplorationFailure {
  ExplorationResult::Status status;
  std::string message;
  std::optional<PlaceId> fullestPlace = std::nullopt;
  Tokens fullestTokens = 0;
};

/// The failure of a vanishing resolution, as an exploration failure.
inline ExplorationFailure eliminationFailure(const VanishingEliminator& eliminator,
                                             VanishingEliminator::Status status) {
  using S = VanishingEliminator::Status;
  return {status == S::TimelessTrap  ? ExplorationResult::Status::TimelessTrap
          : status == S::Interrupted ? ExplorationResult::Status::Interrupted
                                     : ExplorationResult::Status::TooManyVanishing,
          eliminator.error()};
}

/// Sorts a row of (target, rate) pairs by target, adds the rates of parallel edges and drops
/// the self-loop of state `s` (it does not change the CTMC). Returns the total rate out.
inline double mergeRow(std::vector<std::pair<std::uint32_t, double>>& row, std::uint32_t s) {
  std::sort(row.begin(), row.end());
  std::size_t out = 0;
  double total = 0;
  for (std::size_t i = 0; i < row.size();) {
    const std::uint32_t to = row[i].first;
    double sum = 0;
    for (; i < row.size() && row[i].first == to; ++i) sum += row[i].second;
    if (to != s) {
      row[out++] = {to, sum};
      total += sum;
    }
  }
  row.resize(out);
  return total;
}

/// Computes the outgoing CTMC row of one tangible state. One per thread: it holds the
/// vanishing eliminator and the scratch markings.
class RowBuilder {
 public:
  RowBuilder(const Net& net, const ExplorationSettings& settings)
      : net_(net),
        symmetry_(settings.symmetry),
        eliminator_(net, settings.maxVanishingPerFiring, settings.run.interrupt,
                    settings.everyOrder),
        current_(net.placeCount()),
        next_(net.placeCount()),
        flowAccumulator_(net.transitionCount(), 0.0),
        constantRate_(net.transitionCount(), 0.0),
        timed_(net.transitionCount(), 0) {
    // Single-server transitions with a constant rate and constant arcs take the fast path:
    // an inline enabling test and the stored rate.
    for (TransitionId t : net.timedTransitions()) {
      timed_[t] = 1;
      const Transition& tr = net.transition(t);
      if (tr.servers == ServerSemantics::Single && tr.rateExpression.empty() &&
          !net.hasMarkingDependentArcs(t))
        constantRate_[t] = tr.rate;
    }
  }

  VanishingEliminator& eliminator() { return eliminator_; }

  /// Fills row() with the successors of state s, unmerged, in the order of the timed
  /// transitions (under a symmetry, of Symmetry::forEachRepresentative) and of each
  /// vanishing resolution's exits: `idOf(m)` names each successor
  /// (a stored id, or whatever the caller uses for markings it has not stored), m being
  /// what the store holds: the successor's key under the store's symmetry
  /// (Symmetry::key) or layout (MarkingLayout::key), the successor itself otherwise
  /// (canonical under the builder's symmetry). Immediate flows are appended to `flows`
  /// when it is not null. Under a symmetry, a transition stands for its interchangeable
  /// copies (Symmetry::firingMultiplicity), its rate multiplied by their number.
  template <typename IdOf>
  void collect(const PackedMarkingStore& store, std::uint32_t s, IdOf&& idOf,
               std::vector<TangibleReachabilityGraph::ImmediateFlow>* flows) {
    // A packed layout's successor keys come from the state's key where a transition's
    // firing is a constant change (MarkingLayout::Firing) that leads to a tangible
    // marking: no fired marking and no packing of it.
    const MarkingLayout* layout = store.layout();
    const bool fromKey = !symmetry_ && !store.symmetry() && layout && layout->packed();
    if (fromKey) {
      if (firingsOf_ != layout) prepareFirings(*layout);
      store.key(s, currentKey_);
      layout->expand(currentKey_, current_);
    } else {
      store.decode(s, current_);
    }
    row_.clear();
    const bool keys = store.symmetry() != nullptr || layout != nullptr;
    auto successor = [&](MarkingView m) { return keys ? stored(store, m) : canonical(m); };
    double total = 0;
    auto fireTimed = [&](TransitionId t, std::uint32_t copies) {
      double lambda = constantRate_[t];
      if (lambda != 0.0) {
        if (!net_.isEnabled(t, current_)) return;
      } else {
        lambda = net_.rate(t, current_);
        if (lambda == 0.0) return;
      }
      lambda *= copies;
      total += lambda;
      if (fromKey && firing_[t]) {
        layout->fire(*firing_[t], current_, currentKey_, key_);
        row_.emplace_back(idOf(MarkingView(key_)), lambda);
        return;
      }
      net_.fire(t, current_, next_);
      if (!eliminator_.isVanishingAfter(t, next_)) {  // current_ is tangible
        row_.emplace_back(idOf(successor(next_)), lambda);
        return;
      }
      if (auto status = eliminator_.resolve(next_); status != VanishingEliminator::Status::Ok)
        throw eliminationFailure(eliminator_, status);
      for (std::uint32_t e = 0; e < eliminator_.exits().size(); ++e)
        row_.emplace_back(idOf(successor(eliminator_.exits()[e])),
                          lambda * eliminator_.exitProbability()[e]);
      if (flows)
        for (auto [u, count] : eliminator_.firings()) {
          if (flowAccumulator_[u] == 0.0) flowTouched_.push_back(u);
          flowAccumulator_[u] += lambda * count;
        }
    };
    if (symmetry_) {
      symmetry_->runs(current_, runs_);
      symmetry_->forEachRepresentative(runs_, [&](TransitionId t, std::uint32_t copies) {
        if (timed_[t]) fireTimed(t, copies);
      });
    } else {
      for (TransitionId t : net_.timedTransitions()) fireTimed(t, 1);
    }
    if (!std::isfinite(total))
      throw std::domain_error("the total rate out of the marking {" + net_.describe(current_) +
                              "} is not finite (rates that large overflow; use another time "
                              "unit)");
    if (flows) {
      for (TransitionId u : flowTouched_) {
        flows->push_back({s, u, flowAccumulator_[u]});
        flowAccumulator_[u] = 0.0;
      }
      flowTouched_.clear();
    }
  }

  /// Fills row() with the merged row of state s (see mergeRow), every successor of which
  /// must already be stored. Only looks the store up: safe on several threads at once.
  void build(const PackedMarkingStore& store, std::uint32_t s) {
    collect(
        store, s,
        [&](MarkingView m) {
          auto id = store.find(m, scratch_);
          if (!id) throw std::logic_error("exploration: a successor missing in the second pass");
          return *id;
        },
        nullptr);
    mergeRow(row_, s);
  }

  std::vector<std::pair<std::uint32_t, double>>& row() { return row_; }

  /// m itself, or under a symmetry its canonical marking (in a buffer of this builder's,
  /// valid until the next call).
  MarkingView canonical(MarkingView m) {
    if (!symmetry_) return m;
    canonical_.assign(m.begin(), m.end());
    symmetry_->canonicalize(canonical_);
    return canonical_;
  }
  /// What `store` holds for marking m: its key under the store's symmetry or layout, m
  /// otherwise (in a buffer of this builder's, valid until the next call).
  MarkingView stored(const PackedMarkingStore& store, MarkingView m) {
    if (store.symmetry())
      store.symmetry()->key(m, key_);
    else if (store.layout())
      store.layout()->key(m, key_);
    else
      return m;
    return key_;
  }

 private:
  /// firing_ for `layout`: the firing of each timed transition that has one and always
  /// leads to a tangible marking.
  void prepareFirings(const MarkingLayout& layout) {
    firing_.assign(net_.transitionCount(), std::nullopt);
    for (TransitionId t : net_.timedTransitions())
      if (eliminator_.tangibleAfter(t)) firing_[t] = layout.firing(net_, t);
    firingsOf_ = &layout;
  }

  const Net& net_;
  const Symmetry* symmetry_;
  VanishingEliminator eliminator_;
  std::vector<Tokens> current_, next_, canonical_, key_, currentKey_;
  const MarkingLayout* firingsOf_ = nullptr;
  std::vector<std::optional<MarkingLayout::Firing>> firing_;  // per transition
  Symmetry::Runs runs_;
  std::vector<std::pair<std::uint32_t, double>> row_;
  std::vector<double> flowAccumulator_;
  std::vector<TransitionId> flowTouched_;
  std::vector<double> constantRate_;  // 0 where the general path is needed
  std::vector<char> timed_;           // per transition
  std::vector<std::uint8_t> scratch_;
};

}  // namespace mmt::gspn
