#include "interrupt.hpp"

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace nnlb::cli {

namespace {

// Two message buffers: the handler reads the one published last; a new message goes into the other.
std::array<std::array<char, 1024>, 2> messages{};
std::atomic<int> current{0};

void set_message(const std::string& kept) {
  const int next = 1 - current.load();
  const std::string line = "\nnnlb: interrupted; " + kept + "\n";
  const std::size_t n = std::min(line.size(), messages[next].size() - 1);
  std::memcpy(messages[next].data(), line.data(), n);
  messages[next][n] = '\0';
  current.store(next);
}

extern "C" void interrupted(int) {
  const char* text = messages[current.load()].data();
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, text, std::strlen(text));
  ::_exit(130);
}

}  // namespace

void handle_interrupts() {
  set_message("nothing was written");
  struct sigaction action {};
  action.sa_handler = interrupted;
  sigemptyset(&action.sa_mask);
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGINT, SIGTERM}) {
    ::sigaction(sig, &action, nullptr);
    sigaddset(&signals, sig);
  }
  ::sigprocmask(SIG_UNBLOCK, &signals, nullptr);
}

void on_interrupt_keep(const std::string& kept) { set_message(kept); }

}  // namespace nnlb::cli
