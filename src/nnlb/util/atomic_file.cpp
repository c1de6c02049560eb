#include "nnlb/util/atomic_file.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "nnlb/util/error.hpp"

namespace nnlb {

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::filesystem::path target(path);
  const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir)) throw InputError(path, {}, "output folder does not exist");
  const std::string tmp = (dir / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()))).string();
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, {}, "cannot write output file");
    out << content;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(path, {}, "error while writing output file");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw InputError(path, {}, "cannot move output file into place");
  }
}

void check_output_file(const std::string& path, const std::string& option) {
  const std::filesystem::path target(path);
  const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir)) throw InputError(option, {}, "'" + path + "': output folder does not exist");
  if (std::filesystem::is_directory(target)) throw InputError(option, {}, "'" + path + "' is a folder");
  if (::access(dir.c_str(), W_OK) != 0) throw InputError(option, {}, "'" + path + "': output folder is not writable");
}

void make_folder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (fs::is_directory(dir)) return;
  for (fs::path p = dir; !p.empty() && p != p.parent_path(); p = p.parent_path())
    if (fs::exists(p) && !fs::is_directory(p)) throw InputError(p.string(), {}, "is a file, not a folder");
  throw InputError(dir, {}, "cannot create folder: " + ec.message());
}

}  // namespace nnlb
