#pragma once
// Runs another program without a shell: arguments are passed as they are, never interpreted.
#include <string>
#include <vector>

namespace nnlb {

struct ProgramOutcome {
  bool started = false;  // false: the program could not be started (e.g. not installed)
  int status = -1;       // exit status; -1 if it was killed by a signal
  std::string output;    // what it wrote on stdout and stderr
};

// Reads the file descriptor `fd` (a pipe) to its end.
std::string read_to_end(int fd);

// Starts argv[0] (looked up in PATH) with the arguments argv[1..], stdin from /dev/null, and
// waits for it to end.
ProgramOutcome run_program(const std::vector<std::string>& argv);

}  // namespace nnlb
