#include "nnlb/util/error.hpp"

namespace nnlb {

std::string InputError::line() const {
  std::string out;
  if (!source_.empty()) out += source_ + ": ";
  if (!key_.empty()) out += "key '" + key_ + "': ";
  return out + what();
}

InputError InputError::located(const std::string& source, const std::string& key) const {
  return InputError(source_.empty() ? source : source_, key_.empty() ? key : key_, what());
}

}  // namespace nnlb
