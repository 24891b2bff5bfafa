#pragma once
/// \file
/// Independent replications ([Law15] A. M. Law, "Simulation Modeling and Analysis", 5th ed.,
/// §9.4.1): replication i runs with its own random stream (seed, i), on a pool of threads;
/// each is reduced to a vector of numbers by the caller's function (in the worker thread),
/// and results come back in replication order, so the output does not depend on the
/// number of threads. Point estimates and Student-t confidence intervals across them.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

#include "sim/simulator.hpp"

namespace mmt::sim {

/// Runs replications first .. first + count - 1 of `net` and returns reduce(replication)
/// for each, in order. Rethrows the first (lowest-index) failure. Once `stop` (when given)
/// is true, no further replication starts, and those not run are left default-constructed:
/// the caller must check `stop` before using the results.
template <typename T>
std::vector<T> runReplications(const gspn::Net& net, const ReplicationSettings& settings,
                               std::uint64_t first, std::size_t count, unsigned threads,
                               const std::function<T(const Replication&)>& reduce,
                               const std::atomic<bool>* stop = nullptr) {
  std::vector<T> out(count);
  std::vector<std::exception_ptr> failures(count);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < count && !(stop && stop->load(std::memory_order_relaxed));) {
      try {
        out[i] = reduce(simulate(net, settings, first + i));
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < std::max(1u, threads) && k < count; ++k) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
  return out;
}

/// A point estimate and the half-width of its confidence interval.
struct Estimate {
  double mean = 0;
  double halfWidth = 0;
};

/// Sample mean of `samples` and the half-width t_{n-1, (1+confidence)/2} · s / √n
/// ([Law15] eq. 4.12). Needs at least two samples for an interval (else half-width ∞).
Estimate estimate(const std::vector<double>& samples, double confidence);

}  // namespace mmt::sim
