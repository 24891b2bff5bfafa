#include "api/allocator.hpp"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace mmt::api {

void useMappedLargeBlocks() {
  mallopt(M_MMAP_MAX, 65536);             // glibc's default
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);  // glibc's default
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
}

namespace {

/// glibc's tunable under which malloc asks for transparent huge pages.
constexpr const char* kHugePages = "glibc.malloc.hugetlb=1";

/// Set in the environment of the program started again, and taken out by it.
constexpr const char* kRestarted = "MMT_RESTARTED_WITH_HUGE_PAGES";

/// Whether the kernel gives huge pages only to the mappings that ask for them.
bool hugePagesOnRequest() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(in, modes);
  return modes.find("[madvise]") != std::string::npos;
}

}  // namespace

void restartWithHugePages(char** argv) {
  // Started again already: once, whatever glibc made of the tunables (a program run with
  // AT_SECURE, for one, has GLIBC_TUNABLES filtered).
  if (std::getenv(kRestarted)) {
    unsetenv(kRestarted);
    return;
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string given = tunables ? tunables : "";
  if (given.find("glibc.malloc.hugetlb") != std::string::npos) return;
  if (!hugePagesOnRequest()) return;
  // valgrind runs the program it starts, not what that program executes next.
  if (const char* preload = std::getenv("LD_PRELOAD");
      preload && std::string(preload).find("vgpreload") != std::string::npos)
    return;
  const std::string wanted = given.empty() ? kHugePages : given + ":" + kHugePages;
  if (setenv("GLIBC_TUNABLES", wanted.c_str(), 1) != 0 || setenv(kRestarted, "1", 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not started again: on as before.
  unsetenv(kRestarted);
  if (tunables)
    setenv("GLIBC_TUNABLES", given.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

}  // namespace mmt::api
