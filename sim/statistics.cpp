#include <boost/math/distributions/students_t.hpp>
#include <limits>

#include "sim/replications.hpp"

namespace mmt::sim {

Estimate estimate(const std::vector<double>& samples, double confidence) {
  const std::size_t n = samples.size();
  Estimate e;
  if (n == 0) return e;
  for (double x : samples) e.mean += x;
  e.mean /= static_cast<double>(n);
  if (n < 2) {
    e.halfWidth = std::numeric_limits<double>::infinity();
    return e;
  }
  double squares = 0;
  for (double x : samples) squares += (x - e.mean) * (x - e.mean);
  const double s = std::sqrt(squares / static_cast<double>(n - 1));
  const boost::math::students_t t(static_cast<double>(n - 1));
  e.halfWidth = boost::math::quantile(boost::math::complement(t, (1 - confidence) / 2)) * s /
                std::sqrt(static_cast<double>(n));
  return e;
}

}  // namespace mmt::sim
