#pragma once
// A message on its way with the items it carries: the transport's unit for engines that keep
// items beside their message (the rounds engine, the toy engine of the tests). The discrete-event
// engine keeps a message in one cache line and its items in a store of their own.
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "nnlb/engine/core/ledger.hpp"
#include "nnlb/engine/core/node_state.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/node/message.hpp"

namespace nnlb {

struct Envelope {
  Message msg;
  NodeId to = 0;
  Channel channel = Channel::control;
  std::vector<Item> items;
};

// The envelope of a message node i sends through its port p (slot first_slot(i) + p): to the
// peer, arriving at the peer's port of the link, with the cargo's `load` and `items`.
inline Envelope envelope(const Graph& g, NodeId i, Port p, Channel channel, std::uint32_t tag, const std::array<double, 3>& value,
                         double load, std::vector<Item> items) {
  const Slot s = g.first_slot(i) + p;
  const NodeId to = g.target(s);
  const auto count = static_cast<std::uint32_t>(items.size());
  return {Message{g.peer_port(s), i, tag, count, load, value}, to, channel, std::move(items)};
}

// The envelopes of `box`, added to a recount as in flight (Ledger::Count).
inline void count_in_flight(Ledger::Count& c, const std::vector<Envelope>& box) {
  for (const Envelope& e : box) c.in_flight(e.msg.load, e.items);
}

// Context::take of every envelope in `box`, oldest first: their load and items reach `node`, their
// messages go to `taken` and their items to `taken_items` (both cleared first); the box is emptied.
// Returns `taken`.
inline std::span<const Message> take_all(Holdings& node, std::vector<Envelope>& box, std::vector<Message>& taken, std::vector<Item>& taken_items) {
  taken.clear();
  taken_items.clear();
  for (Envelope& e : box) credit(node, e.msg.load, e.items, taken_items), taken.push_back(e.msg);
  box.clear();
  return taken;
}

}  // namespace nnlb
