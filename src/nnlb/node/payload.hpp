#pragma once
// The data behind items, for an engine between real processes (the MPI library): the engine asks
// the application for an item's bytes as the item leaves a node and hands them to the
// application where the program takes the item. Simulators never call it; they need only an
// item's size (Item::bytes). The bytes are opaque to the engine and to the balancing programs.
#include <cstddef>
#include <span>
#include <vector>

#include "nnlb/node/message.hpp"

namespace nnlb {

class ItemPayloads {
 public:
  virtual ~ItemPayloads() = default;
  // Appends the bytes of `item`, which leaves this process now (the application lets go of it).
  virtual void pack(ItemId item, std::vector<std::byte>& out) = 0;
  // `item` arrived here with these bytes.
  virtual void unpack(ItemId item, std::span<const std::byte> bytes) = 0;
};

}  // namespace nnlb
