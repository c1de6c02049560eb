#pragma once
// Which whole items carry a transfer a policy decided (an amount of load to one neighbour): the
// step from divisible load to indivisible work items. A policy decides amounts; a node program
// that balances items asks an ItemChoice which of its movable items to send. The default takes
// the heaviest items that fit, then the one item whose overshoot is smaller than what is left
// (so every pick brings the amount sent nearer to the amount decided).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/node/message.hpp"

namespace nnlb {

// A transfer a policy decided, as the node that ships it sees it.
struct Departure {
  NodeId from = 0, to = 0;  // this node, the neighbour
  double amount = 0;        // load units, an item counting its weight
  std::uint64_t step = 0;   // the node's balancing step (0, 1, ...)
};

// Appends to `out` the identities of the items of `movable` that carry the departure.
using ItemChoice = std::function<void(const Departure& d, std::span<const Item> movable, std::vector<ItemId>& out)>;

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

// Items numbered along a line, each node holding a block of consecutive identities (a 1-D domain
// decomposition): the items at the edge that faces the receiver while they fit, never the node's
// last one. In one step every node ships one way only (to higher-numbered nodes at even steps, to
// lower-numbered ones at odd steps): two neighbours never trade edges at once, so blocks stay
// contiguous.
inline void line_blocks(const Departure& d, std::span<const Item> movable, std::vector<ItemId>& out) {
  const bool upwards = d.to > d.from;
  if (upwards != (d.step % 2 == 0)) return;
  std::vector<Item> order(movable.begin(), movable.end());
  std::sort(order.begin(), order.end(), [&](const Item& a, const Item& b) { return upwards ? a.id > b.id : a.id < b.id; });
  double left = d.amount;
  for (std::size_t k = 0; k + 1 < order.size() && order[k].weight <= left; ++k) out.push_back(order[k].id), left -= order[k].weight;
}

}  // namespace nnlb
