#include "solver/accuracy.hpp"

#include <algorithm>
#include <boost/unordered/unordered_flat_map.hpp>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "solver/gth.hpp"

namespace mmt::solver {
namespace {

using Vector = Eigen::VectorXd;
using Index = Eigen::Index;

/// Union–find with path halving; blocks numbered in order of their smallest state.
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0u);
  }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }
  std::uint32_t number(std::vector<std::uint32_t>& blockOf) {
    const std::uint32_t n = static_cast<std::uint32_t>(parent_.size());
    blockOf.assign(n, 0);
    std::uint32_t count = 0;
    for (std::uint32_t i = 0; i < n; ++i) blockOf[i] = find(i) == i ? count++ : blockOf[find(i)];
    return count;
  }

 private:
  std::vector<std::uint32_t> parent_;
};

/// |in − out| / max(in, out), 0 when both are 0.
double relativeImbalance(double in, double out) {
  const double scale = std::max(in, out);
  return scale > 0 ? std::abs(in - out) / scale : 0.0;
}

}  // namespace

double imbalanceError(double in, double out, double slowest) {
  return std::min(relativeImbalance(in, out), std::abs(in - out) / slowest);
}

std::vector<BlockPartition> nearlyDecomposablePartitions(const Generator& q) {
  const std::size_t n = q.size();
  std::vector<BlockPartition> out;
  if (n < 2) return out;
  double weakest = 1;
  for (std::size_t j = 0; j < n; ++j)
    for (int k = q.offset[j]; k < q.offset[j + 1]; ++k)
      weakest = std::min(weakest, q.rate(k) / q.exitRate[q.source(k)]);
  for (double theta = 1e-2; theta >= 1e-14 && weakest < theta; theta *= 1e-2) {
    DisjointSets sets(n);
    for (std::size_t j = 0; j < n; ++j)
      for (int k = q.offset[j]; k < q.offset[j + 1]; ++k) {
        const auto i = static_cast<std::uint32_t>(q.source(k));
        if (q.rate(k) >= theta * q.exitRate[i]) sets.unite(i, static_cast<std::uint32_t>(j));
      }
    BlockPartition p;
    p.threshold = theta;
    p.blockCount = sets.number(p.blockOf);
    if (p.blockCount < 2) break;  // coarser thresholds join even more
    if (!out.empty() && out.back().blockCount == p.blockCount) continue;  // the same blocks
    out.push_back(std::move(p));
  }
  return out;
}

FlowImbalance flowImbalance(const Generator& q, const Vector& pi,
                            const std::vector<BlockPartition>& partitions) {
  const std::size_t n = q.size();
  FlowImbalance worst;
  if (n < 2) return worst;
  const double* x = pi.data();
  double totalFlow = 0;
  for (std::size_t j = 0; j < n; ++j) totalFlow += x[j] * q.exitRate[Index(j)];
  if (!(totalFlow > 0)) return worst;
  const double floor = kFlowFloor * totalFlow;
  // An imbalance counts when it is large both relative to the set's own flow and as the
  // probability it displaces: at most |in − out| / ν_min, with ν_min the smallest exit
  // rate (out / mass) among the sets of its kind (states, or one partition's blocks).
  const auto judge = [&](double in, double out, double slowest, std::size_t partition,
                         std::size_t set, std::size_t size) {
    if (std::max(in, out) < floor) return;
    const double e = imbalanceError(in, out, slowest);
    if (e > worst.error) worst = {e, partition, static_cast<std::uint32_t>(set), size};
  };
  // Single states: inflow Σ_i π_i q_ij against outflow π_j · exit_j; a state's exit rate
  // is q.exitRate itself.
  double slowest = INFINITY;
  for (std::size_t j = 0; j < n; ++j)
    if (x[j] * q.exitRate[Index(j)] >= floor) slowest = std::min(slowest, q.exitRate[Index(j)]);
  for (std::size_t j = 0; j < n; ++j) {
    judge(q.inflow(j, x), x[j] * q.exitRate[Index(j)], slowest, FlowImbalance::kState, j, 1);
  }
  // Blocks: the flows across each block's boundary.
  for (std::size_t p = 0; p < partitions.size(); ++p) {
    const BlockPartition& part = partitions[p];
    std::vector<double> in(part.blockCount, 0.0), out(part.blockCount, 0.0),
        mass(part.blockCount, 0.0);
    std::vector<std::size_t> size(part.blockCount, 0);
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint32_t bj = part.blockOf[j];
      ++size[bj];
      mass[bj] += x[j];
      for (int k = q.offset[j]; k < q.offset[j + 1]; ++k) {
        const std::uint32_t bi = part.blockOf[static_cast<std::size_t>(q.source(k))];
        if (bi == bj) continue;
        const double f = x[q.source(k)] * q.rate(k);
        out[bi] += f;
        in[bj] += f;
      }
    }
    double slowestBlock = INFINITY;
    for (std::uint32_t b = 0; b < part.blockCount; ++b)
      if (mass[b] > 0 && out[b] >= floor) slowestBlock = std::min(slowestBlock, out[b] / mass[b]);
    for (std::uint32_t b = 0; b < part.blockCount; ++b)
      judge(in[b], out[b], slowestBlock, p, b, size[b]);
  }
  return worst;
}

std::string FlowImbalance::describe(const std::vector<BlockPartition>& partitions,
                                    const StateNumber* number) const {
  std::ostringstream s;
  if (partition == kState) {
    s << "state " << (number ? (*number)(where) : std::uint64_t{where});
  } else {
    s << "a block of " << setSize << (setSize == 1 ? " state" : " states")
      << " (joined by transitions of at least " << partitions[partition].threshold
      << " of their state's exit rate, one of " << partitions[partition].blockCount
      << " such blocks)";
  }
  return s.str();
}

Generator couplingMatrix(const Generator& q, const BlockPartition& partition, const Vector& pi,
                         Vector& phi) {
  const std::size_t n = q.size();
  const std::uint32_t m = partition.blockCount;
  Vector mass = Vector::Zero(m);
  std::vector<std::size_t> size(m, 0);
  for (std::size_t i = 0; i < n; ++i) {
    mass[partition.blockOf[i]] += pi[Index(i)];
    ++size[partition.blockOf[i]];
  }
  phi.resize(Index(n));
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t b = partition.blockOf[i];
    phi[Index(i)] = mass[b] > 0 ? pi[Index(i)] / mass[b] : 1.0 / double(size[b]);
  }
  // C_IJ = Σ_{i∈I, j∈J} φ_i q_ij for I ≠ J, summed per block pair in the order of the
  // edges (one sum per pair, not one entry per edge: the tandem queue, c = 1023, has 6 M
  // edges between queue 2's levels and 3,000 level pairs), then laid out per column J.
  boost::unordered_flat_map<std::uint64_t, double> sums;  // key: J << 32 | I
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t bj = partition.blockOf[j];
    for (int k = q.offset[j]; k < q.offset[j + 1]; ++k) {
      const std::uint32_t bi = partition.blockOf[static_cast<std::size_t>(q.source(k))];
      if (bi != bj) sums[bj << 32 | bi] += phi[q.source(k)] * q.rate(k);
    }
  }
  std::vector<std::pair<std::uint64_t, double>> entries(sums.begin(), sums.end());
  std::sort(entries.begin(), entries.end());
  Generator c;
  c.offset.assign(m + 1, 0);
  std::vector<double> exitRate(m, 0.0);
  for (const auto& [key, rate] : entries) {
    const auto from = static_cast<std::uint32_t>(key), to = static_cast<std::uint32_t>(key >> 32);
    exitRate[from] += rate;
    c.index.push_back(static_cast<int>(from));
    c.value.push_back(rate);
    ++c.offset[to + 1];
  }
  for (std::uint32_t b = 0; b < m; ++b) c.offset[b + 1] += c.offset[b];
  c.exitRate = gspn::EdgeRates::compacted(std::move(exitRate));
  return c;
}

Vector gthSolve(const Generator& q) {
  const std::size_t n = q.size();
  std::vector<double> rates(n * n, 0.0);
  for (std::size_t j = 0; j < n; ++j)
    for (int k = q.offset[j]; k < q.offset[j + 1]; ++k)
      rates[static_cast<std::size_t>(q.source(k)) * n + j] += q.rate(k);
  try {
    const std::vector<double> pi = gthSteadyState(rates, n);
    return Eigen::Map<const Vector>(pi.data(), Index(n));
  } catch (const std::domain_error&) {
    return Vector();
  }
}

int correctionSweeps(double before, double after, int swept, double target, int most) {
  if (!(after < before) || !(after > target) || !(target > 0)) return most;
  const double needed = swept * std::log(target / after) / std::log(after / before);
  return static_cast<int>(std::clamp(std::ceil(1.25 * needed), 2.0, double(std::max(most, 2))));
}

bool aggregateDisaggregate(const Generator& q, const BlockPartition& partition, Vector& pi,
                           std::size_t denseLimit,
                           const std::function<Vector(const Generator&)>& coarseSolve) {
  Vector phi;
  const Generator c = couplingMatrix(q, partition, pi, phi);
  const Vector xi = c.size() <= denseLimit ? gthSolve(c) : coarseSolve(c);
  if (xi.size() != Index(c.size()) || !xi.allFinite()) return false;
  for (Index i = 0; i < pi.size(); ++i) pi[i] = xi[partition.blockOf[std::size_t(i)]] * phi[i];
  return true;
}

}  // namespace mmt::solver
