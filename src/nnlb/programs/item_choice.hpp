#pragma once
// Which whole items carry a transfer a policy decided (an amount of load to one neighbour): the
// step from divisible load to indivisible work items. A policy decides amounts; a node program
// that balances items asks an ItemChoice which of its movable items to send. The default takes
// the heaviest items that fit, then the one item whose overshoot is smaller than what is left
// (so every pick brings the amount sent nearer to the amount decided).
#include <algorithm>
#include <functional>
#include <span>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/node/message.hpp"

namespace nnlb {

// Appends to `out` the identities of the items of `movable` to send to neighbour `to` for a
// transfer of `amount` (load units, an item counting its weight).
using ItemChoice = std::function<void(NodeId to, double amount, std::span<const Item> movable, std::vector<ItemId>& out)>;

inline void heaviest_fit(double amount, std::span<const Item> movable, std::vector<ItemId>& out) {
  std::vector<Item> order(movable.begin(), movable.end());
  std::sort(order.begin(), order.end(), [](const Item& a, const Item& b) { return a.weight != b.weight ? a.weight > b.weight : a.id < b.id; });
  double left = amount;
  const Item* closest = nullptr;  // the lightest item that did not fit
  for (const Item& it : order) {
    if (it.weight <= left) {
      out.push_back(it.id);
      left -= it.weight;
    } else {
      closest = &it;
    }
  }
  if (closest != nullptr && closest->weight - left < left) out.push_back(closest->id);
}

}  // namespace nnlb
