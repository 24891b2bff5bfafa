#pragma once
/// \file
/// The steady-state quantities every higher-level metric is built from. The exact CTMC
/// solution (solver/) implements it; so can a simulator (sim/). Keeping the metric formulas
/// on this interface means they are written once, whoever evaluates them.

#include <functional>
#include <span>
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
  /// E[f(m)] over the steady-state distribution of tangible markings, where f reads only
  /// the token counts of the places `reads` (a source solved on a chain lumped by symmetry
  /// averages f over the images of those places; gspn/symmetry.hpp).
  virtual double expectation(const std::function<double(MarkingView)>& f,
                             std::span<const PlaceId> reads) const = 0;
};

/// Values of the net's user measures (Net::measures(), in order) against `source`:
/// mean(e) = E[e(m)], prob(c) = P(c(m) != 0), throughput(t), and earlier measures by name.
/// The mean of an expression linear in the token counts is taken from the mean token
/// counts (Expression::linearForm), with no expectation over markings.
std::vector<double> evaluateMeasures(const Net& net, const MeasureSource& source);

/// True when evaluateMeasures needs MeasureSource::expectation for some measure of `net`:
/// a prob(...), or a mean(...) of an expression not linear in the token counts. A
/// simulator keeps the time spent in each marking only then.
bool measuresNeedExpectations(const Net& net);

}  // namespace mmt::gspn
