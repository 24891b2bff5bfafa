#pragma once
// A small CTMC built by hand in a test, from its successor function, and solved with
// Eigen's dense LU: an independent truth for the nets mmt builds and solves.
#include <Eigen/Dense>
#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace mmt::testing {

/// A small CTMC given by its successor function, explored from `start` and solved densely:
/// returns the stationary distribution over the states, in discovery order.
using State = std::vector<int>;
using Successors = std::function<std::vector<std::pair<State, double>>(const State&)>;
struct Chain {
  std::vector<State> states;
  Eigen::VectorXd pi;
  double expect(const std::function<double(const State&)>& f) const {
    double sum = 0;
    for (std::size_t i = 0; i < states.size(); ++i) sum += pi[Eigen::Index(i)] * f(states[i]);
    return sum;
  }
};
inline Chain solveChain(const State& start, const Successors& next) {
  Chain c;
  std::map<State, std::size_t> index{{start, 0}};
  c.states.push_back(start);
  std::vector<std::tuple<std::size_t, std::size_t, double>> edges;
  for (std::size_t i = 0; i < c.states.size(); ++i)
    for (auto& [s, rate] : next(c.states[i])) {
      auto [it, added] = index.try_emplace(s, c.states.size());
      if (added) c.states.push_back(s);
      edges.emplace_back(i, it->second, rate);
    }
  const Eigen::Index n = Eigen::Index(c.states.size());
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
  for (auto [from, to, rate] : edges) {
    q(Eigen::Index(from), Eigen::Index(to)) += rate;
    q(Eigen::Index(from), Eigen::Index(from)) -= rate;
  }
  // π Q = 0 with Σ π = 1: replace one balance equation by the normalisation.
  Eigen::MatrixXd a = q.transpose();
  a.row(n - 1).setOnes();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n);
  b[n - 1] = 1;
  c.pi = a.fullPivLu().solve(b);
  return c;
}

}  // namespace mmt::testing
