#pragma once
// "Where is item X now" (issue 41): a distributed directory of the items' owners, for an
// application that addresses halo messages to the ranks holding its neighbouring items after the
// balancer moved them. Each item has a home rank (id mod ranks) that keeps its owner. A rank
// notes the items that came to it (added or arrived) and those the application removed; a
// lookup, collective, first takes every rank's notes to the homes, then asks the homes (two
// MPI_Alltoallv, as Zoltan's distributed directory answers Zoltan_DD_Find collectively). Only
// the last holder of an item reports it, so notes need no order; an item on its way at the
// lookup keeps its former owner (Balancer::owners lets everything arrive first).
#include <mpi.h>

#include <functional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "nnlb/node/message.hpp"

namespace nnlb::mpi {

class OwnerDirectory {
 public:
  static constexpr int nobody = -1;  // an id no rank holds (removed, or never added)

  explicit OwnerDirectory(MPI_Comm comm);
  void came(ItemId id) { came_.insert(id); }  // added here, or arrived
  void removed(ItemId id) { removed_.insert(id); }
  // Collective over the communicator: the owner of each of `ids` (rank, or nobody), once every
  // rank's notes are home. `held`: whether this rank holds an item now.
  std::vector<int> owners(std::span<const ItemId> ids, const std::function<bool(ItemId)>& held);

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::unordered_map<ItemId, int> owner_;        // the items whose home is this rank
  std::unordered_set<ItemId> came_, removed_;    // since the last lookup
  int home(ItemId id) const { return static_cast<int>(id % static_cast<ItemId>(size_)); }
};

}  // namespace nnlb::mpi
