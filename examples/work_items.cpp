// Example 1: independent work items with real data, balanced while they are computed.
//
// Every item is a vector of doubles; computing it costs in proportion to its length. The items
// start skewed (rank 0 holds most of them); each rank computes its items one at a time and calls
// balance() between two, so that idle neighbours receive items (with their data) from busy ones.
// The check: every item computed exactly once, and a checksum of all results equal to the one
// computed without balancing (on rank 0, serially).
//
//   mpiexec -np 4 work_items [items] [--no-balance] [--policy best-effort|bt|fos|mr] [--2d] [--slow]
//                            [--pool ms|dd|ca]
//
// --slow: heterogeneous ranks, the odd ones computing at half speed (each item twice). Every rank
// tells the balancer the speed it measures (weight computed per second, Balancer::set_speed), which
// relative-speed diffusion (--policy mr) balances against; the other policies ignore it.
//
// --pool: the items as a task pool instead (nnlb::mpi::TaskPool): master/worker with every item on
// rank 0, or domain decomposition / the combined algorithm from the skewed start.
//
// The ranks form a ring (a periodic one-dimensional Cartesian communicator), or with --2d a
// periodic two-dimensional grid (MPI_Dims_create), better for many ranks.
//
// Built with Zoltan (work_items_zoltan, when Trilinos' Zoltan is found), --zoltan repartitions
// the same items once with Zoltan instead, the tool a user would otherwise pick (docs/mpi.md).
#include <mpi.h>

#include <nnlb/mpi/balancer.hpp>
#include <nnlb/mpi/guarded_main.hpp>
#include <nnlb/mpi/policies.hpp>
#include <nnlb/mpi/task_pool.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <numeric>
#include <string>
#include <vector>

#ifdef NNLB_EXAMPLE_ZOLTAN
#include <zoltan.h>
#endif

namespace {

using Store = nnlb::mpi::ItemStore<std::vector<double>>;

// Item `id`'s data: deterministic, 200 + (id % 7) * 150 values.
std::vector<double> make_item(std::uint64_t id) {
  std::vector<double> v(200 + (id % 7) * 150);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = std::sin(static_cast<double>(id * 131 + k));
  return v;
}

// The work on an item, and a hash of its result (order-free checksums add them).
std::uint64_t compute(std::uint64_t id, const std::vector<double>& v) {
  double x = 0;
  for (int sweep = 0; sweep < 40; ++sweep)
    for (double a : v) x = std::fma(x, 0.999, std::cos(a + x * 1e-3));
  return std::bit_cast<std::uint64_t>(x) * 0x9e3779b97f4a7c15ull + id;
}

// Skewed start: rank 0 holds 7 items in 8, the others share the rest.
int skewed_owner(std::uint64_t id, int size) {
  return id % 8 != 7 || size == 1 ? 0 : 1 + static_cast<int>(id / 8) % std::max(size - 1, 1);
}

#ifdef NNLB_EXAMPLE_ZOLTAN
// Zoltan's repartitioning of the items, by weight (BLOCK: ranges of ids of equal weight), the
// items' data migrated by Zoltan with its size / pack / unpack callbacks.
void repartition_with_zoltan(Store& data) {
  float version = 0;
  Zoltan_Initialize(0, nullptr, &version);
  Zoltan_Struct* zz = Zoltan_Create(MPI_COMM_WORLD);
  for (const auto& [key, value] : {std::pair{"LB_METHOD", "BLOCK"}, {"NUM_GID_ENTRIES", "1"}, {"NUM_LID_ENTRIES", "0"},
                                   {"OBJ_WEIGHT_DIM", "1"}, {"RETURN_LISTS", "ALL"}, {"AUTO_MIGRATE", "TRUE"}, {"DEBUG_LEVEL", "0"}})
    Zoltan_Set_Param(zz, key, value);
  Zoltan_Set_Num_Obj_Fn(zz, [](void* d, int* ierr) { *ierr = ZOLTAN_OK; return static_cast<int>(static_cast<Store*>(d)->size()); }, &data);
  Zoltan_Set_Obj_List_Fn(zz, [](void* d, int, int, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR, int, float* weights, int* ierr) {
    int k = 0;
    for (const auto& [id, v] : static_cast<Store*>(d)->all()) gids[k] = static_cast<ZOLTAN_ID_TYPE>(id), weights[k++] = static_cast<float>(v.size());
    *ierr = ZOLTAN_OK;
  }, &data);
  Zoltan_Set_Obj_Size_Fn(zz, [](void* d, int, int, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR, int* ierr) {
    *ierr = ZOLTAN_OK;
    return static_cast<int>(static_cast<Store*>(d)->at(*gid).size() * sizeof(double));
  }, &data);
  Zoltan_Set_Pack_Obj_Fn(zz, [](void* d, int, int, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR, int, int size, char* buf, int* ierr) {
    Store& store = *static_cast<Store*>(d);
    std::memcpy(buf, store.at(*gid).data(), static_cast<std::size_t>(size));
    store.erase(*gid);
    *ierr = ZOLTAN_OK;
  }, &data);
  Zoltan_Set_Unpack_Obj_Fn(zz, [](void* d, int, ZOLTAN_ID_PTR gid, int size, char* buf, int* ierr) {
    std::vector<double> v(static_cast<std::size_t>(size) / sizeof(double));
    std::memcpy(v.data(), buf, static_cast<std::size_t>(size));
    static_cast<Store*>(d)->put(*gid, std::move(v));
    *ierr = ZOLTAN_OK;
  }, &data);
  int changes = 0, gid_entries = 0, lid_entries = 0, imports = 0, exports = 0;
  ZOLTAN_ID_PTR import_gids = nullptr, import_lids = nullptr, export_gids = nullptr, export_lids = nullptr;
  int *import_procs = nullptr, *import_parts = nullptr, *export_procs = nullptr, *export_parts = nullptr;
  if (Zoltan_LB_Partition(zz, &changes, &gid_entries, &lid_entries, &imports, &import_gids, &import_lids, &import_procs, &import_parts,
                          &exports, &export_gids, &export_lids, &export_procs, &export_parts) != ZOLTAN_OK)
    throw std::runtime_error("Zoltan_LB_Partition failed");
  Zoltan_LB_Free_Part(&import_gids, &import_lids, &import_procs, &import_parts);
  Zoltan_LB_Free_Part(&export_gids, &export_lids, &export_procs, &export_parts);
  Zoltan_Destroy(&zz);
}
#endif

// On rank 0: the run's time, the items each rank computed, what moved, and the checksum against
// the serial run's; the status, the same on every rank.
int report(std::uint64_t total, std::uint64_t done, std::uint64_t checksum, double elapsed, const nnlb::mpi::Record& record,
           const std::string& variant, bool balancing) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::uint64_t sum = 0;
  MPI_Reduce(&checksum, &sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  std::vector<std::uint64_t> per_rank(static_cast<std::size_t>(size));
  MPI_Gather(&done, 1, MPI_UINT64_T, per_rank.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  int status = 0;
  if (rank == 0) {
    std::uint64_t serial = 0;
    for (std::uint64_t id = 0; id < total; ++id) serial += compute(id, make_item(id));
    std::printf("work_items: %llu items on %d ranks, %s, %.3f s\n", static_cast<unsigned long long>(total), size, variant.c_str(), elapsed);
    std::printf("  computed per rank:");
    for (std::uint64_t n : per_rank) std::printf(" %llu", static_cast<unsigned long long>(n));
    std::printf("\n  weight moved %.0f, messages %llu control + %llu data\n", record.summary.load_moved,
                static_cast<unsigned long long>(record.summary.timing->control_messages),
                static_cast<unsigned long long>(record.summary.timing->data_messages));
    if (sum != serial) {
      std::fprintf(stderr, "work_items: checksum %llx differs from the serial run's %llx\n", static_cast<unsigned long long>(sum),
                   static_cast<unsigned long long>(serial));
      status = 1;
    } else {
      std::printf("  checksum %llx: equal to the serial run's\n", static_cast<unsigned long long>(sum));
    }
    if (balancing && per_rank[0] == total && size > 1) {
      std::fprintf(stderr, "work_items: no item left rank 0\n");
      status = 1;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

// The same items as a task pool (nnlb::mpi::TaskPool): master/worker (all items on rank 0, which
// hands them out), or dd / ca from the skewed start.
int run_pool(const std::string& algorithm, std::uint64_t total) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nnlb::mpi::TaskPool tasks(MPI_COMM_WORLD, {.algorithm = algorithm});
  Store data;
  tasks.set_payloads(&data);
  for (std::uint64_t id = 0; id < total; ++id) {
    if ((algorithm == "ms" ? 0 : skewed_owner(id, size)) != rank) continue;
    data.put(id, make_item(id));
    tasks.add(id, static_cast<double>(data.at(id).size()));
  }
  const double t0 = MPI_Wtime();
  std::uint64_t done = 0, checksum = 0;
  while (const auto id = tasks.next()) {
    checksum += compute(*id, data.at(*id));
    data.erase(*id);
    ++done;
  }
  const double elapsed = MPI_Wtime() - t0;
  const nnlb::mpi::Record record = tasks.finish();
  return report(total, done, checksum, elapsed, record, "task pool " + algorithm, true);
}

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::uint64_t total = 400;
  bool balancing = true, zoltan = false, grid = false, slow = false;
  std::string policy = "best-effort", pool;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--no-balance") balancing = false;
    else if (arg == "--2d") grid = true;
    else if (arg == "--slow") slow = true;
#ifdef NNLB_EXAMPLE_ZOLTAN
    else if (arg == "--zoltan") zoltan = true, balancing = false;
#endif
    else if (arg == "--policy" && a + 1 < argc) policy = argv[++a];
    else if (arg == "--pool" && a + 1 < argc) pool = argv[++a];
    else total = std::stoull(arg);
  }
  if (!pool.empty()) return run_pool(pool, total);
  // A ring or a two-dimensional torus of ranks: the neighbours.
  MPI_Comm ring;
  const int dimensions = grid ? 2 : 1;
  int extent[2] = {0, 0}, periodic[2] = {1, 1};
  MPI_Dims_create(size, dimensions, extent);
  MPI_Cart_create(MPI_COMM_WORLD, dimensions, extent, periodic, 0, &ring);

  nnlb::mpi::Options options;
  options.policy = nnlb::mpi::policy_named(policy);
  nnlb::mpi::Balancer lb(ring, nnlb::mpi::cartesian_neighbours(ring), options);
  Store data;
  lb.set_payloads(&data);
  for (std::uint64_t id = 0; id < total; ++id) {
    if (skewed_owner(id, size) != rank) continue;
    data.put(id, make_item(id));
    if (!zoltan) lb.add(id, static_cast<double>(data.at(id).size()));  // its cost, in the same units
  }

  const double t0 = MPI_Wtime();
#ifdef NNLB_EXAMPLE_ZOLTAN
  if (zoltan) repartition_with_zoltan(data);
#endif
  // The end, by point-to-point messages (SMPI cannot wait on a collective and a receive at
  // once): a rank with nothing to compute tells rank 0 how many items it has done, when that
  // changed; rank 0 tells everyone to stop once the counts add up to all the items.
  constexpr int count_tag = 1, stop_tag = 2;
  std::vector<std::uint64_t> counts(rank == 0 ? static_cast<std::size_t>(size) : 0);
  std::uint64_t done = 0, checksum = 0, reported = ~std::uint64_t{0}, incoming[2] = {};
  double busy = 0, worked = 0;  // seconds computing, and the weight computed in them
  volatile std::uint64_t slow_sink = 0;
  MPI_Request listen = MPI_REQUEST_NULL;  // rank 0: the next count; the others: the stop
  auto listen_again = [&] {
    if (rank == 0) MPI_Irecv(incoming, 2, MPI_UINT64_T, MPI_ANY_SOURCE, count_tag, MPI_COMM_WORLD, &listen);
    else MPI_Irecv(incoming, 2, MPI_UINT64_T, 0, stop_tag, MPI_COMM_WORLD, &listen);
  };
  auto heard = [&] {  // `listen` has completed (in lb.wait, or now)
    int flag = listen == MPI_REQUEST_NULL ? 1 : 0;
    if (!flag) MPI_Test(&listen, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
  };
  listen_again();
  for (bool stop = false; !stop;) {
    const std::vector<nnlb::ItemId> held = zoltan ? std::vector<nnlb::ItemId>{} : lb.items();
    const bool any = zoltan ? data.size() > 0 : !held.empty();
    if (any) {
      const nnlb::ItemId id = zoltan ? data.all().begin()->first : held.back();
      const double started = MPI_Wtime();
      checksum += compute(id, data.at(id));
      if (slow && rank % 2 == 1) slow_sink = slow_sink + compute(id, data.at(id));  // kept: a volatile sink
      busy += MPI_Wtime() - started;
      worked += static_cast<double>(data.at(id).size());
      if (busy > 0) lb.set_speed(worked / busy);  // measured: weight per second, so far
      data.erase(id);
      if (!zoltan) lb.remove(id);
      ++done;
    } else if (rank != 0 && done != reported) {
      const std::uint64_t count[2] = {static_cast<std::uint64_t>(rank), done};
      MPI_Send(count, 2, MPI_UINT64_T, 0, count_tag, MPI_COMM_WORLD);
      reported = done;
    }
    if (balancing && any) lb.balance();             // a step after each item: reports and moves
    else if (balancing) lb.wait(&listen);           // nothing to compute: until items or news come
    else if (!any) MPI_Wait(&listen, MPI_STATUS_IGNORE);
    while (!stop && heard()) {
      if (rank != 0) {
        stop = true;
      } else {
        counts[incoming[0]] = incoming[1];
        listen_again();
      }
    }
    if (rank == 0 && !stop) {
      counts[0] = done;
      if (std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}) == total) {
        for (int q = 1; q < size; ++q) MPI_Send(incoming, 2, MPI_UINT64_T, q, stop_tag, MPI_COMM_WORLD);
        MPI_Cancel(&listen);
        MPI_Wait(&listen, MPI_STATUS_IGNORE);
        stop = true;
      }
    }
  }
  const double elapsed = MPI_Wtime() - t0;
  const nnlb::mpi::Record record = lb.finish();

  const int status = report(total, done, checksum, elapsed, record,
                            std::string(zoltan ? "Zoltan (BLOCK, once)" : balancing ? policy : "no balancing") + (slow ? ", odd ranks at half speed" : ""),
                            balancing);
  MPI_Comm_free(&ring);
  return status;
}

}  // namespace

int main(int argc, char** argv) { return nnlb::mpi::guarded_main("work_items", argc, argv, run); }
