#include "nnlb/util/input_file.hpp"

#include <system_error>

#include "nnlb/util/error.hpp"

namespace nnlb {

void require_regular_or_absent(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return;
  if (!std::filesystem::is_regular_file(status)) throw InputError(path.string(), {}, what + " is not a regular file");
}

std::ifstream open_input(const std::filesystem::path& path, const std::string& what, std::ios::openmode mode) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw InputError(path.string(), {}, what + " not found");
  if (!std::filesystem::is_regular_file(status)) throw InputError(path.string(), {}, what + " is not a regular file");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path.string(), {}, "cannot read " + what + ": " + ec.message());
  if (size > max_input_bytes) throw InputError(path.string(), {}, what + " is larger than 4 GiB");
  std::ifstream in(path, mode);
  if (!in) throw InputError(path.string(), {}, "cannot read " + what);
  return in;
}

}  // namespace nnlb
