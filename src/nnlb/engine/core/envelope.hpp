#pragma once
// A message on its way with the items it carries: the transport's unit for engines that keep
// items beside their message (the rounds engine, the toy engine of the tests). The discrete-event
// engine keeps a message in one cache line and its items in a store of their own.
#include <vector>

#include "nnlb/node/message.hpp"

namespace nnlb {

struct Envelope {
  Message msg;
  NodeId to = 0;
  Channel channel = Channel::control;
  std::vector<Item> items;
};

}  // namespace nnlb
