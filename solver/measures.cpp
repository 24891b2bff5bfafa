#include "solver/measures.hpp"

namespace mmt::solver {

SteadyStateMeasures::SteadyStateMeasures(const gspn::Net& net,
                                         const gspn::TangibleReachabilityGraph& graph,
                                         std::vector<std::uint32_t> states, Eigen::VectorXd pi,
                                         const gspn::Symmetry* symmetry)
    : graph_(graph),
      states_(std::move(states)),
      pi_(std::move(pi)),
      meanTokens_(net.placeCount(), 0.0),
      throughput_(net.transitionCount(), 0.0) {
  std::vector<double> probability(graph.stateCount(), 0.0);
  for (std::size_t i = 0; i < states_.size(); ++i) probability[states_[i]] = pi_[Eigen::Index(i)];

  std::vector<gspn::Tokens> m(net.placeCount());
  for (std::uint32_t s : states_) {
    const double p = probability[s];
    graph.markings.decode(s, m);
    for (gspn::PlaceId place = 0; place < m.size(); ++place) meanTokens_[place] += p * m[place];
    gspn::forEachLumpedRate(net, symmetry, m,
                            [&](gspn::TransitionId t, double rate) { throughput_[t] += p * rate; });
  }
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
