#pragma once
// GCC's and Clang's 128-bit unsigned integer, named once (an extension: -Wpedantic stays quiet).
namespace nnlb {

__extension__ using uint128 = unsigned __int128;

}  // namespace nnlb
