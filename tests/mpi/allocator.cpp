// The allocator as glibc sets it, in a process that links PETSc (mpi/session.cpp): a
// large block is mapped on its own and given back when freed. SuperLU_DIST, which PETSc
// loads, turns that off in its library constructor (mallopt(M_MMAP_MAX, 0)), and this
// executable links it as the command line does, so the test fails without the reset.
#include <doctest/doctest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include "mpi/session.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define MMT_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MMT_OWN_ALLOCATOR 1
#endif
#endif

TEST_CASE("mpi::Session: a large block is mapped on its own, so freeing it gives it back") {
#ifdef MMT_OWN_ALLOCATOR
  // AddressSanitizer's allocator replaces glibc's: mallopt and mallinfo2 say nothing.
  return;
#else
  int argc = 1;
  char name[] = "mmt";
  char* args[] = {name, nullptr};
  char** argv = args;
  const mmt::mpi::Session session(argc, argv);
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
