#pragma once
// Bad input is reported as one line naming the source (file, flag) and key, exit status 2.
#include <stdexcept>
#include <string>

namespace nnlb {

// `text` with control characters shown escaped (\n, \t, \x00, ...): one line on a terminal, and
// a NUL quoted from the input no longer ends the message early.
std::string escape_controls(const std::string& text);

class InputError : public std::runtime_error {
 public:
  InputError(std::string source, std::string key, const std::string& problem)
      : std::runtime_error(escape_controls(problem)), source_(std::move(source)), key_(std::move(key)) {}
  explicit InputError(const std::string& problem) : std::runtime_error(escape_controls(problem)) {}

  const std::string& source() const { return source_; }
  const std::string& key() const { return key_; }
  // "SOURCE: key 'KEY': PROBLEM" with the empty parts left out.
  std::string line() const;

  // Returns a copy that names `source` (if none is set yet) and `key` (if none is set yet).
  InputError located(const std::string& source, const std::string& key = {}) const;

 private:
  std::string source_;
  std::string key_;
};

}  // namespace nnlb
