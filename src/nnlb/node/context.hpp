#pragma once
// The one interface between a node program (agent.hpp) and the engine that runs it. An engine
// implements it for every node: the synchronous engine with rounds, the discrete-event engine
// with simulated seconds and links, SimGrid and MPI with their own time and messages. A node
// program that talks to its engine only through this interface runs unchanged on all of them.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string_view>

#include "nnlb/node/message.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

// What a node knows of a neighbour from set-up (no message needed).
struct NeighborInfo {
  NodeId id = 0;
  std::uint32_t degree = 0;  // d(j): Boillat's alpha needs it
  double speed = 1;          // C_j in flop/s
  double latency = 0;        // of the link to it (s)
  double bandwidth = 1;      // of the link to it (bytes/s)
  // Colour of the edge in a proper edge colouring shared by all nodes (dimension exchange pairs
  // by it); -1 when the engine was given none.
  std::int32_t color = -1;
};

// What one send carries besides its fields: divisible load, and items named by their identity
// (each held by the node, each once), taken from the node when the message is sent.
struct Cargo {
  double load = 0;
  std::span<const ItemId> items{};
};

class Context {
 public:
  virtual ~Context() = default;

  // --- who and when ---
  virtual NodeId self() const = 0;
  virtual double now() const = 0;          // simulated seconds, or the round number
  virtual double speed() const = 0;        // C_i in flop/s
  virtual std::uint32_t degree() const = 0;
  // What the node knows of its neighbours from set-up, indexed by port; valid until the next call.
  virtual std::span<const NeighborInfo> neighbors() const = 0;
  // Port p's neighbour's load (divisible plus item weights) when this node started: set-up
  // knowledge, as after one exchange of reports before the first step. Apart from neighbors(),
  // which a program reads at every step, because a program needs it once: an engine keeps it per
  // node, not per port (at a million nodes, 8 bytes a port).
  virtual double initial_load(Port p) const = 0;
  virtual Rng& rng() = 0;                  // this node's own random stream
  virtual bool integer_load() const = 0;   // divisible load comes in whole units

  // --- what the node holds ---
  virtual double load() const = 0;                  // divisible load held
  virtual std::span<const Item> items() const = 0;  // items held (their order may change on send or execute)

  // Load the node's own work creates (delta > 0) or consumes (delta < 0, at most load()): a
  // dynamic load (Xu et al.'s phi, Jeannot & Vernier sec. 3.3.2). Whole units in integer mode. The
  // engine books it, so that conservation still holds for what moves between nodes.
  virtual void add_load(double delta) = 0;

  // --- messages ---
  // Sends a message to a neighbour. `bytes` is its size on the wire (the engine adds the items'
  // bytes); `cargo.load` (at most load()) and the named items leave this node now and reach
  // the receiver when it takes the message. `tag`, `value` and the channel are the protocol's.
  virtual void send(Port to, Channel channel, std::uint32_t tag, const std::array<double, 3>& value, double bytes,
                    const Cargo& cargo = {}) = 0;
  // Sends one message without cargo to every neighbour, port p's fields being values[p]
  // (values.size() == degree()): a report to all neighbours, a flood. The same as that many
  // calls of send; an engine may do it with less work per message.
  virtual void send_each(Channel channel, std::uint32_t tag, std::span<const std::array<double, 3>> values, double bytes) {
    if (values.size() != degree()) throw std::logic_error("send_each: one message per neighbour expected");
    for (Port p = 0; p < values.size(); ++p) send(p, channel, tag, values[p], bytes);
  }
  // The messages of a channel that have arrived by now, oldest first, and hands their load and
  // items to this node. The span is valid until the next call of take.
  virtual std::span<const Message> take(Channel channel) = 0;
  // Items of the messages last taken, in message order (message k's are the next item_count).
  virtual std::span<const Item> taken_items() const = 0;

  // --- work ---
  // Executes the held item `item` (by identity) on this node: the item leaves items() now, and
  // when its work is done (weight seconds on a node of reference_speed, at this node's available
  // speed: platform speed and background load in simulation, a real computation on real
  // machines) it is complete, counted once for the run, and Agent::timer(tag) is called. A node
  // executes one item at a time.
  virtual void execute(ItemId item, std::uint32_t tag) = 0;

  // --- time ---
  // Calls Agent::timer(tag) after `delay` (>= 0; the synchronous engine rounds up to whole
  // rounds, at least one).
  virtual void set_timer(double delay, std::uint32_t tag) = 0;

  // --- results ---
  // This node has detected global termination (e.g. the root of a convergence-detection tree).
  virtual void detected_termination() = 0;
  // This node's program has ended (an application's last iteration is done); the run reports
  // when the last node finished.
  virtual void finished() = 0;
  // A named result of the program for the run's record (a phase's end, an algorithm chosen); a
  // later note of the same name replaces it.
  virtual void note(std::string_view name, double value) = 0;
};

}  // namespace nnlb
