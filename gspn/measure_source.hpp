#pragma once
/// \file
/// The steady-state quantities every higher-level metric is built from. The exact CTMC
/// solution (solver/) implements it; so can a simulator (sim/). Keeping the metric formulas
/// on this interface means they are written once, whoever evaluates them.

#include <functional>
#include <vector>

#include "gspn/net.hpp"

namespace mmt::gspn {

class MeasureSource {
 public:
  virtual ~MeasureSource() = default;
  /// E[m(p)]: mean number of tokens in place p (tokens).
  virtual double meanTokens(PlaceId p) const = 0;
  /// Mean number of firings of t per model time unit (timed and immediate alike).
  virtual double throughput(TransitionId t) const = 0;
  /// E[f(m)] over the steady-state distribution of tangible markings.
  virtual double expectation(const std::function<double(MarkingView)>& f) const = 0;
};

/// Values of the net's user measures (Net::measures(), in order) against `source`:
/// mean(e) = E[e(m)], prob(c) = P(c(m) != 0), throughput(t), and earlier measures by name.
std::vector<double> evaluateMeasures(const Net& net, const MeasureSource& source);

}  // namespace mmt::gspn
