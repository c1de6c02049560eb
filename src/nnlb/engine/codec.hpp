#pragma once
// A run's result and a platform as bytes, to hand them from the process that made them to its
// parent (own_process.hpp): fixed-size numbers in this machine's order, each string and vector
// led by its length. Both ends are the same binary, so there is no versioning.
#include <string>
#include <string_view>

#include "nnlb/engine/core/result.hpp"
#include "nnlb/model/platform.hpp"

namespace nnlb {

std::string encode(const RunResult& r);
// Throws std::runtime_error on bytes that end early or run on.
RunResult decode_result(std::string_view bytes);

// The speeds, links and hosts of a platform (its background load is not carried).
std::string encode(const Platform& p);
Platform decode_platform(std::string_view bytes);

}  // namespace nnlb
