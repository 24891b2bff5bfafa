#pragma once
/// \file
/// Quick bound-based estimates of a skeleton's throughput, from the structure alone: a
/// pipeline is as fast as its slowest stage or move ([Alt02] §4; [Benoit05] §3), a farm of
/// n identical workers n times its worker ([GridCOMP08]: T_farm = T_W / n), a deal of n as
/// n times its slowest worker (each gets every n-th item). Exact only without blocking; an
/// upper bound on the throughput the CTMC gives.

#include <optional>

#include "compiler/model.hpp"

namespace mmt::compiler {

/// The service time bound of skeleton node `node` (t per item): a task's mean processing
/// time work · sharers / speed; a pipeline's largest stage or move time (a move's time is
/// its fastest transfer's mean; an instantaneous one 0); a farm's 1 / Σ 1 / S_k over its
/// replicas; a deal's max S_k / n. `routing` is the route pass's output.
double serviceTimeBound(const System& system, const Routing& routing, Index node);

/// The throughput bound of the application: for a system of skeletons only, the mean over
/// them of 1 / serviceTimeBound (including the input and output moves); nothing when the
/// system has dataflow actors (no structural bound is derived for them).
std::optional<double> throughputBound(const System& system, const Routing& routing);

}  // namespace mmt::compiler
