// Example 3: an application that sends its own messages, on every tag, while it balances.
//
// Each iteration every rank sends its right-hand neighbour a numbered message on a tag that
// changes every time (all of 0 .. 4095 in turn, the tags nnlb itself uses among them) and
// receives its left-hand neighbour's with MPI_ANY_TAG; meanwhile the balancer moves weighted
// items around the same ring. The check: every application message arrives once, in order and
// intact, and the balancer ends with every item on exactly one rank.
//
// With --inject, rank 1 sends a message that is not nnlb's on the balancer's own communicator:
// the rank that receives it throws, and the example ends the job with one MPI_Abort.
//
//   mpiexec -np 4 own_messages [iterations] [--inject]
#include <mpi.h>

#include <nnlb/mpi/balancer.hpp>
#include <nnlb/mpi/guarded_main.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iterations = 2000;
  bool inject = false;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--inject") inject = true;
    else iterations = std::stoi(arg);
  }
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  std::vector<int> neighbours;
  if (size > 1) neighbours.push_back(right);
  if (size > 2) neighbours.push_back(left);
  nnlb::mpi::Balancer lb(MPI_COMM_WORLD, neighbours);
  for (std::uint64_t k = 0; k < 50; ++k)  // rank 0 starts with everything
    if (rank == 0) lb.add(k, 1.0 + static_cast<double>(k % 3));

  int tag_ub = 32767, *attr = nullptr, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag);
  if (flag) tag_ub = *attr;
  const int tags = tag_ub >= 4095 ? 4096 : tag_ub + 1;  // MPI_TAG_UB may be INT_MAX
  std::uint64_t errors = 0;
  for (int it = 0; it < iterations; ++it) {
    const int tag = it % tags;
    const std::uint64_t out[2] = {static_cast<std::uint64_t>(it), static_cast<std::uint64_t>(rank) * 1000003u + static_cast<std::uint64_t>(it)};
    std::uint64_t in[2] = {};
    MPI_Request sent;
    MPI_Isend(out, 2, MPI_UINT64_T, right, tag, MPI_COMM_WORLD, &sent);
    if (inject && rank == 1 && it == iterations / 2) {  // not nnlb's: wrong magic number
      const char junk[64] = "this is not a message of nnlb's protocol";
      MPI_Send(junk, sizeof junk, MPI_BYTE, 0, 1, lb.communicator());
    }
    // Balance while the application's message is on its way.
    lb.balance();
    MPI_Status status;
    MPI_Recv(in, 2, MPI_UINT64_T, left, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    MPI_Wait(&sent, MPI_STATUS_IGNORE);
    const std::uint64_t expected = static_cast<std::uint64_t>(left) * 1000003u + static_cast<std::uint64_t>(it);
    if (status.MPI_TAG != tag || in[0] != static_cast<std::uint64_t>(it) || in[1] != expected) ++errors;
  }
  const nnlb::mpi::Record record = lb.finish();
  std::uint64_t all_errors = 0;
  MPI_Reduce(&errors, &all_errors, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  int status = 0;
  if (rank == 0) {
    std::printf("own_messages: %d iterations on %d ranks: %llu application messages wrong; items moved %llu times, final imbalance %.3g\n",
                iterations, size, static_cast<unsigned long long>(all_errors),
                static_cast<unsigned long long>(record.summary.timing->data_messages), record.summary.final_imbalance);
    if (all_errors != 0) status = 1;
    if (size > 1 && record.summary.load_moved == 0) {
      std::fprintf(stderr, "own_messages: the balancer moved nothing\n");
      status = 1;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

}  // namespace

int main(int argc, char** argv) { return nnlb::mpi::guarded_main("own_messages", argc, argv, run); }
