#pragma once
// What node programs exchange. A message travels over one link of the topology; the engine owns
// it while it is in flight and counts what it carries (divisible load and items) as load in
// flight, so conservation is checked against what is really on the wires.
#include <array>
#include <cstdint>
#include <limits>

#include "nnlb/model/graph.hpp"

namespace nnlb {

// Couturier, Giersch & Hakem sec. 6.1 separate control messages (loads, notices) from data
// messages (the load itself); engines count them apart and a node may read them at different
// moments. Protocol messages (detection, negotiation) travel on the control channel.
enum class Channel : std::uint8_t { control = 0, data = 1 };
inline constexpr std::size_t channel_count = 2;

// An indivisible unit of work with an identity: a job (Douglas & Harwood), a task (Filipović &
// Krstajić), a work item of an application. `weight` counts as load; `bytes` is its payload's
// size (a simulator needs only that; real ranks carry the payload itself).
using ItemId = std::uint64_t;
struct Item {
  ItemId id = 0;
  double weight = 1;
  double bytes = 0;
};

// A port is a node's local index of one of its neighbours, 0 .. degree - 1.
using Port = std::uint32_t;
inline constexpr Port no_port = std::numeric_limits<Port>::max();

// What a receiver reads (Context::take returns the messages of one channel). 48 bytes: engines
// keep many of them on wires and in mailboxes.
struct Message {
  // On receipt: the receiver's port of the link it came by (no_port if that link is gone, as
  // after the sender left) and the sender's id.
  Port port = no_port;
  NodeId from = 0;
  std::uint32_t tag = 0;            // the protocol's message kind
  std::uint32_t item_count = 0;     // items carried; read them with Context::taken_items
  double load = 0;                  // divisible load carried (> 0 only when moving load)
  std::array<double, 3> value{};    // the protocol's fields
};

}  // namespace nnlb
