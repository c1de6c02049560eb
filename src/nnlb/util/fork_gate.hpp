#pragma once
// fork() beside threads that may be inside the allocator. A child of a multithreaded process
// inherits every lock as it was at the fork, and one another thread held then is never released
// in the child: glibc's malloc takes its own locks around fork, the sanitizers' allocator of
// GCC 12 does not, and a SimGrid run's child (simgrid/own_process.hpp) hung in it during a
// sweep. So the threads that run jobs beside a thread that may fork (a sweep's workers) hold a
// share of this gate while they work, a fork happens with the gate held alone, and a thread
// that waits for its child, or for the other workers, waits without its share.
#include <sys/types.h>

#include <functional>

namespace nnlb::fork_gate {

// The calling thread's share while alive (a thread holds at most one; nested shares are free).
class Share {
 public:
  Share();
  ~Share();
  Share(const Share&) = delete;
  Share& operator=(const Share&) = delete;
};

// While alive, the calling thread's share (if it holds one) is given back: around a blocking
// wait, so that a fork elsewhere need not wait for it. Allocate nothing in that scope.
class Idle {
 public:
  Idle();
  ~Idle();
  Idle(const Idle&) = delete;
  Idle& operator=(const Idle&) = delete;

 private:
  bool lent_ = false;
};

// fork() once no other thread holds a share; the child runs `child`, which must end the process
// (_exit), and never touches the gate. Returns the child's pid, or -1 with errno set.
pid_t fork_child(const std::function<void()>& child);

}  // namespace nnlb::fork_gate
