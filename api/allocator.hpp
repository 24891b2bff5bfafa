#pragma once
/// \file
/// How the process's allocator is set for mmt's large arrays.

namespace mmt::api {

/// Sets glibc's allocator so that every block of 1 MB or more is mapped on its own and
/// given back to the system when freed (mallopt: M_MMAP_THRESHOLD 1 MB, M_MMAP_MAX and
/// M_TRIM_THRESHOLD at glibc's defaults). glibc's own rule raises the threshold to the
/// size of the last large block freed (up to 32 MB), after which the graph's and the
/// solver's arrays come from the heap and a stage's freed arrays stay resident under the
/// next: Kanban N = 6 peaks at 1,209 MB that way, 1,163 MB this way. It also undoes what
/// SuperLU_DIST's library constructor sets when PETSc loads (no mapped blocks, no
/// trimming: Kanban N = 5 peaked at 343 MB instead of 287 MB). Called by the command line
/// at start and after loading the PETSc module; a library that hosts mmt (the Python
/// module) keeps its host's settings.
void useMappedLargeBlocks();

}  // namespace mmt::api
