#pragma once
// What one node holds: divisible load and items. Engines own it; node programs change it only by
// sending (Context::send) and taking messages (Context::take).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <vector>

#include "nnlb/node/message.hpp"

namespace nnlb {

struct Holdings {
  double load = 0;
  double item_weight = 0;
  std::vector<Item> items;

  double held() const { return load + item_weight; }

  void add(const Item& item) {
    items.push_back(item);
    item_weight += item.weight;
  }

  // Removes the named items (indices into `items`), the highest index first, each swapped with
  // the last; throws if an index repeats or is out of range.
  std::vector<Item> extract(std::span<const std::uint32_t> which) {
    std::vector<std::uint32_t> idx(which.begin(), which.end());
    std::sort(idx.begin(), idx.end(), std::greater<>());
    if (std::adjacent_find(idx.begin(), idx.end()) != idx.end() || idx.front() >= items.size())
      throw std::logic_error("a send names an item twice or one the node does not hold");
    std::vector<Item> out;
    out.reserve(idx.size());
    for (std::uint32_t k : idx) {
      out.push_back(items[k]);
      item_weight -= items[k].weight;
      items[k] = items.back();
      items.pop_back();
    }
    if (items.empty()) item_weight = 0;  // no drift from the sums
    return out;
  }
};

}  // namespace nnlb
