#pragma once
// What the nodes hold when a run starts: divisible load (whole numbers in integer mode) and
// items with identities.
#include <vector>

#include "nnlb/node/message.hpp"

namespace nnlb {

struct InitialState {
  std::vector<double> load;              // one value per node
  std::vector<std::vector<Item>> items;  // empty, or one list per node
};

}  // namespace nnlb
