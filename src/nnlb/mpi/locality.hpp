#pragma once
// Locality for the MPI library: items with a position (2-D or 3-D coordinates, or a position on
// a space-filling curve as the first coordinate). Each rank tells its neighbours the centre of
// its items (their mean position, weighted); a transfer to a neighbour then carries the items
// nearest the boundary facing it, those for which |p - c_to|^2 - |p - c_from|^2 is smallest
// (the side of the bisector of the two centres the receiver is on: the boundary a geometric
// partitioner such as RCB or ALL would move), so a rank's items stay one compact region.
#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <vector>

#include "nnlb/node/message.hpp"

namespace nnlb::mpi {

using Position = std::array<double, 3>;

inline double distance2(const Position& a, const Position& b) {
  double d = 0;
  for (std::size_t k = 0; k < a.size(); ++k) d += (a[k] - b[k]) * (a[k] - b[k]);
  return d;
}

// The weighted centre of `items` (their mean position when every weight is 0); {NaN} if none.
template <class PositionOf>
Position centre_of(std::span<const Item> items, const PositionOf& position) {
  Position sum{}, plain{};
  double weight = 0;
  for (const Item& it : items) {
    const Position p = position(it.id);
    for (std::size_t k = 0; k < p.size(); ++k) sum[k] += it.weight * p[k], plain[k] += p[k];
    weight += it.weight;
  }
  if (items.empty()) return {NAN, NAN, NAN};
  for (std::size_t k = 0; k < sum.size(); ++k)
    sum[k] = weight > 0 ? sum[k] / weight : plain[k] / static_cast<double>(items.size());
  return sum;
}

// Appends to `out` the items of `movable` nearest the boundary facing the centre `to` (this
// rank's centre: `from`) while they fit in `amount`, then the next one if it overshoots by less
// than what is left (as heaviest_fit does).
template <class PositionOf>
void nearest_boundary(double amount, const Position& from, const Position& to, std::span<const Item> movable,
                      const PositionOf& position, std::vector<ItemId>& out) {
  std::vector<std::pair<double, Item>> order;
  order.reserve(movable.size());
  for (const Item& it : movable) {
    const Position p = position(it.id);
    order.push_back({distance2(p, to) - distance2(p, from), it});
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second.id < b.second.id; });
  double left = amount;
  for (const auto& [key, it] : order) {
    if (it.weight <= left) {
      out.push_back(it.id);
      left -= it.weight;
      continue;
    }
    if (it.weight - left < left) out.push_back(it.id);
    return;
  }
}

}  // namespace nnlb::mpi
