#pragma once
// One node as the core keeps it on every engine, and the Context operations that change what it
// holds, each with one meaning: a send takes its cargo from the node at once; a take credits what
// arrived; add_load is the node's own work. The engine adds only where a message goes and when
// (its transport) and what time it is (its clock).
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "nnlb/engine/core/execution.hpp"
#include "nnlb/engine/core/holdings.hpp"
#include "nnlb/engine/core/ledger.hpp"
#include "nnlb/node/agent.hpp"

namespace nnlb {

struct NodeState : Holdings {
  std::unique_ptr<Agent> agent;
  // The item in hand (Context::execute), made at the node's first execute: only runs with items
  // execute, and at a million nodes its 64 bytes a node count (docs/benchmarks.md).
  std::unique_ptr<Execution> execution;

  // What the node executes, idle if it never did.
  const Execution& in_hand() const {
    static const Execution idle;
    return execution ? *execution : idle;
  }
  // The same, made if it is not yet.
  Execution& hand() {
    if (!execution) execution = std::make_unique<Execution>();
    return *execution;
  }
};

[[gnu::cold, gnu::noinline]] inline void refuse_send(NodeId node, Port to, std::uint32_t degree, double load) {
  if (to >= degree) throw std::logic_error("send to port " + std::to_string(to) + " of node " + std::to_string(node));
  throw std::logic_error("node " + std::to_string(node) + " sends " + std::to_string(load) + " load units it does not hold");
}

// Context::send: the cargo leaves node `node` now. Checks the port (of `degree`) and that the load
// is held (unless the program may overdraw, ProgramNeeds::overdraft); returns the named items,
// taken from the node (Holdings::extract refuses one not held or named twice).
[[gnu::always_inline]] inline std::vector<Item> take_cargo(Holdings& h, NodeId node, Port to, std::uint32_t degree,
                                                           const Cargo& cargo, bool overdraft) {
  if (to >= degree || !(cargo.load >= 0 && (overdraft || cargo.load <= h.load))) [[unlikely]]
    refuse_send(node, to, degree, cargo.load);
  h.load -= cargo.load;
  return cargo.items.empty() ? std::vector<Item>{} : h.extract(cargo.items);
}

// Context::take: a message's load and items reach the node; its items are appended to `taken`
// (Context::taken_items).
inline void credit(Holdings& h, double load, std::span<const Item> items, std::vector<Item>& taken) {
  h.load += load;
  for (const Item& it : items) h.add(it), taken.push_back(it);
}

// Context::add_load: load the node's own work creates or consumes (checked); the engine books
// `delta` in its ledger.
inline void own_load(Holdings& h, NodeId node, double delta, bool integer) {
  check_add_load(delta, h.load, integer, node);
  h.load += delta;
}

}  // namespace nnlb
