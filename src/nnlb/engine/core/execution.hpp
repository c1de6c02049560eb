#pragma once
// Context::execute for engines that simulate time: the item a node has in hand, and what the
// run's nodes completed. The ledger's recount includes both (an item is held, in flight, in hand
// or completed, exactly once).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "nnlb/node/message.hpp"
#include "nnlb/engine/core/holdings.hpp"
#include "nnlb/engine/core/result.hpp"

namespace nnlb {

struct Execution {
  std::optional<Item> item;  // in hand
  double started = 0, ends = 0;
  std::uint32_t tag = 0;
  double busy = 0;  // time spent executing, completed items only

  // Takes item `index` from `h` into hand; throws if the node already has one or the index is bad.
  void begin(Holdings& h, std::uint32_t index, std::uint32_t timer_tag, double now, double duration, NodeId node) {
    if (item) throw std::logic_error("node " + std::to_string(node) + " executes an item while it has one in hand");
    if (index >= h.items.size()) throw std::logic_error("node " + std::to_string(node) + " executes an item it does not hold");
    const std::uint32_t one[] = {index};
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
};

}  // namespace nnlb
