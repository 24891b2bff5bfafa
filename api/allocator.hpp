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

/// Starts the program again, the same executable (/proc/self/exe) with the same
/// arguments `argv` (null-terminated, as main has them), with glibc's tunable
/// glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, where the kernel gives transparent huge
/// pages only to the mappings that ask for them (/sys/kernel/mm/transparent_hugepage/enabled
/// is "madvise"). Under that tunable malloc asks for them (madvise MADV_HUGEPAGE) on the
/// memory it takes from the system (The GNU C Library manual, "Memory Allocation
/// Tunables"); glibc reads its tunables only as a program starts, and has no mallopt for
/// this one.
///
/// Each of the large blocks (useMappedLargeBlocks) is a fresh mapping whose pages fault
/// in one by one as they are first written: a 2 MB page faults in where 512 pages of
/// 4 kB did, and a fault costs microseconds in a virtual machine. The tandem queue,
/// c = 1023: 90,290 faults down to 13,181, whole run 2.50 to 1.75 s (docs/modelling.md);
/// the peak grows by the unused parts of the last huge page of some blocks (Kanban N = 5:
/// 225 to 231 MB). Starting again costs about 18 ms.
///
/// Returns without starting again in the program started again (it takes out the
/// variable MMT_RESTARTED_WITH_HUGE_PAGES that marks it, so that a GLIBC_TUNABLES glibc
/// filtered cannot start a loop), where GLIBC_TUNABLES already names the tunable (the
/// user's choice: glibc.malloc.hugetlb=0 keeps 4 kB pages), where the kernel gives huge
/// pages to every mapping or to none, under valgrind (which would not follow), or where
/// the exec fails. Called first by the command line, but not in a rank of an MPI job
/// (mpi::Session::launched), which stays the process its launcher started; a library
/// that hosts mmt (the Python module) runs with its host's allocator, and takes huge pages
/// where it is started with GLIBC_TUNABLES=glibc.malloc.hugetlb=1.
void restartWithHugePages(char** argv);

}  // namespace mmt::api
