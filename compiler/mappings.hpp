#pragma once
/// \file
/// The mapping space of a system's skeleton tasks, for design-space exploration as in
/// AMoGeT ([Benoit05] §4): every assignment of the unplaced tasks to the processors that
/// may run them, and the symmetries of the hardware that make two assignments the same
/// model (two identical processors swapped, with their links).

#include <cstddef>
#include <string>
#include <vector>

#include "compiler/model.hpp"

namespace mmt::compiler {

/// A candidate: the processor of each free task, in MappingSpace::free order.
using Mapping = std::vector<Index>;

struct MappingSpace {
  std::vector<Index> free;        ///< tasks the description leaves unplaced
  std::vector<Index> processors;  ///< processors a task may go to (not fcfs or ps)
  /// Permutations of the processors that leave the system unchanged: processors with the
  /// same policy, speed, servers and local bandwidth; links onto links of the same kind,
  /// bandwidth, latency and channels; every placed element, and every skeleton's input and
  /// output processor, fixed. Always holds the identity first.
  std::vector<std::vector<Index>> symmetries;
  bool symmetriesChecked = true;  ///< false beyond kMaxSymmetryProcessors processors
};

/// Processors beyond which symmetries are not searched (n! permutations).
constexpr std::size_t kMaxSymmetryProcessors = 8;

/// The free tasks, candidate processors and symmetries of `system` (from probeSystem).
MappingSpace mappingSpace(const System& system);

/// Every assignment of the free tasks to the candidate processors, the last task varying
/// fastest. Throws std::length_error beyond `limit` candidates.
std::vector<Mapping> allMappings(const MappingSpace& space, std::size_t limit);

/// The smallest image of `m` under the symmetries: equal for two mappings exactly when one
/// is the other with identical processors exchanged.
Mapping canonicalMapping(const MappingSpace& space, const Mapping& m);

/// The indices of `candidates` that are distinct up to symmetry, the first of each class
/// in order.
std::vector<std::size_t> distinctMappings(const MappingSpace& space,
                                          const std::vector<Mapping>& candidates);

}  // namespace mmt::compiler
