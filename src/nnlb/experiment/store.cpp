#include "nnlb/experiment/store.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <unistd.h>

#include "nnlb/util/error.hpp"
#include "nnlb/util/input_file.hpp"
#include "nnlb/util/json_depth.hpp"
#include "nnlb/version.hpp"

namespace nnlb {

using nlohmann::json;

std::vector<json> read_store(const std::string& path, const std::function<void(const std::string&)>& warn) {
  std::vector<json> records;
  require_regular_or_absent(path, "results store");
  std::ifstream in(path);
  if (!in) return records;
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    json j = json_depth(line) > max_json_depth ? json(json::value_t::discarded) : json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.contains("key") || !j["key"].is_string()) {
      if (warn) warn(path + ":" + std::to_string(n) + ": corrupt record skipped");
      continue;
    }
    records.push_back(std::move(j));
  }
  return records;
}

int schema_version(const json& record) {
  const auto it = record.find("schema_version");
  return it != record.end() && it->is_number_integer() ? it->get<int>() : 1;
}

namespace {

// One warning for the records made by other code than this: how many, and by which versions.
void warn_other_versions(const std::vector<json>& records, const std::string& path, const std::function<void(const std::string&)>& warn) {
  std::map<std::string, std::size_t> others;
  std::size_t count = 0;
  for (const auto& r : records) {
    const json& v = r.contains("code_version") ? r["code_version"] : json();
    const std::string version = v.is_string() ? v.get<std::string>() : "unknown";
    if (version != code_version) ++others[version], ++count;
  }
  if (!count || !warn) return;
  std::string list;
  for (const auto& [version, n] : others) list += fmt::format("{}{} x {}", list.empty() ? "" : ", ", n, version);
  warn(fmt::format("{}: {} of its {} records were made by another code version ({}; this is {}); they are reused as they are", path, count,
                   records.size(), list, code_version));
}

}  // namespace

ResultStore::ResultStore(std::string path, const std::function<void(const std::string&)>& warn) : path_(std::move(path)) {
  // A later record of a run replaces an earlier one (a sweep reruns a run whose record lacks the
  // series its plots need).
  std::map<std::string, std::size_t> index;
  for (auto& r : read_store(path_, warn)) {
    const auto [at, added] = index.emplace(r["key"].get<std::string>(), records_.size());
    if (added) records_.push_back(std::move(r));
    else records_[at->second] = std::move(r);
  }
  for (const auto& [key, at] : index) keys_.insert(key);
  for (const json& r : records_)
    if (const int v = schema_version(r); v != record_schema_version)
      throw InputError(path_, {}, fmt::format("holds records of schema version {} and this nnlb writes version {} (docs/result-schema.md): "
                                              "rerun into a fresh store",
                                              v, record_schema_version));
  warn_other_versions(records_, path_, warn);
  // An existing store is opened now; a new one is created by the first record, so a sweep that
  // fails before any run leaves no file behind.
  if (std::filesystem::exists(path_)) {
    open();
    return;
  }
  const auto dir = std::filesystem::path(path_).has_parent_path() ? std::filesystem::path(path_).parent_path() : ".";
  if (::access(dir.c_str(), W_OK) != 0) throw InputError(path_, {}, std::string("cannot create results store: ") + std::strerror(errno));
}

ResultStore::~ResultStore() {
  if (fd_ >= 0) {
    ::fdatasync(fd_);
    ::close(fd_);
  }
}

void ResultStore::open() {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError(path_, {}, std::string("cannot open results store: ") + std::strerror(errno));
  // A torn last line (killed mid-write) must not swallow the next record: start on a new line.
  std::ifstream in(path_, std::ios::binary | std::ios::ate);
  if (in && in.tellg() > 0) {
    in.seekg(-1, std::ios::end);
    if (in.get() != '\n' && ::write(fd_, "\n", 1) != 1)
      throw InputError(path_, {}, std::string("cannot write results store: ") + std::strerror(errno));
  }
}

void ResultStore::append(const json& record) {
  const std::string line = record.dump() + "\n";
  std::lock_guard lock(mutex_);
  if (fd_ < 0) open();
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError(path_, {}, std::string("cannot write results store: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  keys_.insert(record["key"].get<std::string>());
  records_.push_back(record);
}

void ResultStore::sync() {
  std::lock_guard lock(mutex_);
  if (fd_ >= 0) ::fdatasync(fd_);
}

}  // namespace nnlb
