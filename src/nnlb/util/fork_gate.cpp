#include "nnlb/util/fork_gate.hpp"

#include <unistd.h>

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace nnlb::fork_gate {

namespace {

// A readers-writer gate that lets a waiting fork in first: workers take their share again and
// again, and a reader-first lock (glibc's default) would make the fork wait for ever.
class Gate {
 public:
  void lock_shared() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !forking_ && waiting_ == 0; });
    ++shares_;
  }
  void unlock_shared() {
    std::lock_guard lock(mutex_);
    if (--shares_ == 0) changed_.notify_all();
  }
  void lock() {
    std::unique_lock lock(mutex_);
    ++waiting_;
    changed_.wait(lock, [&] { return !forking_ && shares_ == 0; });
    --waiting_;
    forking_ = true;
  }
  void unlock() {
    std::lock_guard lock(mutex_);
    forking_ = false;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t shares_ = 0, waiting_ = 0;
  bool forking_ = false;
};

Gate& gate() {
  static Gate g;
  return g;
}

thread_local int shares = 0;  // of the calling thread: nested Share objects

}  // namespace

Share::Share() {
  if (shares++ == 0) gate().lock_shared();
}

Share::~Share() {
  if (--shares == 0) gate().unlock_shared();
}

Idle::Idle() : lent_(shares > 0) {
  if (lent_) gate().unlock_shared();
}

Idle::~Idle() {
  if (lent_) gate().lock_shared();
}

pid_t fork_child(const std::function<void()>& child) {
  const Idle idle;
  gate().lock();
  const pid_t pid = ::fork();
  if (pid == 0) {
    child();
    ::_exit(127);
  }
  gate().unlock();
  return pid;
}

}  // namespace nnlb::fork_gate
