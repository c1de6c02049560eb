#include "nnlb/experiment/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace nnlb {

namespace {

std::string duration(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{}:{:02}", s / 60, s % 60);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

}  // namespace

Progress::Progress(std::string label, Mode mode, std::FILE* out) : label_(std::move(label)), mode_(mode), out_(out) {
  if (mode_ == Mode::automatic) mode_ = ::isatty(::fileno(out_)) ? Mode::bar : Mode::lines;
}

std::string Progress::status(std::size_t done, std::size_t total) const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done - baseline_) / elapsed : 0.0;
  std::string line = fmt::format("{}: {}/{} runs ({:.0f}%)", label_, done, total, total ? 100.0 * done / total : 100.0);
  if (rate > 0) line += fmt::format(", {:.3g} runs/s", rate);
  if (rate > 0 && done < total) line += ", ETA " + duration(static_cast<double>(total - done) / rate);
  if (done == total) line += ", " + duration(elapsed);
  return line;
}

void Progress::update(std::size_t done, std::size_t total) {
  if (!started_) {
    started_ = true;
    baseline_ = done;
    start_ = Clock::now();
  }
  if (mode_ == Mode::quiet) return;
  if (mode_ == Mode::bar) {
    constexpr int width = 30;
    const int filled = total ? static_cast<int>(width * done / total) : width;
    fmt::print(out_, "\r[{}{}] {}\x1b[K", std::string(filled, '#'), std::string(width - filled, '.'), status(done, total));
    if (done == total) fmt::print(out_, "\n");
    std::fflush(out_);
    return;
  }
  const auto now = Clock::now();
  const std::size_t chunk = std::max<std::size_t>(1, total / 10);
  if (done == total || done / chunk != last_reported_ / chunk || now - last_line_ > std::chrono::seconds(30)) {
    fmt::print(out_, "{}\n", status(done, total));
    std::fflush(out_);
    last_reported_ = done;
    last_line_ = now;
  }
}

}  // namespace nnlb
