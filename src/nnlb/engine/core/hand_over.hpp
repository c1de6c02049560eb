#pragma once
// What a leaving node hands to its heirs, its live neighbours (Douglas & Harwood sec. 3.1: a host
// that leaves first gives its jobs to its neighbours), written once for every engine with churn:
// items in turn, the first to heir 0; divisible load in equal shares, whole units in integer mode,
// the remainder to heir 0. A node with no live neighbour hands everything to one random live node.
#include <cmath>
#include <span>
#include <vector>

namespace nnlb {

// things[k] goes to heir k mod heirs.
template <class T>
std::vector<std::vector<T>> deal(std::span<const T> things, std::size_t heirs) {
  std::vector<std::vector<T>> hands(heirs);
  for (std::size_t k = 0; k < things.size(); ++k) hands[k % heirs].push_back(things[k]);
  return hands;
}

// Each heir's share of `load`; they sum to `load` exactly.
inline std::vector<double> load_shares(double load, std::size_t heirs, bool integer) {
  const double share = integer ? std::floor(load / static_cast<double>(heirs)) : load / static_cast<double>(heirs);
  std::vector<double> out(heirs, share);
  double rest = load;
  for (std::size_t k = heirs; k-- > 1;) rest -= share;
  out[0] = rest;
  return out;
}

}  // namespace nnlb
