#include "nnlb/util/line_file.hpp"

#include <filesystem>
#include <fstream>

#include "nnlb/util/error.hpp"
#include "nnlb/util/input_file.hpp"

namespace nnlb {

std::string read_value_lines(std::string_view spec, const std::string& base_dir, const std::string& what,
                             const std::function<void(std::string_view value, const std::string& where)>& each) {
  std::filesystem::path path(spec);
  if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
  std::ifstream in = open_input(path, what);
  std::string line;
  for (std::size_t line_no = 1; std::getline(in, line); ++line_no) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r");
    each(std::string_view(line).substr(first, last - first + 1), path.string() + ":" + std::to_string(line_no));
  }
  return path.string();
}

}  // namespace nnlb
