#pragma once
/// \file
/// The runs `mmt serve` has going: each is a solve, a sweep or a simulation on a thread of
/// its own, streaming its progress lines and then its answer as events. A page names each
/// run's channel ("main", "sweep"); a new run on a channel interrupts the one before it,
/// as a new keystroke makes the last answer moot. The number of runs at once is bounded.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mmt::serve {

/// One run: its interrupt flag, which the library polls (api::Settings::interrupt), and
/// its events, written by the run's thread and read by the request that streams them.
class Run {
 public:
  explicit Run(std::string channel) : channel_(std::move(channel)) {}
  const std::string& channel() const { return channel_; }
  /// True once the run's work has returned (RunRegistry::launch).
  bool finished() const { return finished_; }
  const std::atomic<bool>* interruptFlag() const { return &interrupt_; }
  void interrupt() { interrupt_ = true; }
  bool interrupted() const { return interrupt_; }

  /// Adds an event; `last` marks the run's answer (or failure), after which none come.
  void post(nlohmann::ordered_json event, bool last = false);
  /// The next event, waiting at most `patience` for one; nothing when none came. `ended` is
  /// set when the event returned was the last (or the run is over and all were read).
  std::optional<nlohmann::ordered_json> next(std::chrono::milliseconds patience, bool& ended);

 private:
  friend class RunRegistry;
  std::string channel_;
  std::atomic<bool> interrupt_ = false;
  std::atomic<bool> finished_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<nlohmann::ordered_json> events_;
  bool over_ = false;
};

/// A stream whose lines become {"progress": LINE} events of a run (the library's progress
/// lines, api::Settings::progress); a carriage return ends a line too.
class ProgressStream : public std::ostream {
 public:
  explicit ProgressStream(Run& run);

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(Run& run) : run_(run) {}

   protected:
    int overflow(int c) override;

   private:
    Run& run_;
    std::string line_;
  };
  Buffer buffer_;
};

/// The runs going, at most `limit` at once.
class RunRegistry {
 public:
  explicit RunRegistry(std::size_t limit) : limit_(limit) {}

  /// A new run on `channel`, interrupting the one before it there; nothing when `limit`
  /// runs are going (the one interrupted still counts until it ends).
  std::shared_ptr<Run> start(const std::string& channel);
  /// Runs `work` on a thread of its own; once it returns, the run no longer counts. The
  /// threads of runs over are joined here and by stopAll.
  void launch(std::shared_ptr<Run> run, std::function<void(Run&)> work);
  /// Interrupts the run on `channel`; false when there is none.
  bool stop(const std::string& channel);
  /// Interrupts every run.
  void interruptAll();
  /// Interrupts every run and waits until all have ended and their threads are joined.
  void stopAll();
  std::size_t limit() const { return limit_; }
  std::size_t going() const;

 private:
  std::size_t limit_;
  mutable std::mutex mutex_;
  std::condition_variable ended_;
  std::size_t going_ = 0;
  std::map<std::string, std::shared_ptr<Run>> latest_;
  std::vector<std::pair<std::shared_ptr<Run>, std::thread>> threads_;

  void finish(const std::shared_ptr<Run>& run);
};

}  // namespace mmt::serve
