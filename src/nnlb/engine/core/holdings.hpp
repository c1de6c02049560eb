#pragma once
// What one node holds: divisible load and items. Engines own it; node programs change it only by
// sending (Context::send), taking messages (Context::take) and executing items; items are named
// by identity.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <unordered_map>
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

  // Where the held item `id` is in `items` (searched from the back: programs mostly name their
  // last items), or items.size().
  std::size_t position(ItemId id) const {
    for (std::size_t k = items.size(); k-- > 0;)
      if (items[k].id == id) return k;
    return items.size();
  }

  // Removes the items named by identity, the one at the highest position first, each swapped
  // with the last; throws if one is named twice or not held.
  std::vector<Item> extract(std::span<const ItemId> ids) {
    std::vector<std::size_t> at;
    at.reserve(ids.size());
    if (ids.size() <= 16) {
      for (ItemId id : ids) at.push_back(position(id));
    } else {  // one pass over what the node holds
      std::unordered_map<ItemId, std::size_t> where;
      where.reserve(items.size());
      for (std::size_t k = 0; k < items.size(); ++k) where.emplace(items[k].id, k);
      for (ItemId id : ids) {
        const auto it = where.find(id);
        at.push_back(it == where.end() ? items.size() : it->second);
      }
    }
    std::sort(at.begin(), at.end(), std::greater<>());
    if (at.empty()) return {};
    if (std::adjacent_find(at.begin(), at.end()) != at.end() || at.front() >= items.size())
      throw std::logic_error("a send names an item twice or one the node does not hold");
    std::vector<Item> out;
    out.reserve(at.size());
    for (std::size_t k : at) {
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
