// Example 4: a 2-D code whose cost moves across the domain, the benchmark of docs/mpi.md
// ("Locality and items in flight").
//
// An n x n grid of cells (the items), each with a little data; the ranks form a 2-D Cartesian
// grid and start with blocks of cells. Every iteration each rank computes its cells: a cell
// costs 1 unit, 8 inside a hot spot (a square of side n / 4) that jumps to another place every
// 20 iterations. Then it tells the balancer the cells' costs and balances:
//
//   mpiexec -np 4 hotspot [n=32] [iterations=100] [--policy best-effort|bt|fos] [--no-balance]
//                         [--locality] [--arrivals free|wait|collective] [--unit us=5]
//                         [--most-in-flight cells] [--owners]
//   mpiexec -np 4 hotspot_zoltan [n] [iterations] --zoltan rcb|hsfc [--every N=10]
//
// --arrivals: free (balance() only: cells on their way miss iterations), wait (balance() then
// wait_arrivals(): markers between neighbours) or collective (balance_and_wait()). --locality:
// cells carry their coordinates (Options::position), so a rank gives away the cells nearest the
// receiver. Rank 0 prints, over the iterations: the time per iteration (the slowest rank's time
// computing and balancing in each iteration, the mean), the work imbalance (sum of the busiest rank's work over the sum of
// the mean's), the halo (cells with a 4-neighbour on another rank, counted every iteration, the
// mean), the cells in flight (not held anywhere at the end of an iteration, the mean), the cells
// moved and those that arrived only in finish(). The check: every cell ends on one rank with its
// own data, having been computed once per iteration it was held; with --most-in-flight, at most
// that many cells in flight on average (the SMPI test's check of its settings).
//
// --owners: after balancing, each rank looks up where the cells next to its own are now
// (Balancer::owners, the addresses of a halo exchange), checks every answer against the owners
// gathered for the halo count, and prints the cost per call and per cell looked up.
// hotspot_zoltan (built when Trilinos' Zoltan is found): --zoltan repartitions the cells by
// Zoltan's RCB or HSFC on their coordinates every N iterations (the next iteration's costs as
// weights, as the balancer is told), instead of nnlb's balancing.
#include <mpi.h>

#include <nnlb/mpi/balancer.hpp>
#include <nnlb/mpi/guarded_main.hpp>
#include <nnlb/mpi/policies.hpp>
#ifdef NNLB_EXAMPLE_ZOLTAN
#include "zoltan_repartition.hpp"
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Cell {
  std::uint64_t id = 0;
  std::uint64_t computed = 0;  // iterations this cell was computed in
};
using Store = nnlb::mpi::ItemStore<Cell>;

// Work of `seconds` on this processor: a loop of a calibrated length (not a loop on the clock,
// so that SMPI, which times the computation between MPI calls, simulates it as such).
double loops_per_second = 0;
void spin(double seconds) {
  volatile double x = 1;
  for (auto k = static_cast<std::int64_t>(seconds * loops_per_second); k > 0; --k) x = x * 1.0000001 + 1e-9;
}
void calibrate() {
  const auto t0 = std::chrono::steady_clock::now();
  loops_per_second = 1e9;
  spin(1e-3);  // 1e6 loops
  loops_per_second = 1e6 / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The hot spot's corner in iteration `it`: a fixed sequence of places, one per 20 iterations.
std::array<std::uint64_t, 2> hot_corner(int it, std::uint64_t n) {
  std::uint64_t s = 0x2545f4914f6cdd1dull * static_cast<std::uint64_t>(it / 20 + 1);
  s ^= s >> 29, s *= 0xbf58476d1ce4e5b9ull, s ^= s >> 32;
  const std::uint64_t room = n - n / 4 + 1;
  return {s % room, (s >> 20) % room};
}

double cost(std::uint64_t id, int it, std::uint64_t n) {
  const auto [cx, cy] = hot_corner(it, n);
  const std::uint64_t x = id % n, y = id / n;
  return x >= cx && x < cx + n / 4 && y >= cy && y < cy + n / 4 ? 8.0 : 1.0;
}

int run(int argc, char** argv) {
  std::uint64_t n = 32;
  int iterations = 100, positional = 0;
  bool balancing = true, locality = false, lookups = false;
  std::string policy = "best-effort", arrivals = "wait", zoltan;
  double unit = 5e-6, most_in_flight = -1;
  int every = 10;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--no-balance") balancing = false;
    else if (arg == "--owners") lookups = true;
#ifdef NNLB_EXAMPLE_ZOLTAN
    else if (arg == "--zoltan" && a + 1 < argc) zoltan = argv[++a], balancing = false;
    else if (arg == "--every" && a + 1 < argc) every = std::stoi(argv[++a]);
#endif
    else if (arg == "--locality") locality = true;
    else if (arg == "--policy" && a + 1 < argc) policy = argv[++a];
    else if (arg == "--arrivals" && a + 1 < argc) arrivals = argv[++a];
    else if (arg == "--unit" && a + 1 < argc) unit = std::stod(argv[++a]) * 1e-6;
    else if (arg == "--most-in-flight" && a + 1 < argc) most_in_flight = std::stod(argv[++a]);
    else if (positional++ == 0) n = std::stoull(arg);
    else iterations = std::stoi(arg);
  }
  if (arrivals != "free" && arrivals != "wait" && arrivals != "collective")
    throw std::invalid_argument("--arrivals " + arrivals + " (free, wait or collective)");
  if (n < 4) throw std::invalid_argument("a grid of " + std::to_string(n) + " cells a side (at least 4)");
  if (every < 1) throw std::invalid_argument("--every " + std::to_string(every) + " (at least 1)");
  if (lookups && !zoltan.empty()) throw std::invalid_argument("--owners asks the balancer, which Zoltan's runs do not use");
  calibrate();
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int extent[2] = {0, 0}, periodic[2] = {0, 0};
  MPI_Dims_create(size, 2, extent);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, extent, periodic, 0, &grid);
  MPI_Comm_rank(grid, &rank);

  nnlb::mpi::Options options;
  options.policy = nnlb::mpi::policy_named(policy);
  if (locality) options.position = [n](nnlb::ItemId id) { return nnlb::mpi::Position{static_cast<double>(id % n), static_cast<double>(id / n), 0}; };
  nnlb::mpi::Balancer lb(grid, nnlb::mpi::cartesian_neighbours(grid), options);
  Store data;
  lb.set_payloads(&data);
  for (std::uint64_t id = 0; id < n * n; ++id) {  // blocks of the 2-D grid of ranks
    int at[2] = {static_cast<int>(id / n * static_cast<std::uint64_t>(extent[0]) / n), static_cast<int>(id % n * static_cast<std::uint64_t>(extent[1]) / n)};
    int owner = 0;
    MPI_Cart_rank(grid, at, &owner);
    if (owner != rank) continue;
    data.put(id, {id, 0});
    if (zoltan.empty()) lb.add(id, cost(id, 0, n));
  }
  // The cells held here: the balancer's, or (Zoltan) those whose data is here.
  const auto held = [&] {
    if (zoltan.empty()) return lb.items();
    std::vector<nnlb::ItemId> ids;
    for (const auto& [id, cell] : data.all()) ids.push_back(id);
    return ids;
  };
  std::uint64_t moved = 0;
#ifdef NNLB_EXAMPLE_ZOLTAN
  int next = 0;  // the iteration whose costs Zoltan balances
  std::unique_ptr<ZoltanRepartition<Cell>> repartition;
  if (!zoltan.empty())
    repartition = std::make_unique<ZoltanRepartition<Cell>>(
        grid, zoltan, data, [n](nnlb::ItemId id) { return std::array<double, 2>{static_cast<double>(id % n), static_cast<double>(id / n)}; },
        [&next, n](nnlb::ItemId id) { return cost(id, next, n); });
#endif

  double busiest = 0, mean = 0, halo = 0, in_flight = 0, slowest = 0, looked_up = 0;
  std::vector<double> lookup_times;  // per iteration, the slowest rank's
  std::uint64_t wrong_owners = 0;
  std::vector<int> owner(n * n);
  lb.start();
  for (int it = 0; it < iterations; ++it) {
    const double t0 = MPI_Wtime();
    double work = 0;
    for (nnlb::ItemId id : held()) {
      const double c = cost(id, it, n);
      spin(c * unit);
      work += c;
      ++data.at(id).computed;
      if (zoltan.empty()) lb.set_weight(id, cost(id, it + 1, n));  // the cost of the next iteration, as measured now
    }
    if (balancing && arrivals == "collective") lb.balance_and_wait();
    else if (balancing) lb.balance();
    if (balancing && arrivals == "wait") lb.wait_arrivals();
#ifdef NNLB_EXAMPLE_ZOLTAN
    if (repartition && (it + 1) % every == 0) next = it + 1, moved += static_cast<std::uint64_t>(repartition->run());
#endif
    // The halo exchange's addresses: the owners of the cells next to this rank's.
    std::vector<nnlb::ItemId> ghosts;
    std::vector<int> ghost_owners;
    if (lookups) {
      for (nnlb::ItemId id : lb.items()) {
        const std::uint64_t x = id % n, y = id / n;
        for (const nnlb::ItemId near : {x > 0 ? id - 1 : id, x + 1 < n ? id + 1 : id, y > 0 ? id - n : id, y + 1 < n ? id + n : id})
          if (!lb.holds(near)) ghosts.push_back(near);
      }
      std::sort(ghosts.begin(), ghosts.end());
      ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
      MPI_Barrier(grid);  // timed from a common start: the call's cost, not the ranks' skew
      const double l0 = MPI_Wtime();
      ghost_owners = lb.owners(ghosts);
      double took = MPI_Wtime() - l0, cells = static_cast<double>(ghosts.size());
      MPI_Allreduce(MPI_IN_PLACE, &took, 1, MPI_DOUBLE, MPI_MAX, grid);
      MPI_Allreduce(MPI_IN_PLACE, &cells, 1, MPI_DOUBLE, MPI_SUM, grid);
      lookup_times.push_back(took), looked_up += cells;
    }
    // Measured, not timed: the slowest rank's time in this iteration, the work, the owners of the
    // cells and from them the halo. The reductions keep the ranks in step, as a halo exchange would.
    double most[2] = {work, MPI_Wtime() - t0}, sum = work;
    MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_DOUBLE, MPI_MAX, grid);
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, grid);
    busiest += most[0], mean += sum / size, slowest += most[1];
    std::fill(owner.begin(), owner.end(), 0);
    for (nnlb::ItemId id : held()) owner[id] = rank + 1;
    MPI_Allreduce(MPI_IN_PLACE, owner.data(), static_cast<int>(owner.size()), MPI_INT, MPI_MAX, grid);
    for (std::size_t k = 0; k < ghosts.size(); ++k) wrong_owners += ghost_owners[k] != owner[ghosts[k]] - 1;
    std::uint64_t surface = 0, away = 0;
    for (std::uint64_t id = 0; id < n * n; ++id) {
      const std::uint64_t x = id % n, y = id / n;
      away += owner[id] == 0;
      const bool edge = (x > 0 && owner[id - 1] != owner[id]) || (x + 1 < n && owner[id + 1] != owner[id]) ||
                        (y > 0 && owner[id - n] != owner[id]) || (y + 1 < n && owner[id + n] != owner[id]);
      surface += edge;
    }
    halo += static_cast<double>(surface), in_flight += static_cast<double>(away);
  }
  const nnlb::mpi::Record record = lb.finish();
  // Every cell on exactly one rank, with its own data; the iterations it was computed in.
  std::uint64_t counts[5] = {moved + record.departed, record.late, 0, 0, wrong_owners};  // moved, late, computed, wrong, wrong owners
  std::vector<int> holders(n * n, 0);
  for (nnlb::ItemId id : held()) counts[2] += data.at(id).computed, counts[3] += data.at(id).id != id, ++holders[id];
  counts[3] += data.size() != held().size();
  MPI_Allreduce(MPI_IN_PLACE, holders.data(), static_cast<int>(holders.size()), MPI_INT, MPI_SUM, grid);
  for (int h : holders) counts[3] += rank == 0 && h != 1;
  MPI_Allreduce(MPI_IN_PLACE, counts, 5, MPI_UINT64_T, MPI_SUM, grid);
  int status = counts[3] == 0 && counts[4] == 0 ? 0 : 1;
  if (rank == 0) {
    const std::string variant = !zoltan.empty() ? "Zoltan " + zoltan + " every " + std::to_string(every) + " iterations"
                                : balancing     ? policy + (locality ? " with locality" : "")
                                                : "no balancing";
    std::printf("hotspot: %llu x %llu cells, %d iterations, %d ranks (%d x %d), %s, arrivals %s\n", static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(n), iterations, size, extent[0], extent[1], variant.c_str(), balancing ? arrivals.c_str() : "-");
    std::printf("  time per iteration %.3f ms, work imbalance %.3f, halo %.1f cells, in flight %.2f cells (means)\n", slowest / iterations * 1e3,
                busiest / mean, halo / iterations, in_flight / iterations);
    std::printf("  cells moved %llu, arrived only in finish() %llu, cell-iterations missed on the way %llu of %llu\n",
                static_cast<unsigned long long>(counts[0]), static_cast<unsigned long long>(counts[1]),
                static_cast<unsigned long long>(n * n * static_cast<std::uint64_t>(iterations) - counts[2]),
                static_cast<unsigned long long>(n * n * static_cast<std::uint64_t>(iterations)));
    if (lookups && iterations > 0) {
      std::sort(lookup_times.begin(), lookup_times.end());
      const double call = lookup_times[lookup_times.size() / 2], cells = looked_up / iterations;
      std::printf("  owner lookups: %.1f cells a call (all ranks), %.1f us a call (the slowest rank, median), %.3f us a cell; %llu wrong\n",
                  cells, call * 1e6, cells > 0 ? call / cells * size * 1e6 : 0.0, static_cast<unsigned long long>(counts[4]));
    }
    if (counts[4] != 0) std::fprintf(stderr, "hotspot: %llu owners looked up wrong\n", static_cast<unsigned long long>(counts[4]));
    if (counts[3] != 0) std::fprintf(stderr, "hotspot: %llu cells not on exactly one rank with their own data\n", static_cast<unsigned long long>(counts[3]));
    if (most_in_flight >= 0 && in_flight / iterations > most_in_flight) {
      std::fprintf(stderr, "hotspot: %.2f cells in flight on average, more than %g\n", in_flight / iterations, most_in_flight);
      status = 1;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, grid);
  MPI_Comm_free(&grid);
  return status;
}

}  // namespace

int main(int argc, char** argv) { return nnlb::mpi::guarded_main("hotspot", argc, argv, run); }
