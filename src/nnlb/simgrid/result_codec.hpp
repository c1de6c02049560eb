#pragma once
// RunResult as bytes, to hand a run's result from the process that ran it to its parent
// (own_process.hpp): fixed-size numbers in this machine's order, each string and vector led by
// its length. Both ends are the same binary, so there is no versioning.
#include <string>
#include <string_view>

#include "nnlb/engine/core/result.hpp"

namespace nnlb {

std::string encode(const RunResult& r);
// Throws std::runtime_error on bytes that end early or run on.
RunResult decode_result(std::string_view bytes);

}  // namespace nnlb
