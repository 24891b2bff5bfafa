#pragma once
/// \file
/// Giving the heap's free pages back to the system between the stages of a solve.

#include <malloc.h>

#include <mutex>

namespace mmt::gspn {

/// glibc's malloc_trim(0), one call at a time. The first call into glibc's allocator
/// initializes it, which is not safe from two threads at once; it is made at start
/// (api::useMappedLargeBlocks) except under AddressSanitizer, whose allocator replaces
/// glibc's and leaves it to the first malloc_trim, which `mmt explore` makes from the
/// threads that solve its candidates in parallel (two at once crashed in glibc's mtrim).
inline void releaseFreePages() {
  static std::mutex one;
  const std::lock_guard<std::mutex> lock(one);
  malloc_trim(0);
}

}  // namespace mmt::gspn
