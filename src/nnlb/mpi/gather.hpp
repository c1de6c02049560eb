#pragma once
// Collectives the MPI library's classes share (internal): every rank's list, and identities
// gathered and checked once each.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace nnlb::mpi::detail {

// Every rank's list, concatenated in rank order, with each rank's count.
inline std::pair<std::vector<int>, std::vector<int>> all_lists(MPI_Comm comm, const std::vector<int>& mine) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  const int n = static_cast<int>(mine.size());
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int q = 0; q < size; ++q) offsets[static_cast<std::size_t>(q)] = total, total += counts[static_cast<std::size_t>(q)];
  std::vector<int> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine.data(), n, MPI_INT, all.data(), counts.data(), offsets.data(), MPI_INT, comm);
  return {std::move(all), std::move(counts)};
}

// Every rank's 64-bit identities, sorted (each as two ints on the wire).
inline std::vector<std::uint64_t> all_ids(MPI_Comm comm, const std::vector<std::uint64_t>& mine) {
  std::vector<int> halves;
  for (std::uint64_t id : mine) halves.push_back(static_cast<int>(id & 0xffffffffu)), halves.push_back(static_cast<int>(id >> 32));
  const auto every = all_lists(comm, halves).first;
  std::vector<std::uint64_t> ids;
  for (std::size_t k = 0; k + 1 < every.size(); k += 2)
    ids.push_back(static_cast<std::uint64_t>(static_cast<std::uint32_t>(every[k])) |
                  static_cast<std::uint64_t>(static_cast<std::uint32_t>(every[k + 1])) << 32);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// The first identity listed twice, if any.
inline std::optional<std::uint64_t> twice(const std::vector<std::uint64_t>& sorted) {
  const auto it = std::adjacent_find(sorted.begin(), sorted.end());
  if (it == sorted.end()) return std::nullopt;
  return *it;
}

}  // namespace nnlb::mpi::detail
