#include "nnlb/engine/own_process.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <new>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "nnlb/engine/core/interrupt.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/fork_gate.hpp"
#include "nnlb/util/parallel.hpp"

namespace nnlb {

namespace {

// What the child hands back: a kind, then the job's bytes or the error's source, key and text.
enum class Outcome : char { result = 'R', input = 'I', conservation = 'C', logic = 'L', memory = 'M', other = 'E' };

std::string frame(Outcome kind, const std::string& a = {}, const std::string& b = {}, const std::string& c = {}) {
  std::string out(1, static_cast<char>(kind));
  for (const std::string* s : {&a, &b, &c}) {
    const std::uint64_t n = s->size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out += *s;
  }
  return out;
}

// The three strings of an error frame.
std::array<std::string, 3> strings(std::string_view bytes) {
  std::array<std::string, 3> out;
  for (std::string& s : out) {
    std::uint64_t n = 0;
    if (bytes.size() < sizeof n) throw std::runtime_error("a child process's error ends early");
    std::memcpy(&n, bytes.data(), sizeof n);
    bytes.remove_prefix(sizeof n);
    if (bytes.size() < n) throw std::runtime_error("a child process's error ends early");
    s.assign(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  return out;
}

void write_all(int fd, const std::string& bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (n > 0) at += static_cast<std::size_t>(n);
    else if (errno != EINTR) return;
  }
}

std::string status_text(int raw) {
  if (WIFSIGNALED(raw)) return "killed by signal " + std::to_string(WTERMSIG(raw)) + " (" + strsignal(WTERMSIG(raw)) + ")";
  return "exit status " + std::to_string(WEXITSTATUS(raw));
}

}  // namespace

std::string answer(const std::function<std::string()>& job) {
  try {
    return static_cast<char>(Outcome::result) + job();
  } catch (const InputError& e) {
    return frame(Outcome::input, e.source(), e.key(), e.what());
  } catch (const ConservationError& e) {
    return frame(Outcome::conservation, e.what());
  } catch (const std::logic_error& e) {
    return frame(Outcome::logic, e.what());
  } catch (const std::bad_alloc&) {
    return frame(Outcome::memory);
  } catch (const std::exception& e) {
    return frame(Outcome::other, e.what());
  } catch (...) {
    return frame(Outcome::other, "unknown error");
  }
}

std::string answered_in_own_process(const std::function<std::string()>& answering_job, bool quiet) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("a child process: pipe: ") + std::strerror(errno));
  // Forked with no sweep worker inside the allocator (util/fork_gate.hpp).
  const pid_t pid = fork_gate::fork_child([&] {
    ::close(fds[0]);
    if (const int null = quiet ? ::open("/dev/null", O_WRONLY) : -1; null >= 0) ::dup2(null, STDERR_FILENO);
    // An interruption is the parent's to report; the child only ends.
    std::signal(SIGINT, SIG_DFL), std::signal(SIGTERM, SIG_DFL);
    // The parent's OpenMP threads are not in this process.
    set_thread_count(1);
    write_all(fds[1], answering_job());
    ::_exit(0);  // no atexit handlers, no flush of buffers the parent owns
  });
  if (pid < 0) {
    const int error = errno;
    ::close(fds[0]), ::close(fds[1]);
    throw std::runtime_error(std::string("a child process: fork: ") + std::strerror(error));
  }
  ::close(fds[1]);
  // The wait for the child's answer gives the gate back (a fork elsewhere may go on meanwhile).
  // A caller that may interrupt the run (engine/core/interrupt.hpp) is looked at every 50 ms:
  // its signal may reach this process only, so the child is ended here.
  const std::atomic<bool>* interrupt = interrupt_flag();
  std::string answer;
  std::array<char, 1 << 16> chunk;
  bool interrupted = false;
  for (;;) {
    ssize_t n = 0;
    {
      const fork_gate::Idle idle;
      pollfd readable{fds[0], POLLIN, 0};
      const int ready = interrupt != nullptr ? ::poll(&readable, 1, 50) : 1;
      if (ready == 0 || (ready < 0 && errno == EINTR)) {
        if (!interrupt->load()) continue;
        ::kill(pid, SIGKILL);
        interrupted = true;
        break;
      }
      n = ::read(fds[0], chunk.data(), chunk.size());
    }
    if (n > 0) answer.append(chunk.data(), static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  ::close(fds[0]);
  int raw = 0;
  {
    const fork_gate::Idle idle;
    while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
    }
  }
  if (interrupted) throw Interrupted();
  if (answer.empty()) throw ProcessDied("the simulation process ended without an answer: " + status_text(raw));
  return open_answer(answer);
}

std::string open_answer(std::string_view answer) {
  if (answer.empty()) throw std::runtime_error("a child process's answer is empty");
  const std::string_view rest = answer.substr(1);
  switch (static_cast<Outcome>(answer[0])) {
    case Outcome::result:
      return std::string(rest);
    case Outcome::input: {
      const auto [source, key, text] = strings(rest);
      throw InputError(source, key, text);
    }
    case Outcome::conservation:
      throw ConservationError(strings(rest)[0]);
    case Outcome::logic:
      throw std::logic_error(strings(rest)[0]);
    case Outcome::memory:
      throw std::bad_alloc();
    default:
      throw std::runtime_error(strings(rest)[0]);
  }
}

}  // namespace nnlb
