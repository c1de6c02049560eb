#pragma once
// Input files, checked before anything is read: a regular file (a device such as /dev/zero, a
// folder or a missing path is refused with one line naming the path) of a bounded size, so no
// input can make nnlb read without end.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace nnlb {

inline constexpr std::uintmax_t max_input_bytes = std::uintmax_t{4} << 30;  // 4 GiB

// `what` names the file's role in messages ("scenario file", "results store", ...).
std::ifstream open_input(const std::filesystem::path& path, const std::string& what, std::ios::openmode mode = std::ios::in);

// The same check for a path that may not exist yet (a store a sweep creates): refused only if it
// exists and is not a regular file.
void require_regular_or_absent(const std::filesystem::path& path, const std::string& what);

}  // namespace nnlb
