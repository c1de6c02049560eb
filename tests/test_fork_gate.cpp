// util/fork_gate.hpp: a child forked while other threads allocate must not inherit an allocator
// lock held by one of them. Without the gate, a build with the sanitizers' allocator (GCC 12)
// hung in such a child about one run in three of a SimGrid sweep; here a thread allocates
// without pause while another forks children that allocate, and every child must answer (in
// that build, without the share below, the first children already hang).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "nnlb/util/fork_gate.hpp"

namespace nnlb {
namespace {

// Enough blocks of a few sizes that a thread's cache of free blocks runs dry and overflows, so
// that the allocator's shared pools (and their locks) are used all the time.
void churn() {
  std::vector<std::unique_ptr<char[]>> blocks;
  for (std::size_t size : {16, 48, 112, 240})
    for (int b = 0; b < 2048; ++b) blocks.push_back(std::make_unique<char[]>(size));
}

TEST(ForkGate, ChildrenForkedBesideAnAllocatingThreadAllEnd) {
  std::atomic<bool> stop{false}, running{false};
  std::thread allocating([&] {
    while (!stop) {
      const fork_gate::Share share;
      running = true;
      churn();
    }
  });
  while (!running) std::this_thread::yield();  // the thread's own start allocates without a share
  int ended = 0;
  for (int child = 0; child < 100; ++child) {
    const pid_t pid = fork_gate::fork_child([] {
      churn();  // the allocator's shared pools, in the child
      ::_exit(0);
    });
    ASSERT_GT(pid, 0);
    int status = -1;
    {
      const fork_gate::Idle idle;
      ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++ended;
  }
  stop = true;
  allocating.join();
  EXPECT_EQ(ended, 100);
}

}  // namespace
}  // namespace nnlb
