#pragma once
/// \file
/// Independent tasks (the points of a sweep, the candidates of an exploration) on a few
/// threads.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace mmt::api {

/// Runs task(i) for i in [first, count) on `threads` threads (the caller's among them),
/// each taking the next index as it finishes the last. With more than one thread, each
/// task's OpenMP loops (the solver's residual) run on its own thread: the tasks already
/// share the cores, and a team would wait at every barrier for threads busy with the
/// other tasks (a sweep of six Kanban N = 3 points with one core busy: about 1.13 s
/// before this, 0.95 s after).
void runParallel(std::size_t first, std::size_t count, unsigned threads,
                 const std::function<void(std::size_t)>& task);

/// One thread per core, but no more than there are tasks.
unsigned threadsFor(std::size_t tasks);

/// A point's outcome in transit between processes (each study encodes its own).
using PointBytes = std::vector<std::uint8_t>;

/// The independent points of a study spread over several processes (the ranks of an MPI
/// run, mpi/points.hpp): every process runs the same study up to `distribute`, which
/// hands the points out; only the leading process receives their outcomes and goes on to
/// report them.
class PointDistribution {
 public:
  virtual ~PointDistribution() = default;
  /// True in the process that receives the outcomes (MPI rank 0).
  virtual bool leads() const = 0;
  /// Computes the points [first, count), each once, somewhere: `run(i)` computes point i
  /// and encodes its outcome, where it is handed out. In the leading process `accept(i,
  /// bytes)` then receives the outcomes in the order of i; when it returns true no point
  /// after i is needed (a search found its answer) and their outcomes are dropped. Every
  /// process calls it with the same arguments. A `run` that throws ends the whole run
  /// (each point keeps its own failures in its outcome).
  virtual void distribute(
      std::size_t first, std::size_t count, const std::function<PointBytes(std::size_t)>& run,
      const std::function<bool(std::size_t, const PointBytes&)>& accept) const = 0;
};

}  // namespace mmt::api
