#pragma once
// Runs a job with the GIL released, on a thread of its own, while the calling thread looks for
// signals every 50 ms (PyErr_CheckSignals: Ctrl-C's KeyboardInterrupt, or whatever the Python
// handler raises). A signal sets the job's interrupt flag (engine/core/interrupt.hpp): the run
// throws Interrupted at its next decision point, and once the job has ended the handler's
// exception is raised. The interpreter stays usable.
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "nnlb/engine/core/interrupt.hpp"

namespace nnlb::python {

template <class Job>
auto interruptible(Job&& job) -> decltype(job()) {
  using T = decltype(job());
  std::atomic<bool> interrupt{false};
  std::optional<T> result;
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  std::thread worker;
  {
    pybind11::gil_scoped_release release;
    worker = std::thread([&] {
      {
        const InterruptScope scope(&interrupt);
        try {
          result.emplace(job());
        } catch (...) {
          error = std::current_exception();
        }
      }
      std::lock_guard lock(mutex);
      done = true;
      ended.notify_one();
    });
  }
  bool signalled = false;
  for (;;) {
    {
      pybind11::gil_scoped_release release;
      std::unique_lock lock(mutex);
      if (ended.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) break;
    }
    if (!signalled && PyErr_CheckSignals() != 0) {
      signalled = true;  // the handler's exception stays set until the job has ended
      interrupt = true;
    }
  }
  {
    pybind11::gil_scoped_release release;
    worker.join();
  }
  if (signalled) throw pybind11::error_already_set();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

}  // namespace nnlb::python
