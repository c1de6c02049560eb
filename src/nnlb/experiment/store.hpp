#pragma once
// The results store of a sweep: one JSON record per line, appended as each run finishes with a
// single write() on an O_APPEND descriptor, so a record is either whole or (if the process dies
// mid-write) a torn last line that the next open reports and skips. Each record carries a `key`
// naming its (point, repeat); reopening a store tells a sweep which runs are already done, so an
// interrupted sweep resumes without losing or duplicating a finished run.
#include <cstdio>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnlb {

// The meaning of a record's fields (docs/result-schema.md); records without the field are of
// version 1. Version 2: the engine core's totals, stop reasons and balance rule.
inline constexpr int record_schema_version = 4;
// The schema version a record names.
int schema_version(const nlohmann::json& record);

class ResultStore {
 public:
  // Opens the store at `path` and reads what it holds (a missing store is created by the first
  // append); of several records of one key, the last is kept. Corrupt lines are skipped; each is reported as "PATH:LINE: ..." through `warn`, and
  // records made by another code version (their `code_version`) in one warning. A store of
  // records of another schema version is refused (InputError): resuming it would mix meanings.
  ResultStore(std::string path, const std::function<void(const std::string&)>& warn);
  ~ResultStore();
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  const std::string& path() const { return path_; }
  bool contains(const std::string& key) const { return keys_.count(key) > 0; }
  const std::vector<nlohmann::json>& records() const { return records_; }

  // Appends one record (it must have a string "key"); thread-safe.
  void append(const nlohmann::json& record);
  // Flushes appended records to stable storage.
  void sync();

 private:
  void open();  // opens (creating) the file for appending

  std::string path_;
  int fd_ = -1;
  std::set<std::string> keys_;
  std::vector<nlohmann::json> records_;
  std::mutex mutex_;
};

// Reads every record of a store file (corrupt lines reported and skipped), without opening it
// for writing.
std::vector<nlohmann::json> read_store(const std::string& path, const std::function<void(const std::string&)>& warn);

}  // namespace nnlb
