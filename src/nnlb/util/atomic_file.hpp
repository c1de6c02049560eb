#pragma once
// Output files appear whole or not at all: content goes to a temporary file in the same folder,
// which is renamed over the target once complete.
#include <string>

namespace nnlb {

// Writes `content` to `path` atomically; throws InputError naming the path when it cannot.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace nnlb
