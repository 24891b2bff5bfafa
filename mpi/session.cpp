#include "mpi/session.hpp"

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace mmt::mpi {

bool Session::launched() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(variable)) return true;
  return false;
}

Session::Session(int& argc, char**& argv) {
  if (!launched()) return;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  initialized_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  // Errors of MPI calls end the run (the default handler); no call is retried.
}

Session::~Session() {
  if (initialized_) MPI_Finalize();
}

void Session::silenceFollowers() {
  if (leads()) return;
  stderrCopy_ = dup(2);
  const int null = open("/dev/null", O_WRONLY);
  if (null < 0) return;
  dup2(null, 1);
  dup2(null, 2);
  close(null);
}

void Session::abort(int code, const std::string& message) const {
  const std::string line = "mmt: rank " + std::to_string(rank_) + ": " + message + '\n';
  [[maybe_unused]] const ssize_t written = write(stderrCopy_, line.data(), line.size());
  if (initialized_) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace mmt::mpi
