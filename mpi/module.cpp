#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/allocator.hpp"
#include "mpi/steady_state.hpp"

namespace mmt::mpi {

namespace {

/// Where the module may be: beside the installed executable, then in the build tree.
std::vector<std::filesystem::path> candidates() {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path dir = error ? std::filesystem::path(".") : exe.parent_path();
  return {dir / MMT_MODULE_FROM_BINDIR / kModuleName, dir / ".." / "mpi" / kModuleName};
}

DistributedSolver* load() {
  std::string tried;
  for (const std::filesystem::path& path : candidates()) {
    if (!std::filesystem::exists(path)) {
      tried += (tried.empty() ? "" : ", ") + path.string();
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    api::useMappedLargeBlocks();  // SuperLU_DIST's constructor changed it
    if (!handle) throw std::runtime_error(std::string("cannot load ") + dlerror());
    using Entry = DistributedSolver* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, "mmt_distributed_solver"));
    if (!entry) throw std::runtime_error(path.string() + " has no mmt_distributed_solver");
    return entry();
  }
  throw std::runtime_error("the distributed solver's module " + std::string(kModuleName) +
                           " is not installed (looked for " + tried + ")");
}

}  // namespace

DistributedSolver& distributedSolver() {
  static DistributedSolver* solver = nullptr;
  static std::once_flag loaded;
  std::call_once(loaded, [] { solver = load(); });
  return *solver;
}

DistributedSteadyState solveDistributed(const Session& session, LocalChain& chain, double tolerance,
                                        std::uint64_t maxIterations) {
  return distributedSolver()(session, chain, tolerance, maxIterations);
}

}  // namespace mmt::mpi
