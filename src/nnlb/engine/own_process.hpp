#pragma once
// Work in a child process (fork), its answer handed back through a pipe: SimGrid allows one
// simulation per process, so every simgrid run, of a sweep or a --repeat too, gets its own, and
// so does every reading of a SimGrid platform file.
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nnlb {

// The child ended without an answer (a crash in SimGrid): its status.
struct ProcessDied : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a child hands back for `job`: its bytes, or the error it threw (kind, source, key, text).
// An engine plugin (engine/plugin.hpp) answers so, with its own copy of this code.
std::string answer(const std::function<std::string()>& job);

// Runs `answering_job` in a child process and returns the bytes of its answer (answer() above).
// An error the job answered is thrown here again as the same kind (InputError with its source and
// key, ConservationError, std::logic_error, std::bad_alloc, else std::runtime_error) with the
// same text; a child that dies without an answer is ProcessDied. `quiet`: the child's standard
// error goes nowhere (the caller says what went wrong).
std::string answered_in_own_process(const std::function<std::string()>& answering_job, bool quiet = false);

// The bytes of an answer, or its error thrown here as the kind it was.
std::string open_answer(std::string_view answer);

}  // namespace nnlb
