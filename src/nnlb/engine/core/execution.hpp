#pragma once
// Context::execute for engines that simulate time: the item a node has in hand, and what the
// run's nodes completed. The ledger's recount includes both (an item is held, in flight, in hand
// or completed, exactly once).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "nnlb/node/message.hpp"
#include "nnlb/engine/core/holdings.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/model/platform.hpp"

namespace nnlb {

// The work of held item `id` in seconds on a node of `speed`: weight seconds at reference_speed
// (0 when it is not held: Execution::begin then refuses it).
inline double work_seconds(const Holdings& h, ItemId id, double speed) {
  const std::size_t k = h.position(id);
  return k < h.items.size() ? h.items[k].weight * reference_speed / speed : 0.0;
}

struct Execution {
  std::optional<Item> item;  // in hand
  double started = 0, ends = 0;
  std::uint32_t tag = 0;
  double busy = 0;  // time spent executing, completed items only

  // Takes item `id` from `h` into hand; throws if the node already has one or does not hold it.
  void begin(Holdings& h, ItemId id, std::uint32_t timer_tag, double now, double duration, NodeId node) {
    if (item) throw std::logic_error("node " + std::to_string(node) + " executes an item while it has one in hand");
    if (h.position(id) >= h.items.size()) throw std::logic_error("node " + std::to_string(node) + " executes an item it does not hold");
    const ItemId one[] = {id};
    item = h.extract(one).front();
    tag = timer_tag, started = now, ends = now + duration;
  }
};

// The completed items of a run, for its recount and its metrics.
struct Completions {
  std::vector<std::uint64_t> ids;
  double weight = 0;  // of the items completed
  double last = 0;

  void complete(Execution& e, double now) {
    ids.push_back(e.item->id);
    weight += e.item->weight;
    e.busy += now - e.started;
    e.item.reset();
    last = now;
  }
  // Those of another part of the run (a worker's share of the nodes).
  void merge(const Completions& other) {
    ids.insert(ids.end(), other.ids.begin(), other.ids.end());
    weight += other.weight;
    last = std::max(last, other.last);
  }
  // The record's work fields: items completed, the last completion, each node's busy time.
  WorkMetrics metrics(std::vector<double> busy) const { return {ids.size(), last, std::move(busy)}; }
};

}  // namespace nnlb
