#pragma once
// Output files appear whole or not at all: content goes to a temporary file in the same folder,
// which is renamed over the target once complete.
#include <string>

namespace nnlb {

// Writes `content` to `path` atomically; throws InputError naming the path when it cannot.
void write_file_atomic(const std::string& path, const std::string& content);

// Before a run: `path` can be written by write_file_atomic (its folder exists and is writable,
// and it is not a folder); throws InputError naming `option` and the path otherwise.
void check_output_file(const std::string& path, const std::string& option);

// Creates the folder `dir` and its parents where missing; throws InputError naming the path when
// it cannot (e.g. a plain file of that name is in the way).
void make_folder(const std::string& dir);

}  // namespace nnlb
