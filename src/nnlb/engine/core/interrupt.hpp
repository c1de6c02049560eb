#pragma once
// A run's caller may end it early (Ctrl-C in the Python module): it installs a flag for the
// thread that runs (InterruptScope) and sets the flag from another thread; the run's next
// decision point (stop_rules.hpp: decide, which every engine calls after each event or round)
// throws Interrupted. Without a scope anywhere in the process, a decision point pays one load.
#include <atomic>
#include <stdexcept>

namespace nnlb {

class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

// Scopes with a flag alive in the process (0: no run can be interrupted, nothing to look at).
extern std::atomic<unsigned> interrupt_scopes;

// The flag installed for the calling thread, or nullptr.
const std::atomic<bool>* interrupt_flag();

// Installs `flag` for the calling thread until destroyed (nullptr: none); the previous one after.
class InterruptScope {
 public:
  explicit InterruptScope(const std::atomic<bool>* flag);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
  const std::atomic<bool>* flag_;
};

// Throws Interrupted when the calling thread's flag is set.
void throw_if_interrupted();

inline void poll_interrupt() {
  if (interrupt_scopes.load(std::memory_order_relaxed) != 0) [[unlikely]]
    throw_if_interrupted();
}

}  // namespace nnlb
