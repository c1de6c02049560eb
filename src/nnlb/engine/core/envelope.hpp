#pragma once
// A message on its way with the items it carries: the transport's unit for engines that keep
// items beside their message (the rounds engine, the toy engine of the tests). The discrete-event
// engine keeps a message in one cache line and its items in a store of their own.
#include <vector>

#include "nnlb/engine/core/node_state.hpp"
#include "nnlb/node/message.hpp"

namespace nnlb {

struct Envelope {
  Message msg;
  NodeId to = 0;
  Channel channel = Channel::control;
  std::vector<Item> items;
};

// Context::take of every envelope in `box`, oldest first: their load and items reach `node`, their
// messages go to `taken` and their items to `taken_items` (both cleared first); the box is emptied.
inline void take_all(Holdings& node, std::vector<Envelope>& box, std::vector<Message>& taken, std::vector<Item>& taken_items) {
  taken.clear();
  taken_items.clear();
  for (Envelope& e : box) credit(node, e.msg.load, e.items, taken_items), taken.push_back(e.msg);
  box.clear();
}

}  // namespace nnlb
