#pragma once
/// \file
/// The points of a sweep, an exploration or a linear contract search spread over the
/// ranks of an MPI run, with dynamic work distribution (docs/distributed.md): rank 0
/// hands out one point at a time to each rank as it finishes the last, so a slow point
/// holds up only the rank computing it, and computes points itself on a second thread
/// while it waits. Outcomes come back to rank 0 as bytes and are accepted there in the
/// order of the points, so its output is the one process's, row for row.

#include "api/parallel.hpp"
#include "mpi/session.hpp"

namespace mmt::mpi {

class RankDistribution final : public api::PointDistribution {
 public:
  explicit RankDistribution(const Session& session) : session_(session) {}
  bool leads() const override { return session_.leads(); }
  void distribute(
      std::size_t first, std::size_t count, const std::function<api::PointBytes(std::size_t)>& run,
      const std::function<bool(std::size_t, const api::PointBytes&)>& accept) const override;

 private:
  void serve(const std::function<api::PointBytes(std::size_t)>& run) const;
  void lead(std::size_t first, std::size_t count,
            const std::function<api::PointBytes(std::size_t)>& run,
            const std::function<bool(std::size_t, const api::PointBytes&)>& accept) const;
  const Session& session_;
};

}  // namespace mmt::mpi
