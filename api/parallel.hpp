#pragma once
/// \file
/// Independent tasks (the points of a sweep, the candidates of an exploration) on a few
/// threads.

#include <cstddef>
#include <functional>

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

}  // namespace mmt::api
