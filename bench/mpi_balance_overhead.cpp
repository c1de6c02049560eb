// What balance() costs an application whose load is already balanced (issue 27's acceptance:
// under 1 % of a 10 ms iteration). Each rank holds the same items; an iteration is 10 ms of
// work (a loop until 10 ms of wall time have passed), then one balance() call. The same loop
// without the call is the reference; they alternate, `rounds` times each, and the program prints
// the median of each and the overhead per iteration. Then the time spent inside the calls that
// wait for arrivals, per iteration (medians over the rounds): balance() then wait_arrivals()
// (markers between neighbours, no collective) against balance_and_wait() (a collective count):
// the whole wait, which includes the ranks' skew (a rank waits for the last one to arrive), and
// the part after the last rank arrived (the clocks of ranks on one host agree), the protocol's
// own cost, as a median over the iterations. Last, owners() (where is item X now) of the 100
// items of the next rank, back to back. Run with ranks <= cores:
//
//   mpiexec -np 2 build/bench/mpi_balance_overhead [iterations=200] [rounds=5]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "nnlb/mpi/balancer.hpp"

namespace {

void work_for(double seconds) {
  const double until = MPI_Wtime() + seconds;
  volatile double x = 1;
  while (MPI_Wtime() < until) x = x * 1.0000001 + 1e-9;
}

// Seconds for `iterations` iterations of 10 ms, with or without a balance() call in each.
double loop(nnlb::mpi::Balancer& lb, int iterations, bool balancing) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    work_for(0.01);
    if (balancing) lb.balance();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime() - t0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Per iteration of `work` seconds, inside the balancer (balance() and wait_arrivals(), or
// balance_and_wait()): the mean time a rank spent there, and the median time after the last rank
// came in (the largest of the ranks' medians).
std::pair<double, double> inside(nnlb::mpi::Balancer& lb, int iterations, double work, bool collective) {
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<double> in(static_cast<std::size_t>(iterations)), out(in.size());
  for (std::size_t it = 0; it < in.size(); ++it) {
    work_for(work);
    in[it] = MPI_Wtime();
    if (collective) {
      lb.balance_and_wait();
    } else {
      lb.balance();
      lb.wait_arrivals();
    }
    out[it] = MPI_Wtime();
  }
  double spent = 0;
  for (std::size_t it = 0; it < in.size(); ++it) spent += out[it] - in[it];
  std::vector<double> last(in.size()), after(in.size());
  MPI_Allreduce(in.data(), last.data(), iterations, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  for (std::size_t it = 0; it < in.size(); ++it) after[it] = out[it] - last[it];
  double own = median(after);
  MPI_Allreduce(MPI_IN_PLACE, &own, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return {spent / iterations, own};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int iterations = argc > 1 ? std::stoi(argv[1]) : 200;
  const int rounds = argc > 2 ? std::stoi(argv[2]) : 5;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> ring;
  if (size > 1) ring.push_back((rank + 1) % size);
  if (size > 2) ring.push_back((rank + size - 1) % size);
  std::vector<double> with, without, markers, collective, markers_alone, collective_alone, markers_own, collective_own, lookups;
  std::uint64_t moved = 0;
  for (int r = 0; r < rounds; ++r) {
    nnlb::mpi::Balancer lb(MPI_COMM_WORLD, ring);
    for (nnlb::ItemId k = 0; k < 100; ++k) lb.add(static_cast<nnlb::ItemId>(rank) * 100 + k, 1.0);
    lb.start();
    without.push_back(loop(lb, iterations, false));
    with.push_back(loop(lb, iterations, true));
    moved += lb.finish().summary.timing->data_messages;
    nnlb::mpi::Balancer settled(MPI_COMM_WORLD, ring);
    for (nnlb::ItemId k = 0; k < 100; ++k) settled.add(static_cast<nnlb::ItemId>(rank) * 100 + k, 1.0);
    const auto m = inside(settled, iterations, 0.01, false), c = inside(settled, iterations, 0.01, true);
    markers.push_back(m.first), markers_own.push_back(m.second);
    collective.push_back(c.first), collective_own.push_back(c.second);
    markers_alone.push_back(inside(settled, 10 * iterations, 0, false).first);
    collective_alone.push_back(inside(settled, 10 * iterations, 0, true).first);
    // owners() of every item of the next rank (100 ids), back to back: the lookup's own cost.
    std::vector<nnlb::ItemId> theirs;
    for (nnlb::ItemId k = 0; k < 100; ++k) theirs.push_back(static_cast<nnlb::ItemId>((rank + 1) % size) * 100 + k);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = MPI_Wtime();
    for (int it = 0; it < 10 * iterations; ++it) settled.owners(theirs);
    lookups.push_back((MPI_Wtime() - t) / (10 * iterations));
    settled.finish();
  }
  if (rank == 0) {
    const double a = median(with), b = median(without);
    std::printf("ranks %d, %d iterations of 10 ms, %d rounds: with balance() %.4f s, without %.4f s (medians)\n", size, iterations,
                rounds, a, b);
    std::printf("overhead per iteration: %.1f us = %.3f %% of 10 ms; items moved on a balanced load: %llu messages\n",
                (a - b) / iterations * 1e6, (a - b) / b * 100, static_cast<unsigned long long>(moved));
    std::printf("waiting for arrivals, per iteration: balance() + wait_arrivals() %.1f us, balance_and_wait() %.1f us\n",
                median(markers) * 1e6, median(collective) * 1e6);
    std::printf("of which after the last rank came in (median): %.1f us and %.1f us\n", median(markers_own) * 1e6,
                median(collective_own) * 1e6);
    std::printf("the same calls back to back (no work between): %.1f us and %.1f us a call\n", median(markers_alone) * 1e6,
                median(collective_alone) * 1e6);
    std::printf("owners() of 100 items, back to back: %.1f us a call, %.3f us an item\n", median(lookups) * 1e6, median(lookups) * 1e4);
  }
  MPI_Finalize();
  return 0;
}
