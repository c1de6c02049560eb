#include "nnlb/util/parse.hpp"

#include <charconv>
#include <cmath>

#include "nnlb/util/error.hpp"

namespace nnlb {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

namespace {
template <class T>
T parse_number(std::string_view text, const std::string& what, const char* kind) {
  T value{};
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end)
    throw InputError(what + ": '" + std::string(text) + "' is not " + kind);
  return value;
}
}  // namespace

std::uint64_t parse_uint(std::string_view text, const std::string& what) {
  return parse_number<std::uint64_t>(text, what, "a non-negative integer");
}
std::int64_t parse_int(std::string_view text, const std::string& what) { return parse_number<std::int64_t>(text, what, "an integer"); }
double parse_double(std::string_view text, const std::string& what) {
  const double v = parse_number<double>(text, what, "a number");
  if (!std::isfinite(v)) throw InputError(what + ": '" + std::string(text) + "' is not a finite number");
  return v;
}

}  // namespace nnlb
