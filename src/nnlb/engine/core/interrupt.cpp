#include "nnlb/engine/core/interrupt.hpp"

namespace nnlb {

std::atomic<unsigned> interrupt_scopes{0};

namespace {
thread_local const std::atomic<bool>* installed = nullptr;
}  // namespace

const std::atomic<bool>* interrupt_flag() { return installed; }

InterruptScope::InterruptScope(const std::atomic<bool>* flag) : previous_(installed), flag_(flag) {
  installed = flag;
  if (flag_ != nullptr) interrupt_scopes.fetch_add(1);
}

InterruptScope::~InterruptScope() {
  installed = previous_;
  if (flag_ != nullptr) interrupt_scopes.fetch_sub(1);
}

void throw_if_interrupted() {
  if (installed != nullptr && installed->load(std::memory_order_relaxed)) throw Interrupted();
}

}  // namespace nnlb
