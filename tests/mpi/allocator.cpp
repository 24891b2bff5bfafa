// Loading the PETSc module (mpi/module.cpp) leaves glibc's allocator as it was: a large
// block is mapped on its own and given back when freed. SuperLU_DIST, which PETSc loads,
// turns that off in its library constructor (mallopt(M_MMAP_MAX, 0)), so the test fails
// without the reset.
#include <doctest/doctest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include "mpi/steady_state.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define MMT_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MMT_OWN_ALLOCATOR 1
#endif
#endif

TEST_CASE("the PETSc module loads, and a large block is still mapped on its own") {
  mmt::mpi::DistributedSolver& solver = mmt::mpi::distributedSolver();
  const bool once = &solver == &mmt::mpi::distributedSolver();  // loaded once
  CHECK(once);
#ifndef MMT_OWN_ALLOCATOR
  // (AddressSanitizer's allocator replaces glibc's: mallopt and mallinfo2 say nothing.)
  const std::size_t mappedBefore = mallinfo2().hblkhd;
  constexpr std::size_t kBlock = 8 << 20;
  auto* block = static_cast<char*>(std::malloc(kBlock));
  REQUIRE(block != nullptr);
  std::memset(block, 1, kBlock);
  CHECK(mallinfo2().hblkhd >= mappedBefore + kBlock);
  std::free(block);
  CHECK(mallinfo2().hblkhd == mappedBefore);
#endif
}
