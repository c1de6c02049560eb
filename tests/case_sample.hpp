#pragma once
// Which cases of a long enumeration a test pass runs (tests/CMakeLists.txt defines
// NNLB_SANITIZED_TESTS in the sanitizer build).
#include <cstddef>

namespace nnlb::test {

// The tests that enumerate many cases (every key, engine x algorithm pair, contract case) run
// every case in the Release pass and every third one in the sanitizer pass (scripts/test), where
// an instrumented run costs 3-20 times more: the Release pass checks the results, the sanitizer
// pass looks for memory and undefined-behaviour errors along the paths a third of them take.
#ifdef NNLB_SANITIZED_TESTS
inline constexpr std::size_t case_stride = 3;
#else
inline constexpr std::size_t case_stride = 1;
#endif

// Whether case `i` (counted from 0) of such an enumeration runs in this pass.
inline bool runs_case(std::size_t i) { return i % case_stride == 0; }

}  // namespace nnlb::test
