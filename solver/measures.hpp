#pragma once
/// \file
/// Steady-state measures of a solved GSPN ([GSPN95] §6.4): mean tokens E[m(p)] = Σ_s π_s m_s(p);
/// throughput of timed t = Σ_s π_s λ_t(m_s); throughput of immediate u = Σ_s π_s · (rate of
/// u-firings caused by the timed firings out of s), kept by the explorer.

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "gspn/measure_source.hpp"
#include "gspn/reachability.hpp"
#include "gspn/symmetry.hpp"

namespace mmt::solver {

class SteadyStateMeasures final : public gspn::MeasureSource {
 public:
  /// \param states the graph states π refers to (π[i] is the probability of states[i]);
  ///        states outside it have probability 0.
  /// \param symmetry the group the graph was lumped by, if any: a timed transition's
  ///        throughput then counts the firings of the interchangeable copies it stands for
  ///        (gspn::Symmetry::firingMultiplicity), so that the sum over each orbit of
  ///        transitions is exact; gspn::SymmetricMeasures averages it per element.
  SteadyStateMeasures(const gspn::Net& net, const gspn::TangibleReachabilityGraph& graph,
                      std::vector<std::uint32_t> states, Eigen::VectorXd pi,
                      const gspn::Symmetry* symmetry = nullptr);

  /// The measures under each of `distributions` (each over `states` as π is above), in one
  /// pass over the states: each marking is decoded and its rates evaluated once for all of
  /// them, and each distribution's sums are the same bits as the constructor's. States
  /// where every distribution is 0 are not visited. Throws as the constructor.
  static std::vector<SteadyStateMeasures> under(const gspn::Net& net,
                                                const gspn::TangibleReachabilityGraph& graph,
                                                std::vector<std::uint32_t> states,
                                                std::vector<Eigen::VectorXd> distributions,
                                                const gspn::Symmetry* symmetry = nullptr);

  double meanTokens(gspn::PlaceId p) const override { return meanTokens_[p]; }
  double throughput(gspn::TransitionId t) const override { return throughput_[t]; }
  double expectation(const std::function<double(gspn::MarkingView)>& f,
                     std::span<const gspn::PlaceId> reads) const override;

 private:
  SteadyStateMeasures(const gspn::TangibleReachabilityGraph& graph,
                      std::shared_ptr<const std::vector<std::uint32_t>> states, Eigen::VectorXd pi,
                      std::size_t places, std::size_t transitions);

  const gspn::TangibleReachabilityGraph& graph_;
  std::shared_ptr<const std::vector<std::uint32_t>> states_;
  Eigen::VectorXd pi_;
  std::vector<double> meanTokens_;
  std::vector<double> throughput_;
};

}  // namespace mmt::solver
