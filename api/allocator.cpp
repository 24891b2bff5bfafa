#include "api/allocator.hpp"

#include <malloc.h>

namespace mmt::api {

void useMappedLargeBlocks() {
  mallopt(M_MMAP_MAX, 65536);             // glibc's default
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);  // glibc's default
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
}

}  // namespace mmt::api
