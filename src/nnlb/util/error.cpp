#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

std::string hex_escape(unsigned char c) {
  const char* digits = "0123456789abcdef";
  return std::string("\\x") + digits[c >> 4] + digits[c & 15];
}

}  // namespace

std::string escape_controls(const std::string& text) {
  std::string shown;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) shown += c;
    else if (c == '\n') shown += "\\n";
    else if (c == '\r') shown += "\\r";
    else if (c == '\t') shown += "\\t";
    else shown += hex_escape(u);
  }
  return shown;
}

std::string InputError::line() const {
  std::string out;
  if (!source_.empty()) out += source_ + ": ";
  if (!key_.empty()) out += "key '" + key_ + "': ";
  return escape_controls(out) + what();  // what() is escaped already
}

InputError InputError::located(const std::string& source, const std::string& key) const {
  return InputError(source_.empty() ? source : source_, key_.empty() ? key : key_, what());
}

}  // namespace nnlb
