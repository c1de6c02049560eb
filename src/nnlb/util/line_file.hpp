#pragma once
// Text files of one value per line: '#' starts a comment, blank lines are skipped, and each
// value is handed over with its place ("path:line") for error messages.
#include <functional>
#include <string>
#include <string_view>

namespace nnlb {

// Reads `spec` (relative to base_dir when relative); InputError naming the file when it is
// missing, not a regular file or unreadable. Returns the path as opened.
std::string read_value_lines(std::string_view spec, const std::string& base_dir, const std::string& what,
                             const std::function<void(std::string_view value, const std::string& where)>& each);

}  // namespace nnlb
