#include "nnlb/runtime/wire.hpp"

#include <cmath>
#include <cstring>

namespace nnlb::wire {

std::vector<std::byte> encode(const Header& h, std::span<const Item> items, std::span<const std::byte> payload) {
  std::vector<std::byte> out(sizeof h + items.size_bytes() + payload.size());
  std::memcpy(out.data(), &h, sizeof h);
  if (!items.empty()) std::memcpy(out.data() + sizeof h, items.data(), items.size_bytes());
  if (!payload.empty()) std::memcpy(out.data() + sizeof h + items.size_bytes(), payload.data(), payload.size());
  return out;
}

Header header_of(std::span<const std::byte> first, int source) {
  const std::string who = "a message from rank " + std::to_string(source);
  if (first.size() < sizeof(Header)) throw ProtocolError(who + " is " + std::to_string(first.size()) + " bytes, shorter than a header");
  Header h;
  std::memcpy(&h, first.data(), sizeof h);
  if (h.magic != magic) throw ProtocolError(who + " is not an nnlb message (wrong magic number)");
  if (h.channel >= channel_count) throw ProtocolError(who + " names channel " + std::to_string(h.channel));
  if (h.from != static_cast<std::uint32_t>(source)) throw ProtocolError(who + " says it is from rank " + std::to_string(h.from));
  if (!(std::isfinite(h.load) && h.load >= 0)) throw ProtocolError(who + " carries a load of " + std::to_string(h.load));
  constexpr std::uint64_t limit = std::uint64_t{1} << 40;  // no count this protocol sends comes near
  if (h.item_count > limit / sizeof(Item) || h.payload_bytes > limit)
    throw ProtocolError(who + " announces " + std::to_string(h.item_count) + " items and " + std::to_string(h.payload_bytes) + " payload bytes");
  const std::uint64_t expected = std::min<std::uint64_t>(h.total_bytes(), eager_bytes);
  if (first.size() != expected)
    throw ProtocolError(who + " is " + std::to_string(first.size()) + " bytes where its header says " + std::to_string(expected));
  return h;
}

Decoded decode(const Header& h, std::span<const std::byte> bytes) {
  if (bytes.size() != h.total_bytes()) throw ProtocolError("a message from rank " + std::to_string(h.from) + " is cut short");
  Decoded d;
  d.msg.from = h.from;
  d.msg.tag = h.tag;
  d.msg.item_count = static_cast<std::uint32_t>(h.item_count);
  d.msg.load = h.load;
  d.msg.value = {h.value[0], h.value[1], h.value[2]};
  d.channel = static_cast<Channel>(h.channel);
  d.items.resize(h.item_count);
  if (h.item_count) std::memcpy(d.items.data(), bytes.data() + sizeof h, h.item_count * sizeof(Item));
  const auto rest = bytes.subspan(sizeof h + h.item_count * sizeof(Item));
  d.payload.assign(rest.begin(), rest.end());
  return d;
}

std::vector<std::span<const std::byte>> payloads_of(std::span<const std::byte> payload, std::size_t items) {
  std::vector<std::span<const std::byte>> out;
  out.reserve(items);
  std::size_t at = 0;
  for (std::size_t k = 0; k < items; ++k) {
    std::uint64_t size = 0;
    if (payload.size() - at < sizeof size) throw ProtocolError("an item's payload is cut short");
    std::memcpy(&size, payload.data() + at, sizeof size);
    at += sizeof size;
    if (payload.size() - at < size) throw ProtocolError("an item's payload is cut short");
    out.push_back(payload.subspan(at, size));
    at += size;
  }
  if (at != payload.size()) throw ProtocolError("payload bytes follow the last item's");
  return out;
}

}  // namespace nnlb::wire
