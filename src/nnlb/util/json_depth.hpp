#pragma once
// Nesting depth of JSON text, measured before parsing: a file nested hundreds of thousands of
// levels deep must be refused, not parsed (that would exhaust the stack).
#include <cstddef>
#include <string_view>

namespace nnlb {

// Deepest nesting that result files may hold (a record nests four levels).
inline constexpr std::size_t max_json_depth = 64;

// The deepest nesting of arrays and objects in `text`, brackets inside strings not counted.
std::size_t json_depth(std::string_view text);

}  // namespace nnlb
