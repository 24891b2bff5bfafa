#include "mpi/points.hpp"

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace mmt::mpi {

namespace {

constexpr int kTaskTag = 101;    // rank 0 → rank: the index of a point, as uint64
constexpr int kStopTag = 102;    // rank 0 → rank: no more points
constexpr int kResultTag = 103;  // rank → rank 0: the index (8 bytes), then the outcome

/// Rank 0's own points, computed on a second thread so that its main thread stays free
/// to hand out points (MPI calls are made by the main thread only).
class LocalWorker {
 public:
  explicit LocalWorker(const std::function<api::PointBytes(std::size_t)>& run)
      : run_(run), thread_([this] { loop(); }) {}
  ~LocalWorker() {
    stop();
    thread_.join();
  }
  void give(std::size_t index) {
    std::lock_guard lock(mutex_);
    task_ = index;
    wake_.notify_one();
  }
  void stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    wake_.notify_one();
  }
  /// The finished point, if any (rethrows what its run threw).
  std::optional<std::pair<std::size_t, api::PointBytes>> finished() {
    std::lock_guard lock(mutex_);
    if (failure_) std::rethrow_exception(failure_);
    auto out = std::move(done_);
    done_.reset();
    return out;
  }

 private:
  void loop() {
    for (;;) {
      std::size_t index;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopped_ || task_; });
        if (!task_) return;
        index = *task_;
        task_.reset();
      }
      try {
        api::PointBytes bytes = run_(index);
        std::lock_guard lock(mutex_);
        done_.emplace(index, std::move(bytes));
      } catch (...) {
        std::lock_guard lock(mutex_);
        failure_ = std::current_exception();
        return;
      }
    }
  }
  const std::function<api::PointBytes(std::size_t)>& run_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<std::size_t> task_;
  std::optional<std::pair<std::size_t, api::PointBytes>> done_;
  std::exception_ptr failure_;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace

void RankDistribution::distribute(
    std::size_t first, std::size_t count, const std::function<api::PointBytes(std::size_t)>& run,
    const std::function<bool(std::size_t, const api::PointBytes&)>& accept) const {
  if (session_.size() == 1) {
    for (std::size_t i = first; i < count; ++i)
      if (accept(i, run(i))) break;
  } else if (session_.leads()) {
    lead(first, count, run, accept);
  } else {
    serve(run);
  }
}

void RankDistribution::serve(const std::function<api::PointBytes(std::size_t)>& run) const {
  for (;;) {
    std::uint64_t index = 0;
    MPI_Status status;
    MPI_Recv(&index, 1, MPI_UINT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    if (status.MPI_TAG == kStopTag) return;
    const api::PointBytes outcome = run(std::size_t(index));
    api::PointBytes message(sizeof index + outcome.size());
    std::memcpy(message.data(), &index, sizeof index);
    std::memcpy(message.data() + sizeof index, outcome.data(), outcome.size());
    MPI_Send(message.data(), int(message.size()), MPI_BYTE, 0, kResultTag, MPI_COMM_WORLD);
  }
}

void RankDistribution::lead(
    std::size_t first, std::size_t count, const std::function<api::PointBytes(std::size_t)>& run,
    const std::function<bool(std::size_t, const api::PointBytes&)>& accept) const {
  std::size_t next = first, limit = count, delivered = first;
  std::map<std::size_t, api::PointBytes> arrived;  // finished out of order
  // Outcomes in the order of the points; a point at or past the limit is dropped.
  auto receive = [&](std::size_t index, api::PointBytes bytes) {
    arrived.emplace(index, std::move(bytes));
    for (auto it = arrived.begin(); it != arrived.end() && it->first == delivered;
         it = arrived.erase(it), ++delivered)
      if (delivered < limit && accept(delivered, it->second)) limit = delivered + 1;
  };
  int working = 0;  // other ranks not yet told to stop
  auto handOut = [&](int rank) {
    if (next < limit) {
      const std::uint64_t index = next++;
      MPI_Send(&index, 1, MPI_UINT64_T, rank, kTaskTag, MPI_COMM_WORLD);
      return;
    }
    const std::uint64_t none = 0;
    MPI_Send(&none, 1, MPI_UINT64_T, rank, kStopTag, MPI_COMM_WORLD);
    --working;
  };
  working = session_.size() - 1;
  for (int rank = 1; rank < session_.size(); ++rank) handOut(rank);
  LocalWorker local(run);
  bool localWorking = next < limit;
  if (localWorking) local.give(next++);
  while (working > 0 || localWorking) {
    bool progressed = false;
    if (localWorking) {
      if (auto done = local.finished()) {
        receive(done->first, std::move(done->second));
        if (next < limit)
          local.give(next++);
        else
          localWorking = false;
        progressed = true;
      }
    }
    int waiting = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kResultTag, MPI_COMM_WORLD, &waiting, &status);
    if (waiting) {
      int size = 0;
      MPI_Get_count(&status, MPI_BYTE, &size);
      api::PointBytes message(std::size_t(size), 0);
      MPI_Recv(message.data(), size, MPI_BYTE, status.MPI_SOURCE, kResultTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      std::uint64_t index = 0;
      std::memcpy(&index, message.data(), sizeof index);
      receive(std::size_t(index), api::PointBytes(message.begin() + sizeof index, message.end()));
      handOut(status.MPI_SOURCE);
      progressed = true;
    }
    // Waiting polls gently: the cores belong to the points.
    if (!progressed) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace mmt::mpi
