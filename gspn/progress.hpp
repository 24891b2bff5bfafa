#pragma once
/// \file
/// The progress line of long runs (exploration, iterative solvers): "mmt: TEXT" on the
/// given stream at most once a second, nothing when the stream is null.

#include <chrono>
#include <cstdint>
#include <ostream>

namespace mmt::gspn {

class ProgressLine {
 public:
  explicit ProgressLine(std::ostream* out) : out_(out) {}
  /// Prints "mmt: " + line(seconds since construction) when a second has passed since the
  /// last line (or since construction).
  template <typename Line>
  void report(Line&& line) {
    if (!out_) return;
    const auto now = Clock::now();
    if (now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    *out_ << "mmt: " << line(std::chrono::duration<double>(now - start_).count()) << '\n'
          << std::flush;
  }
  /// Prints "mmt: " + line(seconds since construction) when the run has lasted a second
  /// or more (the closing summary of a run long enough to have shown progress).
  template <typename Line>
  void finish(Line&& line) {
    if (!out_) return;
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    if (seconds >= 1) *out_ << "mmt: " << line(seconds) << '\n' << std::flush;
  }
  /// As report, but reads the clock only when `step` is a multiple of 65,536 (hot loops).
  template <typename Line>
  void tick(std::uint64_t step, Line&& line) {
    if ((step & 0xffff) == 0) report(line);
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::ostream* out_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
};

}  // namespace mmt::gspn
