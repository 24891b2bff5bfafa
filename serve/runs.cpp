#include "serve/runs.hpp"

namespace mmt::serve {

void Run::post(nlohmann::ordered_json event, bool last) {
  {
    std::lock_guard lock(mutex_);
    if (over_) return;
    events_.push_back(std::move(event));
    over_ = last;
  }
  changed_.notify_all();
}

std::optional<nlohmann::ordered_json> Run::next(std::chrono::milliseconds patience, bool& ended) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, patience, [&] { return !events_.empty(); });
  if (events_.empty()) {
    ended = over_;
    return std::nullopt;
  }
  nlohmann::ordered_json out = std::move(events_.front());
  events_.pop_front();
  ended = over_ && events_.empty();
  return out;
}

ProgressStream::ProgressStream(Run& run) : std::ostream(nullptr), buffer_(run) { rdbuf(&buffer_); }

int ProgressStream::Buffer::overflow(int c) {
  if (c == traits_type::eof()) return traits_type::not_eof(c);
  if (c == '\n' || c == '\r') {
    if (!line_.empty()) run_.post({{"progress", line_}});
    line_.clear();
  } else {
    line_ += static_cast<char>(c);
  }
  return c;
}

std::shared_ptr<Run> RunRegistry::start(const std::string& channel) {
  std::lock_guard lock(mutex_);
  if (auto it = latest_.find(channel); it != latest_.end()) it->second->interrupt();
  if (going_ >= limit_) return nullptr;
  auto run = std::make_shared<Run>(channel);
  latest_[channel] = run;
  ++going_;
  return run;
}

void RunRegistry::launch(std::shared_ptr<Run> run, std::function<void(Run&)> work) {
  std::vector<std::thread> over;
  {
    std::lock_guard lock(mutex_);
    for (auto it = threads_.begin(); it != threads_.end();) {
      if (it->first->finished()) {
        over.push_back(std::move(it->second));
        it = threads_.erase(it);
      } else {
        ++it;
      }
    }
    threads_.emplace_back(run, std::thread([this, run, work = std::move(work)] {
                            work(*run);
                            finish(run);
                          }));
  }
  for (std::thread& t : over) t.join();
}

void RunRegistry::finish(const std::shared_ptr<Run>& run) {
  std::lock_guard lock(mutex_);
  run->finished_ = true;
  --going_;
  if (auto it = latest_.find(run->channel()); it != latest_.end() && it->second == run)
    latest_.erase(it);
  ended_.notify_all();
}

bool RunRegistry::stop(const std::string& channel) {
  std::lock_guard lock(mutex_);
  auto it = latest_.find(channel);
  if (it == latest_.end()) return false;
  it->second->interrupt();
  return true;
}

void RunRegistry::interruptAll() {
  std::lock_guard lock(mutex_);
  for (auto& [channel, run] : latest_) run->interrupt();
}

void RunRegistry::stopAll() {
  interruptAll();
  std::vector<std::pair<std::shared_ptr<Run>, std::thread>> threads;
  {
    std::unique_lock lock(mutex_);
    ended_.wait(lock, [&] { return going_ == 0; });
    threads.swap(threads_);
  }
  for (auto& [run, thread] : threads) thread.join();
}

std::size_t RunRegistry::going() const {
  std::lock_guard lock(mutex_);
  return going_;
}

}  // namespace mmt::serve
