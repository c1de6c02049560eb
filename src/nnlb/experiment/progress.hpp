#pragma once
// Progress of long jobs on stderr: on a terminal a bar redrawn in place with done/total, rate and
// ETA; otherwise one plain line per finished chunk (about every 10% or 30 s); nothing when quiet.
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace nnlb {

class Progress {
 public:
  enum class Mode { automatic, bar, lines, quiet };
  Progress(std::string label, Mode mode = Mode::automatic, std::FILE* out = stderr);
  // Reports `done` of `total` finished; the first call sets the baseline (work already done).
  void update(std::size_t done, std::size_t total);
  // One line describing the state, e.g. "fig2: 640/1280 runs (50%), 45.1 runs/s, ETA 14 s".
  std::string status(std::size_t done, std::size_t total) const;

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  Mode mode_;
  std::FILE* out_;
  Clock::time_point start_ = Clock::now(), last_line_ = Clock::now();
  std::size_t baseline_ = 0, last_reported_ = 0;
  bool started_ = false;
};

}  // namespace nnlb
