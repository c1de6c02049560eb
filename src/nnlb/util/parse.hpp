#pragma once
// Small strict parsers for spec strings ("mesh:16x16", "uniform:0,1000"); they throw InputError.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nnlb {

std::vector<std::string_view> split(std::string_view text, char sep);
std::uint64_t parse_uint(std::string_view text, const std::string& what);
std::int64_t parse_int(std::string_view text, const std::string& what);
double parse_double(std::string_view text, const std::string& what);

}  // namespace nnlb
