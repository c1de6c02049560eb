#include "nnlb/mpi/task_pool.hpp"

#include <cmath>
#include <stdexcept>

#include "nnlb/engine/core/summary.hpp"
#include "nnlb/metrics/load_stats.hpp"
#include "nnlb/mpi/gather.hpp"
#include "nnlb/programs/task_scheduling.hpp"
#include "nnlb/runtime/hosts.hpp"
#include "nnlb/runtime/rank_node.hpp"

namespace nnlb::mpi {

namespace {

TaskAlgorithm algorithm_named(const std::string& name) {
  if (name == "dd") return TaskAlgorithm::dd;
  if (name == "ms") return TaskAlgorithm::ms;
  if (name == "ca") return TaskAlgorithm::ca;
  throw std::invalid_argument("nnlb::mpi::TaskPool: unknown algorithm '" + name + "' (dd, ms, ca)");
}

}  // namespace

TaskPool::TaskPool(MPI_Comm comm, TaskPoolOptions options) {
  TaskSchedulingOptions t;
  t.algorithm = algorithm_named(options.algorithm);
  t.batch = options.batch;
  if (t.batch == 0) throw std::invalid_argument("nnlb::mpi::TaskPool: a batch of 0 tasks");
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  if (size_ < 2) {
    MPI_Comm_free(&comm_);
    throw std::invalid_argument("nnlb::mpi::TaskPool: needs 2 ranks or more");
  }
  program_ = std::make_unique<TaskScheduling>(t);
  RankNodeSetup s;
  s.comm = comm_;
  for (int q = 0; q < size_; ++q)
    if (q != rank_) s.neighbors.push_back({static_cast<NodeId>(q), static_cast<std::uint32_t>(size_ - 1)});
  s.program = program_.get();
  s.work_scale = 1;  // a task's "work" is the application's own computation (next() hands it over)
  s.shared_processor = oversubscribed(gather_hosts(comm_), rank_);
  node_ = std::make_unique<RankNode>(std::move(s));
}

TaskPool::~TaskPool() {
  node_.reset();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void TaskPool::add(ItemId id, double work) {
  if (started_) throw std::logic_error("nnlb::mpi::TaskPool: add() after the first next()");
  if (!(work >= 0 && std::isfinite(work))) throw std::invalid_argument("nnlb::mpi::TaskPool: task " + std::to_string(id) + " of work " + std::to_string(work));
  node_->state().add({id, work, 0});
  added_.push_back(id);
  work_ += work;
}

void TaskPool::set_payloads(ItemPayloads* payloads) {
  if (started_) throw std::logic_error("nnlb::mpi::TaskPool: set_payloads after the first next()");
  node_->set_payloads(payloads);
}

void TaskPool::start() {
  started_ = true;
  MPI_Barrier(comm_);
  node_->start(MPI_Wtime());
}

std::optional<ItemId> TaskPool::next() {
  if (finished_) throw std::logic_error("nnlb::mpi::TaskPool: next() after finish()");
  if (!started_) start();
  if (handed_) node_->complete(), handed_ = false;  // the task handed out before is done
  while (true) {
    node_->progress();
    if (node_->executing()) {
      handed_ = true;
      return node_->state().in_hand().item->id;
    }
    if (node_->tally().finished_count() > 0) return std::nullopt;
    node_->wait();
  }
}

Record TaskPool::finish() {
  if (finished_) throw std::logic_error("nnlb::mpi::TaskPool: finish() called twice");
  if (node_->tally().finished_count() == 0 || handed_)
    throw std::logic_error("nnlb::mpi::TaskPool: finish() before next() returned nullopt on rank " + std::to_string(rank_));
  finished_ = true;
  node_->drain();
  // Every task computed exactly once, recounted over the ranks.
  const std::vector<std::uint64_t> done = detail::all_ids(comm_, node_->completions().ids);
  if (const auto doubled = detail::twice(done)) throw ConservationError("nnlb::mpi::TaskPool: task " + std::to_string(*doubled) + " computed twice");
  const std::vector<std::uint64_t> given = detail::all_ids(comm_, added_);
  if (done != given)
    throw ConservationError("nnlb::mpi::TaskPool: " + std::to_string(done.size()) + " tasks computed of " + std::to_string(given.size()) + " added");
  Record rec;
  double busy = node_->state().in_hand().busy, last = node_->completions().last;
  rec.initial_load.resize(static_cast<std::size_t>(size_));
  MPI_Allgather(&work_, 1, MPI_DOUBLE, rec.initial_load.data(), 1, MPI_DOUBLE, comm_);
  std::vector<double> busy_all(static_cast<std::size_t>(size_));
  MPI_Allgather(&busy, 1, MPI_DOUBLE, busy_all.data(), 1, MPI_DOUBLE, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_DOUBLE, MPI_MAX, comm_);
  rec.final_load.assign(static_cast<std::size_t>(size_), 0.0);  // every task computed
  // The node program sends tasks on its control channel, with its protocol: the record's data
  // messages are those that carried tasks, its control messages the rest.
  const Tally& tally = node_->tally();
  const auto carrying = static_cast<double>(node_->carrying());
  const double messages = static_cast<double>(tally.messages(Channel::control) + tally.messages(Channel::data));
  double counts[4] = {messages - carrying, carrying, tally.moved(), static_cast<double>(node_->handlers())};
  MPI_Allreduce(MPI_IN_PLACE, counts, 4, MPI_DOUBLE, MPI_SUM, comm_);
  RunSummary& sum = rec.summary;
  const LoadStats first = load_stats<double>(rec.initial_load, {}), end = load_stats<double>(rec.final_load, {});
  open_summary(sum, first, first.total);
  close_summary(sum, StopReason::finished, true, end, rec.final_load, counts[2]);
  sum.final_total = 0;
  sum.finished_at = last;
  sum.work = WorkMetrics{done.size(), last, busy_all};
  TimeMetrics t;
  t.time = last;
  t.control_messages = static_cast<std::uint64_t>(counts[0]);
  t.data_messages = static_cast<std::uint64_t>(counts[1]);
  t.events = static_cast<std::uint64_t>(counts[3]);  // handlers run, as on every engine (docs/result-schema.md)
  sum.timing = t;
  return rec;
}

}  // namespace nnlb::mpi
