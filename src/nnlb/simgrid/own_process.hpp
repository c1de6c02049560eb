#pragma once
// Work in a child process (fork), its answer handed back through a pipe: SimGrid allows one
// simulation per process, so every simgrid run, of a sweep or a --repeat too, gets its own, and
// so does every reading of a SimGrid platform file.
#include <functional>
#include <stdexcept>
#include <string>

namespace nnlb {

// The child ended without an answer (a crash in SimGrid): its status.
struct ProcessDied : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `job` in a child process and returns the bytes it returned. An exception the job throws
// is thrown here again as the same kind (InputError with its source and key, ConservationError,
// std::logic_error, std::bad_alloc, else std::runtime_error) with the same text; a child that
// dies without an answer is ProcessDied. `quiet`: the child's standard error goes nowhere (the
// caller says what went wrong).
std::string in_own_process(const std::function<std::string()>& job, bool quiet = false);

}  // namespace nnlb
