#pragma once
// A node program: a node's behaviour as handlers for start, timers, arrivals and changes of its
// neighbourhood. It acts only through its Context (context.hpp), so the same program runs in
// every engine. A Program makes the agent of each node and says what it needs from the engine;
// an engine that cannot provide it refuses the run when it is prepared.
#include <cstdint>
#include <memory>
#include <string>

#include "nnlb/node/context.hpp"

namespace nnlb {

class Agent {
 public:
  virtual ~Agent() = default;
  virtual void start(Context& ctx) = 0;
  virtual void timer(Context& /*ctx*/, std::uint32_t /*tag*/) {}
  // A message landed on a channel the program asked to hear about (Program::notifies).
  virtual void arrived(Context& /*ctx*/, Channel /*channel*/) {}
  // A neighbour joined: it is the new last port.
  virtual void neighbor_added(Context& /*ctx*/, Port /*port*/) {}
  // A neighbour left: its port is gone and the ports above it move down by one.
  virtual void neighbor_removed(Context& /*ctx*/, Port /*port*/) {}
  // This node is about to leave: hand load and items to neighbours now. Whatever it still holds
  // afterwards the engine spreads over its neighbours, so nothing is lost.
  virtual void leaving(Context& /*ctx*/) {}
};

// What a program needs from its engine beyond the Context itself.
struct ProgramNeeds {
  bool edge_coloring = false;  // NeighborInfo::color (dimension exchange pairs by it)
  bool items = false;          // the run has items with identities
  // A node may send more load than it holds (SOS drives loads below zero on the way, Ghosh,
  // Muthukrishnan & Schultz 1996); otherwise the engine refuses such a send.
  bool overdraft = false;
};

class Program {
 public:
  virtual ~Program() = default;
  virtual std::string name() const = 0;
  virtual std::unique_ptr<Agent> make_agent(NodeId node) const = 0;
  // Whether arrivals on `channel` call Agent::arrived. Messages of a silent channel wait until
  // the agent takes them, which spares the engine an event per message.
  virtual bool notifies(Channel /*channel*/) const { return true; }
  virtual ProgramNeeds needs() const { return {}; }
};

}  // namespace nnlb
