#pragma once
// Faults injected on purpose, for the tests that prove each engine's conservation check fires:
// a check that recounts load and items must see a lost, doubled or altered transfer.
#include <cstdint>

namespace nnlb {

// Every k-th load-carrying message (transfer, in the synchronous engine's direct path) is lost,
// sent twice, or carries a slightly wrong amount; 0: never.
struct FaultInjection {
  std::uint64_t drop_every = 0;
  std::uint64_t duplicate_every = 0;
  std::uint64_t corrupt_every = 0;

  bool any() const { return drop_every + duplicate_every + corrupt_every > 0; }
  static bool hits(std::uint64_t every, std::uint64_t k) { return every > 0 && k % every == 0; }
};

}  // namespace nnlb
