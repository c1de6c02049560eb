#pragma once
// Independent tasks in an application (Filipović & Krstajić 2016): the ranks of a communicator
// share a pool of tasks by domain decomposition (dd: each rank computes the tasks it started
// with), master-slave (ms: rank 0 holds them all and hands them out, `batch` per request) or the
// combined algorithm (ca: dd until the first rank is done, then dd or ms on what is left by the
// paper's rules). The node programs are those the simulators run (programs/task_scheduling.hpp);
// the application computes the tasks:
//
//   nnlb::mpi::TaskPool pool(MPI_COMM_WORLD, {.algorithm = "ca"});
//   for (auto& t : my_tasks) pool.add(t.id, t.estimated_seconds);   // under ms: rank 0's only
//   while (const auto id = pool.next()) compute(*id);                // next() also means "done"
//   nnlb::mpi::Record r = pool.finish();                             // collective
//
// next() returns this rank's next task, blocking (in MPI_Waitany: no processor used) until one
// is assigned; nullopt once this rank has no more. Under ms, rank 0 computes none: its next()
// serves the others' requests until every task is handed out and returns nullopt. A task's data
// travels with it through ItemPayloads, as with the Balancer.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nnlb/mpi/balancer.hpp"

namespace nnlb {
class TaskScheduling;
}

namespace nnlb::mpi {

struct TaskPoolOptions {
  std::string algorithm = "ms";  // dd | ms | ca
  std::uint32_t batch = 1;       // ms (and ca's ms phase): tasks per request
};

class TaskPool {
 public:
  // Collective over `comm` (duplicated: the pool never sees the application's messages). Every
  // rank is a neighbour of every other (the coordinator is rank 0). std::invalid_argument for
  // an unknown algorithm, a batch of 0 or fewer than 2 ranks.
  explicit TaskPool(MPI_Comm comm, TaskPoolOptions options = {});
  ~TaskPool();
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // A task this rank starts with, before the first next(); `work`: its estimated cost (seconds
  // or any unit: ca compares the ranks' durations measured while they compute).
  void add(ItemId id, double work);
  void set_payloads(ItemPayloads* payloads);
  // The task computed before (if any) is done; this rank's next task, or nullopt when it has none
  // left. Blocks until one is assigned.
  std::optional<ItemId> next();
  // Collective, after next() returned nullopt on this rank: every task was computed exactly once
  // (ConservationError if not); the record, the same on every rank (summary.work: tasks
  // completed, the last completion, each rank's busy time).
  Record finish();

 private:
  void start();
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::unique_ptr<TaskScheduling> program_;
  std::unique_ptr<RankNode> node_;
  std::vector<ItemId> added_;
  double work_ = 0;  // of the tasks added here
  bool started_ = false, finished_ = false;
  bool handed_ = false;  // the task in hand was given to the application
};

}  // namespace nnlb::mpi
