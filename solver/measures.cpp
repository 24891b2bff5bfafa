#include "solver/measures.hpp"

#include <algorithm>
#include <exception>

namespace mmt::solver {

namespace {

/// The states are summed in this many consecutive chunks, each on one thread, and the
/// chunks' sums added in chunk order: the same bits on any number of threads.
constexpr std::size_t kChunks = 64;

/// Fewer states are summed on one thread (a parallel region's barrier costs more).
constexpr std::size_t kParallelStates = 50'000;

/// The timed transitions by one of their input places: where that place is empty the
/// transition is disabled (a constant arc asks for at least one token; a marking-dependent
/// arc of multiplicity 0 disables, Net::isEnabled), so a marking's rates are read from the
/// transitions of its marked places and those without such an arc, not from every
/// transition (EisenbergMcGuire-PT-04: 448 transitions, 1,762,378 markings).
/// With the graph's MarkingLayout, a transition keyed by a constant place is always a
/// candidate where that place is marked and never where it is empty, and only the
/// changing places are scanned (LU at n = 4: 80 of 233).
class RatesByInputPlace {
 public:
  RatesByInputPlace(const gspn::Net& net, const gspn::MarkingLayout* layout)
      : net_(net), byPlace_(net.placeCount()) {
    for (gspn::TransitionId t : net.timedTransitions()) {
      const auto inputs = net.inputs(t);
      const auto key = std::find_if(inputs.begin(), inputs.end(), [](const gspn::Arc& a) {
        return a.expression != gspn::Arc::kConstant || a.multiplicity != 0;
      });
      if (key == inputs.end())
        always_.push_back(t);
      else if (layout && layout->wordOf(key->place) == gspn::MarkingLayout::kConstant) {
        if (layout->constantTokens(key->place) != 0) always_.push_back(t);
      } else {
        byPlace_[key->place].push_back(t);
      }
    }
    if (layout)
      scanned_ = layout->changing();
    else
      for (gspn::PlaceId p = 0; p < net.placeCount(); ++p) scanned_.push_back(p);
    std::erase_if(scanned_, [&](gspn::PlaceId p) { return byPlace_[p].empty(); });
  }
  /// visit(t, λ_t(m)) for each timed transition t with a non-zero rate in m.
  template <typename Visit>
  void forEach(gspn::MarkingView m, Visit&& visit) const {
    auto one = [&](gspn::TransitionId t) {
      if (const double rate = net_.rate(t, m); rate != 0.0) visit(t, rate);
    };
    for (gspn::TransitionId t : always_) one(t);
    for (gspn::PlaceId p : scanned_)
      if (m[p] != 0)
        for (gspn::TransitionId t : byPlace_[p]) one(t);
  }

 private:
  const gspn::Net& net_;
  std::vector<std::vector<gspn::TransitionId>> byPlace_;
  std::vector<gspn::PlaceId> scanned_;  // the places that key some transition
  std::vector<gspn::TransitionId> always_;
};

}  // namespace

SteadyStateMeasures::SteadyStateMeasures(const gspn::TangibleReachabilityGraph& graph,
                                         std::shared_ptr<const std::vector<std::uint32_t>> states,
                                         Eigen::VectorXd pi, std::size_t places,
                                         std::size_t transitions)
    : graph_(graph),
      states_(std::move(states)),
      pi_(std::move(pi)),
      meanTokens_(places, 0.0),
      throughput_(transitions, 0.0) {}

SteadyStateMeasures::SteadyStateMeasures(const gspn::Net& net,
                                         const gspn::TangibleReachabilityGraph& graph,
                                         std::vector<std::uint32_t> states, Eigen::VectorXd pi,
                                         const gspn::Symmetry* symmetry)
    : SteadyStateMeasures(std::move(under(
                                        net, graph, std::move(states),
                                        [&] {
                                          std::vector<Eigen::VectorXd> one;
                                          one.push_back(std::move(pi));
                                          return one;
                                        }(),
                                        symmetry)
                                        .front())) {}

std::vector<SteadyStateMeasures> SteadyStateMeasures::under(
    const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
    std::vector<std::uint32_t> states, std::vector<Eigen::VectorXd> distributions,
    const gspn::Symmetry* symmetry) {
  const auto shared = std::make_shared<const std::vector<std::uint32_t>>(std::move(states));
  const std::size_t n = shared->size(), places = net.placeCount(),
                    width = places + net.transitionCount() + 1, count = distributions.size();
  // Per chunk, for each distribution in turn: the places' Σ p_s m_s(p), the transitions'
  // Σ p_s λ_t(m_s), then Σ p_s. Under a layout, a constant place's mean is its count
  // times Σ p_s, and only the changing places are summed by state.
  std::vector<std::vector<double>> sums(kChunks);
  std::vector<std::exception_ptr> failure(kChunks);
  const gspn::MarkingLayout* layout = graph.markings.layout();
  const RatesByInputPlace rates(net, layout);
  std::vector<gspn::PlaceId> summed;
  if (layout)
    summed = layout->changing();
  else
    for (gspn::PlaceId p = 0; p < places; ++p) summed.push_back(p);
#pragma omp parallel for schedule(dynamic, 1) if (n >= kParallelStates)
  for (std::size_t c = 0; c < kChunks; ++c) {
    std::vector<double>& sum = sums[c];
    sum.assign(count * width, 0.0);
    std::vector<gspn::Tokens> m(places);
    std::vector<double> p(count);
    try {
      for (std::size_t i = n * c / kChunks; i < n * (c + 1) / kChunks; ++i) {
        bool reached = false;
        for (std::size_t k = 0; k < count; ++k) {
          p[k] = distributions[k][Eigen::Index(i)];
          reached |= p[k] != 0;
        }
        if (!reached) continue;
        graph.markings.decode((*shared)[i], m);
        for (std::size_t k = 0; k < count; ++k) {
          for (gspn::PlaceId place : summed) sum[k * width + place] += p[k] * m[place];
          sum[k * width + width - 1] += p[k];
        }
        auto add = [&](gspn::TransitionId t, double rate) {
          for (std::size_t k = 0; k < count; ++k) sum[k * width + places + t] += p[k] * rate;
        };
        if (symmetry)
          gspn::forEachLumpedRate(net, symmetry, m, add);
        else
          rates.forEach(m, add);
      }
    } catch (...) {
      failure[c] = std::current_exception();
    }
  }
  for (const std::exception_ptr& f : failure)
    if (f) std::rethrow_exception(f);
  std::vector<SteadyStateMeasures> out;
  std::vector<double> probability;
  for (std::size_t k = 0; k < count; ++k) {
    SteadyStateMeasures& m = out.emplace_back(
        SteadyStateMeasures(graph, shared, std::move(distributions[k]), places, width - places));
    for (std::size_t c = 0; c < kChunks; ++c) {
      const double* sum = sums[c].data() + k * width;
      for (std::size_t place = 0; place < places; ++place) m.meanTokens_[place] += sum[place];
      for (std::size_t t = 0; t < m.throughput_.size(); ++t) m.throughput_[t] += sum[places + t];
    }
    if (layout) {
      double total = 0;
      for (std::size_t c = 0; c < kChunks; ++c) total += sums[c][k * width + width - 1];
      for (gspn::PlaceId place = 0; place < places; ++place)
        if (layout->wordOf(place) == gspn::MarkingLayout::kConstant)
          m.meanTokens_[place] = total * layout->constantTokens(place);
    }
    if (graph.immediateFlows.empty()) continue;
    probability.assign(graph.stateCount(), 0.0);
    for (std::size_t i = 0; i < n; ++i) probability[(*shared)[i]] = m.pi_[Eigen::Index(i)];
    for (const auto& flow : graph.immediateFlows)
      m.throughput_[flow.transition] += probability[flow.state] * flow.rate;
  }
  return out;
}

double SteadyStateMeasures::expectation(const std::function<double(gspn::MarkingView)>& f,
                                        std::span<const gspn::PlaceId> reads) const {
  double sum = 0;
  std::vector<gspn::Tokens> m(graph_.markings.placeCount());
  const gspn::PackedMarkingStore& store = graph_.markings;
  // Without a symmetry, only the places f reads are read from each state (the others keep
  // the first state's counts); under one, a key must be expanded whole.
  const bool someRead = !store.symmetry() && !states_->empty();
  if (someRead) store.decode((*states_)[0], m);
  for (std::size_t i = 0; i < states_->size(); ++i) {
    if (someRead)
      for (gspn::PlaceId p : reads) m[p] = store.tokens((*states_)[i], p);
    else
      store.decode((*states_)[i], m);
    sum += pi_[Eigen::Index(i)] * f(m);
  }
  return sum;
}

}  // namespace mmt::solver
