#pragma once
// A node program's message between MPI ranks: a fixed header, the items it carries, then each
// item's payload (its size in 8 bytes, then its bytes). A message of up to eager_bytes travels
// in one MPI message of tag eager_tag; a longer one sends its first eager_bytes so, and the rest
// right after as messages of tag rest_tag (pieces of at most the sender's piece size, which keeps
// every MPI count an int), which the receiver takes from the same source, in order, before
// anything else. Every message is checked on arrival: a malformed one (wrong size, magic,
// channel, sender or load) throws ProtocolError naming the sender.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "nnlb/node/message.hpp"

namespace nnlb::wire {

inline constexpr int eager_tag = 1, rest_tag = 2;
// A marker (8 bytes: an epoch, or finishing_marker): "everything I sent you before this has been
// sent" (RankNode::flush). MPI keeps the order of two messages between the same two ranks that
// match the same receive, so everything sent before it has arrived when it arrives.
inline constexpr int marker_tag = 3;
inline constexpr std::uint64_t finishing_marker = ~std::uint64_t{0};
// The owner's own note to a neighbour (RankNode::tell): up to 8 doubles, outside the node program.
inline constexpr int note_tag = 4;
inline constexpr std::size_t note_values = 8;
inline constexpr std::size_t eager_bytes = 64 * 1024;
inline constexpr std::uint32_t magic = 0x6e6e6c62;  // "nnlb"

struct Header {
  std::uint32_t magic = wire::magic;
  std::uint32_t from = 0, tag = 0, channel = 0;
  std::uint64_t item_count = 0, payload_bytes = 0;
  double load = 0;
  double value[3] = {};

  std::uint64_t total_bytes() const { return sizeof(Header) + item_count * sizeof(Item) + payload_bytes; }
};

// A message from another rank that this protocol cannot have sent.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The wire bytes of a message: header, items, payloads.
std::vector<std::byte> encode(const Header& h, std::span<const Item> items, std::span<const std::byte> payload);

// What arrived: the message as the receiver reads it (port set by the caller), its items, and
// their payloads.
struct Decoded {
  Message msg;
  Channel channel = Channel::control;
  std::vector<Item> items;
  std::vector<std::byte> payload;
};

// The header of the first eager_bytes (or fewer) that arrived from `source`; throws
// ProtocolError when they cannot start a message of this protocol.
Header header_of(std::span<const std::byte> first, int source);
// The whole message, once all header.total_bytes() have arrived; throws ProtocolError when the
// items or payloads are not what the header says.
Decoded decode(const Header& h, std::span<const std::byte> bytes);

// Splits a payload area into each item's bytes, in item order; throws ProtocolError when it is
// cut short or too long.
std::vector<std::span<const std::byte>> payloads_of(std::span<const std::byte> payload, std::size_t items);

}  // namespace nnlb::wire
