#pragma once
/// \file
/// A GSPN read as a continuous Petri net ([SilvaRecalde]: M. Silva, L. Recalde, IEEE
/// Trans. SMC-C 32(4), 2002; C. Mahulea, L. Recalde, M. Silva, DEDS 19(2), 2009): each
/// place holds a real amount x_p ≥ 0, each transition fires as a flow, and
///
///     dx/dt = F(x) = C · f(x),   C = Post − Pre (places × transitions),
///
/// with the flow of a timed transition of rate λ
///
///     f_t(x) = λ · min(k_t, e_t(x)),   e_t(x) = min_{p ∈ •t} x_p / Pre(p, t),
///
/// where k_t is its number of servers: 1 single-server, k k-server, ∞ infinite-server
/// ([GSPN95] §6.3 read continuously; Mahulea et al. §2, "finite server semantics"). A
/// transition with no input place has e_t = 1, as its discrete enabling degree. By Kurtz's
/// theorem ([Kurtz71]; [BHLM13] §3) the densities x/N of a net whose initial marking and
/// server counts grow with N follow this ODE as N → ∞.
///
/// Immediate transitions fire at once in the discrete net. Here each is an
/// infinite-server flow K · w_t · e_t(x), K times faster than the fastest timed
/// transition: the places that feed immediate transitions hold amounts of order 1/K, the
/// flows out of one such place split in proportion to the weights, and callers extrapolate
/// K → ∞ (fluid/steady_state.hpp). This needs the immediate part to be free-choice: two
/// transitions that share an input place of an immediate transition are both immediate,
/// with the same input arcs and priority ([CMBC93]'s extended conflict sets, of one
/// transition's inputs). Any other conflict, an inhibitor arc, a guard, a marking-dependent
/// arc or rate has no flow of this form, and the net is refused with the element named.

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gspn/net.hpp"

namespace mmt::fluid {

/// The net has no continuous reading: `element` is the transition (or place) at fault and
/// what() says why and what would do instead.
class UnsupportedNet : public std::invalid_argument {
 public:
  UnsupportedNet(std::string element, const std::string& message)
      : std::invalid_argument(message), element_(std::move(element)) {}
  const std::string& element() const { return element_; }

 private:
  std::string element_;
};

/// The smallest and the largest rate λ of the net's timed transitions (per model time
/// unit); {0, 0} when it has none.
std::pair<double, double> timedRateRange(const gspn::Net& net);

class ContinuousNet {
 public:
  /// The net's flows with immediate transitions `immediateSpeed` times faster than its
  /// fastest timed transition. Throws UnsupportedNet (see the file's comment), also for a
  /// net without timed transitions.
  ContinuousNet(const gspn::Net& net, double immediateSpeed);

  std::size_t placeCount() const { return initial_.size(); }
  std::size_t transitionCount() const { return flows_.size(); }
  /// The initial marking as amounts.
  const Eigen::VectorXd& initial() const { return initial_; }
  /// C = Post − Pre, places × transitions.
  const Eigen::SparseMatrix<double>& incidence() const { return incidence_; }
  /// The largest timed rate λ (per model time unit): the scale of the drift.
  double fastestRate() const { return fastestRate_; }
  /// The smallest timed rate.
  double slowestRate() const { return slowestRate_; }
  bool hasImmediate() const { return hasImmediate_; }

  /// f(x), per transition (firings per model time unit). Negative amounts (an integrator's
  /// rounding) count as 0.
  Eigen::VectorXd flows(const Eigen::VectorXd& x) const;
  /// F(x) = C f(x), per place (tokens per model time unit).
  Eigen::VectorXd drift(const Eigen::VectorXd& x) const { return incidence_ * flows(x); }
  /// ∂F/∂x, places × places: on each transition the derivative of the piece of its
  /// min(·) that is the least (the first such input place on a tie, the server bound when
  /// it is reached). F is piecewise linear; this is the Jacobian of the piece x lies in.
  Eigen::MatrixXd jacobian(const Eigen::VectorXd& x) const;

  /// The timed transitions whose flow lies on a kink of its min(·) at x: two input places
  /// tie, or the enabling equals the server count, within `relative` of it (a flow that is
  /// 0 is none). Names, net order.
  std::vector<std::string> kinks(const Eigen::VectorXd& x, double relative) const;

 private:
  struct Input {
    std::uint32_t place;
    double multiplicity;
  };
  struct Flow {
    std::string name;
    double speed;    ///< λ, or K·w for an immediate transition
    double servers;  ///< k_t; +∞ for infinite-server and immediate transitions
    std::vector<Input> inputs;
    bool immediate = false;
  };
  /// The least input ratio x_p / Pre and its place (index into inputs; -1 when none).
  static std::pair<double, int> enabling(const Flow& flow, const Eigen::VectorXd& x);

  std::vector<Flow> flows_;
  Eigen::VectorXd initial_;
  Eigen::SparseMatrix<double> incidence_;
  double fastestRate_ = 0, slowestRate_ = 0;
  bool hasImmediate_ = false;
};

}  // namespace mmt::fluid
