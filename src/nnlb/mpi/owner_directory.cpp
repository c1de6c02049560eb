#include "nnlb/mpi/owner_directory.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace nnlb::mpi {

namespace {

constexpr std::uint64_t gone = std::numeric_limits<std::uint64_t>::max();  // a note: removed

// Displacements of `counts` (in elements), and their total.
int offsets_of(const std::vector<int>& counts, std::vector<int>& at) {
  at.assign(counts.size(), 0);
  int total = 0;
  for (std::size_t q = 0; q < counts.size(); ++q) at[q] = total, total += counts[q];
  return total;
}

}  // namespace

OwnerDirectory::OwnerDirectory(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

std::vector<int> OwnerDirectory::owners(std::span<const ItemId> ids, const std::function<bool(ItemId)>& held) {
  const auto ranks = static_cast<std::size_t>(size_);
  // To each home: its notes (id, owner or gone), then its queries (ids).
  std::vector<std::vector<std::uint64_t>> notes(ranks), queries(ranks);
  for (ItemId id : removed_)
    if (!held(id)) notes[static_cast<std::size_t>(home(id))].insert(notes[static_cast<std::size_t>(home(id))].end(), {id, gone});
  for (ItemId id : came_)
    if (held(id))
      notes[static_cast<std::size_t>(home(id))].insert(notes[static_cast<std::size_t>(home(id))].end(), {id, static_cast<std::uint64_t>(rank_)});
  came_.clear(), removed_.clear();
  for (ItemId id : ids) queries[static_cast<std::size_t>(home(id))].push_back(id);

  std::vector<int> counts(2 * ranks), heard(2 * ranks);  // per rank: note words, query words
  for (std::size_t q = 0; q < ranks; ++q) counts[2 * q] = static_cast<int>(notes[q].size()), counts[2 * q + 1] = static_cast<int>(queries[q].size());
  MPI_Alltoall(counts.data(), 2, MPI_INT, heard.data(), 2, MPI_INT, comm_);
  std::vector<int> out_count(ranks), in_count(ranks), out_at, in_at;
  for (std::size_t q = 0; q < ranks; ++q) out_count[q] = counts[2 * q] + counts[2 * q + 1], in_count[q] = heard[2 * q] + heard[2 * q + 1];
  std::vector<std::uint64_t> out(static_cast<std::size_t>(offsets_of(out_count, out_at)));
  std::vector<std::uint64_t> in(static_cast<std::size_t>(offsets_of(in_count, in_at)));
  for (std::size_t q = 0; q < ranks; ++q) {
    auto at = out.begin() + out_at[q];
    at = std::copy(notes[q].begin(), notes[q].end(), at);
    std::copy(queries[q].begin(), queries[q].end(), at);
  }
  MPI_Alltoallv(out.data(), out_count.data(), out_at.data(), MPI_UINT64_T, in.data(), in_count.data(), in_at.data(), MPI_UINT64_T, comm_);

  // Removals first: an id removed on one rank and added again on another is held by the second.
  for (const bool removals : {true, false})
    for (std::size_t q = 0; q < ranks; ++q)
      for (int k = 0; k < heard[2 * q]; k += 2) {
        const std::uint64_t id = in[static_cast<std::size_t>(in_at[q] + k)], owner = in[static_cast<std::size_t>(in_at[q] + k + 1)];
        if (removals && owner == gone) owner_.erase(id);
        if (!removals && owner != gone) owner_[id] = static_cast<int>(owner);
      }
  // The answers, in the order of the queries each rank sent.
  std::vector<int> answer_count(ranks), answer_at, asked_count(ranks), asked_at;
  for (std::size_t q = 0; q < ranks; ++q) answer_count[q] = heard[2 * q + 1], asked_count[q] = counts[2 * q + 1];
  std::vector<int> answers(static_cast<std::size_t>(offsets_of(answer_count, answer_at)));
  std::vector<int> told(static_cast<std::size_t>(offsets_of(asked_count, asked_at)));
  for (std::size_t q = 0; q < ranks; ++q)
    for (int k = 0; k < answer_count[q]; ++k) {
      const auto it = owner_.find(in[static_cast<std::size_t>(in_at[q] + heard[2 * q] + k)]);
      answers[static_cast<std::size_t>(answer_at[q] + k)] = it == owner_.end() ? nobody : it->second;
    }
  MPI_Alltoallv(answers.data(), answer_count.data(), answer_at.data(), MPI_INT, told.data(), asked_count.data(), asked_at.data(), MPI_INT, comm_);
  std::vector<int> result;
  result.reserve(ids.size());
  std::vector<int> next(asked_at);  // each home's next answer
  for (ItemId id : ids) result.push_back(told[static_cast<std::size_t>(next[static_cast<std::size_t>(home(id))]++)]);
  return result;
}

}  // namespace nnlb::mpi
