#pragma once
/// \file
/// The MPI run this process is part of (docs/distributed.md). `mmt` started by `mpirun`,
/// `mpiexec` or Slurm's `srun` initializes MPI and is one rank among several; started
/// alone it does not touch MPI and is the only rank, as before.

#include <string>

namespace mmt::mpi {

class Session {
 public:
  /// Initializes MPI (main thread only making MPI calls) when a launcher started the
  /// process; otherwise a session of one rank without MPI.
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// True when a launcher started this process (PMIx, Open MPI or PMI variables).
  static bool launched();
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool leads() const { return rank_ == 0; }
  /// Ranks other than 0 write nothing: standard output and error go to /dev/null, and
  /// failures go through abort(), whose message keeps the original standard error.
  void silenceFollowers();
  /// Ends every rank of the run with `code` after writing "mmt: rank R: message" to the
  /// original standard error. Does not return.
  [[noreturn]] void abort(int code, const std::string& message) const;

 private:
  bool initialized_ = false;
  int rank_ = 0;
  int size_ = 1;
  int stderrCopy_ = 2;
};

}  // namespace mmt::mpi
