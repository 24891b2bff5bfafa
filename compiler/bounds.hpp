#pragma once
/// \file
/// Quick bound-based estimates of a skeleton's throughput, from the structure alone: a
/// pipeline is as fast as its slowest stage or move ([Alt02] §4; [Benoit05] §3), a farm of
/// n identical workers n times its worker ([GridCOMP08]: T_farm = T_W / n), a deal of n as
/// n times its slowest worker (each gets every n-th item), a map as its slowest partition
/// plus its scatter and gather ([GridCOMP08] §4). Exact only without blocking; an upper
/// bound on the throughput the CTMC gives.

#include <optional>
#include <string>
#include <vector>

#include "compiler/model.hpp"

namespace mmt::compiler {

/// The service time bound of skeleton node `node` (t per item): a task's mean processing
/// time work · sharers / speed; a pipeline's largest stage or move time (a move's time is
/// its fastest transfer's mean; an instantaneous one 0); a farm's 1 / Σ 1 / S_k over its
/// replicas; a deal's max S_k / n; a map's max S_k, plus the times of its scatter and gather
/// when its workers are tasks (every worker then holds the item from the scatter to the
/// gather; a skeleton as worker may take the next item sooner). `routing` is the route
/// pass's output.
double serviceTimeBound(const System& system, const Routing& routing, Index node);

/// The throughput bound of the application: for a system of skeletons only, the mean over
/// them of 1 / serviceTimeBound (including the input and output moves); nothing when the
/// system has dataflow actors (no structural bound is derived for them).
std::optional<double> throughputBound(const System& system, const Routing& routing);

/// An element whose service time makes the bound: a task (its stage), a farm, deal or map
/// (all its replicas together), or a move between two stages (or in from the input, out to
/// the output).
struct BoundElement {
  enum class Kind { Task, Farm, Deal, Map, Move };
  Kind kind = Kind::Task;
  /// A task's, farm's, deal's or map's name; a move's first transfer ("Emit->W[1]").
  std::string name;
  Index node = 0;             ///< Task, Farm, Deal, Map: the skeleton node
  std::size_t transfers = 0;  ///< Move: how many transfers it has
  double serviceTime = 0;     ///< t per item
};

/// Where a skeleton's throughput bound comes from ([GridCOMP08] §4: the manager adds
/// workers while the farm's T_W / n exceeds the other stages' T_S, and otherwise moves
/// work to faster resources): the elements whose service time is the largest.
struct Bottleneck {
  /// Every element within 1e-9 relative of the largest service time.
  std::vector<BoundElement> elements;
  /// The skeleton's other elements: the bound once the bottleneck is relieved is 1 / their
  /// largest service time.
  std::vector<BoundElement> others;
  double serviceTime = 0;    ///< the largest service time, t per item
  std::size_t skeleton = 0;  ///< the top-level skeleton it belongs to
};

/// Every element of top-level skeleton `k` with its service time: the input move, the
/// stages of its pipelines depth first (a farm, deal, map or task as one element) each followed
/// by the moves between them, and the output move. The skeleton's bound is 1 / their
/// largest time (serviceTimeBound of the root, with the input and output moves).
std::vector<BoundElement> stageTimes(const System& system, const Routing& routing, std::size_t k);

/// The bottleneck of the skeleton with the lowest throughput bound; nothing when the
/// system has dataflow actors or no skeleton (as throughputBound).
std::optional<Bottleneck> bottleneck(const System& system, const Routing& routing);

}  // namespace mmt::compiler
