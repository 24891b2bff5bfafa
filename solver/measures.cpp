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

}  // namespace

SteadyStateMeasures::SteadyStateMeasures(const gspn::Net& net,
                                         const gspn::TangibleReachabilityGraph& graph,
                                         std::vector<std::uint32_t> states, Eigen::VectorXd pi,
                                         const gspn::Symmetry* symmetry)
    : graph_(graph),
      states_(std::move(states)),
      pi_(std::move(pi)),
      meanTokens_(net.placeCount(), 0.0),
      throughput_(net.transitionCount(), 0.0) {
  const std::size_t n = states_.size(), places = net.placeCount();
  // Per chunk: the places' Σ π_s m_s(p), then the transitions' Σ π_s λ_t(m_s).
  std::vector<std::vector<double>> sums(kChunks);
  std::vector<std::exception_ptr> failure(kChunks);
#pragma omp parallel for schedule(dynamic, 1) if (n >= kParallelStates)
  for (std::size_t c = 0; c < kChunks; ++c) {
    std::vector<double>& sum = sums[c];
    sum.assign(places + net.transitionCount(), 0.0);
    std::vector<gspn::Tokens> m(places);
    // Two words captured by the rate visitor: std::function holds them without allocating.
    double* throughput = sum.data() + places;
    try {
      for (std::size_t i = n * c / kChunks; i < n * (c + 1) / kChunks; ++i) {
        const double p = pi_[Eigen::Index(i)];
        graph.markings.decode(states_[i], m);
        for (gspn::PlaceId place = 0; place < places; ++place) sum[place] += p * m[place];
        gspn::forEachLumpedRate(
            net, symmetry, m,
            [throughput, p](gspn::TransitionId t, double rate) { throughput[t] += p * rate; });
      }
    } catch (...) {
      failure[c] = std::current_exception();
    }
  }
  for (std::size_t c = 0; c < kChunks; ++c) {
    if (failure[c]) std::rethrow_exception(failure[c]);
    for (std::size_t place = 0; place < places; ++place) meanTokens_[place] += sums[c][place];
    for (std::size_t t = 0; t < throughput_.size(); ++t) throughput_[t] += sums[c][places + t];
  }
  if (graph.immediateFlows.empty()) return;
  std::vector<double> probability(graph.stateCount(), 0.0);
  for (std::size_t i = 0; i < n; ++i) probability[states_[i]] = pi_[Eigen::Index(i)];
  for (const auto& flow : graph.immediateFlows)
    throughput_[flow.transition] += probability[flow.state] * flow.rate;
}

double SteadyStateMeasures::expectation(const std::function<double(gspn::MarkingView)>& f,
                                        std::span<const gspn::PlaceId>) const {
  double sum = 0;
  std::vector<gspn::Tokens> m(graph_.markings.placeCount());
  for (std::size_t i = 0; i < states_.size(); ++i) {
    graph_.markings.decode(states_[i], m);
    sum += pi_[Eigen::Index(i)] * f(m);
  }
  return sum;
}

}  // namespace mmt::solver
