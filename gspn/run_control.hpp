#pragma once
/// \file
/// How a caller steers a long computation: where its progress lines go, the flag that
/// interrupts it, and how many threads it may use. One struct, passed down from api::Settings
/// through exploration, the solvers, the simulator and the fluid solution, each layer reading
/// what it uses (exploration all three; the solvers the progress and the interrupt; the
/// simulator the interrupt).

#include <atomic>
#include <iosfwd>

namespace mmt {

struct RunControl {
  /// When set, progress lines go here about once a second on long runs (null: none).
  std::ostream* progress = nullptr;
  /// When set, the computation stops soon after it becomes true and says it was
  /// interrupted (each layer says at which checks: a breadth-first level, a sweep, a batch).
  const std::atomic<bool>* interrupt = nullptr;
  /// Threads to use (0: OpenMP's default, one per core unless OMP_NUM_THREADS or
  /// omp_set_num_threads says otherwise). No result depends on it.
  unsigned threads = 0;

  /// The interrupt flag is set.
  bool interrupted() const { return interrupt && interrupt->load(std::memory_order_relaxed); }
};

}  // namespace mmt
