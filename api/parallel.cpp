#include "api/parallel.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace mmt::api {

void runParallel(std::size_t first, std::size_t count, unsigned threads,
                 const std::function<void(std::size_t)>& task) {
  std::atomic<std::size_t> next{first};
  auto worker = [&] {
    if (threads > 1) omp_set_num_threads(1);  // this thread's setting only
    for (std::size_t i; (i = next.fetch_add(1)) < count;) task(i);
  };
  const int teamSize = omp_get_max_threads();
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  omp_set_num_threads(teamSize);
}

unsigned threadsFor(std::size_t tasks) {
  return std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), unsigned(tasks)));
}

}  // namespace mmt::api
