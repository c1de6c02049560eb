#pragma once
// Output files appear whole or not at all: content goes to a temporary file in the same folder,
// which is renamed over the target once complete.
#include <string>

namespace nnlb {

// Writes `content` to `path` atomically; throws InputError naming the path when it cannot.
void write_file_atomic(const std::string& path, const std::string& content);

// Creates the folder `dir` and its parents where missing; throws InputError naming the path when
// it cannot (e.g. a plain file of that name is in the way).
void make_folder(const std::string& dir);

}  // namespace nnlb
