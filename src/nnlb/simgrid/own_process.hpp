#pragma once
// A run in a child process (fork), its result handed back through a pipe: SimGrid allows one
// simulation per process, so every simgrid run, of a sweep or a --repeat too, gets its own.
#include <functional>

#include "nnlb/engine/core/result.hpp"

namespace nnlb {

// Runs `job` in a child process and returns its result. An exception the job throws is thrown
// here again as the same kind (InputError with its source and key, ConservationError,
// std::logic_error, std::bad_alloc, else std::runtime_error) with the same text; a child that
// dies without a result is a std::runtime_error naming its status.
RunResult in_own_process(const std::function<RunResult()>& job);

}  // namespace nnlb
