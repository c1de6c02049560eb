#include "nnlb/runtime/mpi_engine.hpp"

#include <mpi.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <type_traits>
#include <string>
#include <vector>

#include "nnlb/engine/core/balance.hpp"
#include "nnlb/engine/core/ledger.hpp"
#include "nnlb/engine/core/node_context.hpp"
#include "nnlb/engine/core/node_state.hpp"
#include "nnlb/engine/core/node_times.hpp"
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/stop_rules.hpp"
#include "nnlb/engine/core/summary.hpp"
#include "nnlb/engine/core/tally.hpp"
#include "nnlb/runtime/hosts.hpp"
#include "nnlb/runtime/rank_node.hpp"
#include "nnlb/metrics/load_stats.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

constexpr int message_tag = 7;

// The counters a wave sums over the ranks: messages sent (less those lost) and received, ranks
// with a timer pending or an item in hand, ranks past the time limit, ranks out of the band,
// ranks that moved load or items within the last stop.stall seconds, ranks whose program
// finished, and rank 0's sample tick (elapsed time / sample period).
enum WaveCounter { sent, received, active, past_limit, out_of_band, moving, done_ranks, tick, wave_counters };

// What each rank reports at the end, gathered on rank 0.
struct NodeReport {
  double held = 0;         // divisible load and item weight, what reached it after the stop included
  double divisible = 0;    // divisible load held or waiting in its mailboxes
  double item_weight = 0;  // items held, waiting or in hand (not completed)
  double added = 0;        // Context::add_load
  double start_held = 0, start_added = 0;  // held, and added, when the program's start handler returned
  double moved = 0;        // load and item weight sent
  double busy = 0, last_completion = 0;
  double idle = 0, band_entry = 0;  // its idle time and its last entry into the band (core/node_times.hpp)
  double finished_at = -1, detected_at = -1;  // -1: never
  std::uint64_t completed = 0, control_messages = 0, data_messages = 0, handlers = 0;
};

// A rank's Context::note, gathered on rank 0.
struct NoteReport {
  char name[56] = {};
  double value = 0;
  static NoteReport of(const std::string& name, double value) {
    NoteReport n;
    if (name.size() >= sizeof n.name) throw std::logic_error("note name longer than 55 characters: " + name);
    std::copy(name.begin(), name.end(), n.name);
    n.value = value;
    return n;
  }
};

// A compute loop that cannot be optimized away, and how many of its steps a second holds.
double kernel(std::uint64_t steps) {
  double x = 1.0;
  for (std::uint64_t k = 0; k < steps; ++k) x = x * 1.0000001 + 1e-9;
  return x;
}

// This thread's processor time (s): what the kernel's calibration measures, so that ranks
// sharing a processor (more ranks than cores, or another process) still measure the processor's
// own rate.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Kernel steps per second of processor time: the best of five trials of at least 20 ms each.
double calibrate() {
  std::uint64_t steps = 1 << 16;
  double best = 0;
  for (int trial = 0; trial < 5;) {
    const double t0 = cpu_seconds();
    volatile double sink = kernel(steps);
    (void)sink;
    const double dt = cpu_seconds() - t0;
    if (dt > 0.02 || steps > (std::uint64_t{1} << 40)) {
      best = std::max(best, static_cast<double>(steps) / std::max(dt, 1e-9));
      ++trial;
    } else {
      steps *= 2;
    }
  }
  return best;
}

// A communicator of the run's own: it never sees the caller's messages, nor they its.
MPI_Comm duplicate(MPI_Comm comm) {
  MPI_Comm own = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &own);
  return own;
}

class MpiRun {
 public:
  MpiRun(const EngineRun& r, MPI_Comm comm)
      : r_(r), g_(r.topology.graph), integer_(r.mode == LoadMode::integer), comm_(checked(r, comm)),
        hosts_(gather_hosts(comm_)), node_(setup(r, comm_, hosts_)), rule_{r.band, load_grain(integer_, r.initial)},
        recorder_(speed_shares(r.platform, g_.num_nodes()), r.series_max_rows), rules_(run_rules(r, 0).stop) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    // The first row's place: the start state reaches rank 0 only at the stop.
    if (rank_ == 0) recorder_.add_row(series_, {}, {}, 0);
    self_ = static_cast<NodeId>(rank_);
    NodeState& n = node_.state();
    n.load = r.initial.load[self_];
    if (!r.initial.items.empty())
      for (const Item& it : r.initial.items[self_]) n.add(it);
    // Each rank measures its own kernel in processor time (once per process): a task's work
    // takes its seconds on an idle core, and longer on a slower or shared one.
    static const double rate = calibrate();
    steps_per_second_ = rate;
    // This node's share of the initial total: the band a balanced run ends in (static load).
    double total = 0;
    for (NodeId i = 0; i < g_.num_nodes(); ++i) {
      total += r.initial.load[i];
      if (!r.initial.items.empty())
        for (const Item& it : r.initial.items[i]) total += it.weight;
    }
    const auto shares = recorder_.shares();
    share_ = shares.empty() ? 1.0 / g_.num_nodes() : shares[self_];
    target_ = total * share_;
  }

  ~MpiRun() { MPI_Comm_free(&comm_); }

  RunResult run() {
    MPI_Barrier(comm_);
    node_.start(MPI_Wtime());
    start_held_ = node_.state().held(), start_added_ = node_.added();  // the record's first state, as on every engine
    times_.reset(true, start_held_, rule_.within(start_held_, target_), 0.0);
    std::optional<StopReason> reason;
    std::uint64_t previous[2] = {~0ull, ~0ull};
    bool wave = false;
    std::uint64_t mine[wave_counters] = {}, all[wave_counters] = {};
    MPI_Request wave_request = MPI_REQUEST_NULL;
    while (true) {
      bool did = node_.progress();
      if (node_.executing()) {
        run_kernel();
        did = true;
      }
      if (did) {  // idle and band times, as the driver keeps them on the simulators
        const double held = node_.state().held();
        times_.update(held, rule_.within(held, target_), node_.now());
      }
      if (!wave) {
        const Tally& tally = node_.tally();
        mine[sent] = node_.sent(), mine[received] = node_.received();
        mine[active] = node_.timers_pending() || node_.executing() ? 1 : 0;  // passive: no timer, nothing in hand
        mine[past_limit] = node_.now() > r_.time_limit ? 1 : 0;
        mine[out_of_band] = rule_.within(node_.state().held(), target_) ? 0 : 1;
        mine[moving] = node_.now() - tally.last_move() < r_.stall ? 1 : 0;
        mine[done_ranks] = tally.finished_count() > 0 ? 1 : 0;
        mine[tick] = rank_ == 0 && r_.sample_period > 0 ? static_cast<std::uint64_t>(node_.now() / r_.sample_period) : 0;
        MPI_Iallreduce(mine, all, wave_counters, MPI_UINT64_T, MPI_SUM, comm_, &wave_request);
        wave = true;
      }
      int done = 0;
      MPI_Test(&wave_request, &done, MPI_STATUS_IGNORE);
      if (done) {
        wave = false;
        did = true;
        // What a wave tells of the run, for the one stop rule (core/stop_rules.hpp). Two waves in a
        // row with every node in the band suggest a balanced state; a wave is no consistent cut, so
        // the ranks freeze, receive everything in flight and check exactly.
        RunMoment m;
        const LoadStats wave_stats;  // the wave carries no loads: no spread or imbalance target here
        m.sample = &wave_stats;
        m.next = all[past_limit] > 0 ? std::numeric_limits<double>::infinity() : 0.0;
        m.finished = all[done_ranks] == static_cast<std::uint64_t>(size_);
        m.now = all[out_of_band] > 0 && all[moving] == 0 ? r_.stall : 0.0;  // every rank still for stop.stall
        balanced_waves_ = all[out_of_band] == 0 ? balanced_waves_ + 1 : 0;
        bool frozen = false;
        if (r_.stop_when_balanced && balanced_waves_ == 2 && all[past_limit] == 0 && !m.finished) {
          node_.drain();
          frozen = true;
          m.balanced = balanced_when_frozen();
        }
        const bool quiet = all[active] == 0 && all[sent] == all[received];
        m.quiet = quiet && previous[0] == all[sent] && previous[1] == all[received];
        if ((reason = decide(rules_, m))) break;
        if (frozen) {
          balanced_waves_ = 0;
          node_.renotify();  // resume: the program hears what came
        }
        previous[0] = all[sent], previous[1] = all[received];
        if (all[tick] > ticks_) {
          ticks_ = all[tick];
          post_sample();
        }
      }
      reap_samples(false);
      if (!did) node_.wait(&wave_request);
    }
    end_time_ = node_.now();
    node_.drain();
    reap_samples(true);
    return result(*reason);
  }

 private:
  static MPI_Comm checked(const EngineRun& r, MPI_Comm comm) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    if (static_cast<std::uint64_t>(size) != r.topology.graph.num_nodes())
      throw InputError({}, r.nodes_key, "gives " + std::to_string(r.topology.graph.num_nodes()) + " nodes and mpirun started " +
                                            std::to_string(size) + " ranks: engine = \"mpi\" runs one rank per node");
    return duplicate(comm);
  }

  static RankNodeSetup setup(const EngineRun& r, MPI_Comm comm, const std::vector<HostReport>& hosts) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const Graph& g = r.topology.graph;
    const auto self = static_cast<NodeId>(rank);
    RankNodeSetup s;
    s.comm = comm;
    const bool colored = usable_coloring(r.program, r.coloring, g.num_slots());
    for (Slot k = g.first_slot(self); k < g.end_slot(self); ++k) {
      const NodeId j = g.target(k);
      s.neighbors.push_back({j, g.degree(j), r.platform.node_speed(j), r.platform.link_latency(k), r.platform.link_bandwidth(k),
                             colored ? static_cast<std::int32_t>(r.coloring->slot_color[k]) : -1});
      s.initial_loads.push_back(r.initial.load[j]);
    }
    s.program = &r.program;
    s.integer = r.mode == LoadMode::integer;
    s.speed = r.platform.node_speed(self);
    s.seed = r.seed;
    s.payloads = r.payloads;
    s.faults = r.faults;
    s.work_scale = r.work_scale;
    s.shared_processor = oversubscribed(hosts, rank);
    return s;
  }

  // A sample of the series: every rank's load and load moved so far, gathered on rank 0 without
  // blocking (a rank in the middle of an item joins when it is done).
  struct Sample {
    MPI_Request request = MPI_REQUEST_NULL;
    double time, mine[2];
    std::vector<double> all;
  };

  void post_sample() {
    auto& sp = samples_.emplace_back(std::make_unique<Sample>());
    Sample& x = *sp;
    x.time = node_.now();
    x.mine[0] = node_.state().held(), x.mine[1] = node_.tally().moved();
    x.all.resize(rank_ == 0 ? 2 * static_cast<std::size_t>(size_) : 0);
    MPI_Igather(x.mine, 2, MPI_DOUBLE, x.all.data(), 2, MPI_DOUBLE, 0, comm_, &x.request);
  }

  // Samples gathered, in order, become rows of the series on rank 0; `wait`: all of them.
  void reap_samples(bool wait) {
    while (!samples_.empty()) {
      Sample& x = *samples_.front();
      int done = 0;
      if (wait) MPI_Wait(&x.request, MPI_STATUS_IGNORE), done = 1;
      else MPI_Test(&x.request, &done, MPI_STATUS_IGNORE);
      if (!done) return;
      if (rank_ == 0) {
        std::vector<double> w(static_cast<std::size_t>(size_));
        double moved = 0;
        for (std::size_t q = 0; q < w.size(); ++q) w[q] = x.all[2 * q], moved += x.all[2 * q + 1];
        recorder_.sample(series_, {++sampled_, 0, x.time}, w, moved, true);
      }
      samples_.pop_front();
    }
  }

  // The item in hand, for real: the calibrated kernel for its work, then its program hears.
  void run_kernel() {
    volatile double sink = kernel(static_cast<std::uint64_t>(node_.work_in_hand() * steps_per_second_));
    (void)sink;
    node_.complete();
  }

  // With every rank frozen and nothing in flight: whether every node, counting what reached it,
  // is within the band of its share of the current total (which the waves use from then on).
  bool balanced_when_frozen() {
    double at_node = node_.state().held();
    node_.for_each_waiting([&](double load, std::span<const Item> items) {
      at_node += load;
      for (const Item& it : items) at_node += it.weight;
    });
    double total = 0;
    MPI_Allreduce(&at_node, &total, 1, MPI_DOUBLE, MPI_SUM, comm_);
    target_ = total * share_;
    const int out = rule_.within(at_node, target_) ? 0 : 1;
    int outside = 0;
    MPI_Allreduce(&out, &outside, 1, MPI_INT, MPI_SUM, comm_);
    return outside == 0;
  }

  // Gathers every rank's figures on rank 0 and builds the result there.
  RunResult result(StopReason reason) {
    // What arrived after the stop is at this node: it counts in its final load.
    const NodeState& n = node_.state();
    const Tally& tally = node_.tally();
    NodeReport mine;
    Ledger::Count own;
    own.node(n, n.in_hand());
    own.completed(node_.completions());
    node_.for_each_waiting([&](double load, std::span<const Item> items) { own.in_flight(load, items); });
    node_.unpack_waiting();  // the application keeps their data here
    mine.held = own.total();
    mine.divisible = own.load();
    mine.item_weight = own.item_weight();
    mine.start_held = start_held_, mine.start_added = start_added_;
    mine.added = node_.added(), mine.moved = tally.moved(), mine.busy = n.in_hand().busy;
    mine.idle = times_.idle_until(end_time_), mine.band_entry = times_.band_entry;
    mine.last_completion = node_.completions().last;
    mine.finished_at = tally.finished_count() > 0 ? tally.finished_at() : -1;
    mine.detected_at = tally.detected_at().value_or(-1);
    mine.completed = node_.completions().ids.size();
    mine.control_messages = tally.messages(Channel::control), mine.data_messages = tally.messages(Channel::data);
    mine.handlers = node_.handlers();
    std::vector<NodeReport> all(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, comm_);
    const std::vector<std::uint64_t> every_id = gather(own.items);
    std::vector<NoteReport> my_notes;
    for (const auto& [name, value] : tally.notes()) my_notes.push_back(NoteReport::of(name, value));
    const std::vector<NoteReport> every_note = gather(my_notes);
    const std::vector<HostReport>& every_host = hosts_;
    if (rank_ != 0) {
      RunResult elsewhere;
      elsewhere.reported = false;
      return elsewhere;
    }
    RunResult out;
    RunSummary& sum = out.summary;
    Ledger ledger;
    std::vector<Holdings> initial(g_.num_nodes());
    for (NodeId i = 0; i < g_.num_nodes(); ++i) ledger.open(initial[i], r_.initial, i);
    double initial_total = ledger.current_total(0);  // and what the start handlers added
    std::vector<double> first(g_.num_nodes());
    Ledger::Count count;
    std::vector<double> final_load(g_.num_nodes());
    WorkMetrics work;
    double finished_last = 0, moved = 0;
    bool all_finished = true;
    TimeMetrics tm;
    for (std::size_t q = 0; q < all.size(); ++q) {
      const NodeReport& n = all[q];
      count.add(n.divisible, n.item_weight);
      ledger.add(n.added);
      moved += n.moved;
      work.busy.push_back(n.busy);
      work.last_completion = std::max(work.last_completion, n.last_completion);
      work.completed += n.completed;
      all_finished = all_finished && n.finished_at >= 0;
      finished_last = std::max(finished_last, n.finished_at);
      if (n.detected_at >= 0 && (!sum.detected_at || n.detected_at < *sum.detected_at)) sum.detected_at = n.detected_at;
      tm.avg_idle_time += n.idle;
      tm.avg_convergence_time += n.band_entry;
      tm.max_convergence_time = std::max(tm.max_convergence_time, n.band_entry);
      tm.control_messages += n.control_messages;
      tm.data_messages += n.data_messages;
      tm.events += n.handlers;
      final_load[q] = n.held;
      first[q] = n.start_held;
      initial_total += n.start_added;
    }
    count.items = every_id;
    sum.final_total = count.total();
    sum.max_conservation_error = ledger.check(std::move(count), integer_, "the end of the MPI run");
    // The series: the first state, the samples gathered while running, the final state.
    const LoadStats st0 = load_stats<double>(first, recorder_.shares());
    const LoadStats st1 = recorder_.sample(series_, {++sampled_, 0, end_time_}, final_load, moved, true);
    out.series = std::move(series_.series);
    out.series.front() = {0, 0, 0.0, st0.imbalance, st0.stddev, st0.min, st0.max, st0.mean, 0.0};
    const double held_total = std::accumulate(final_load.begin(), final_load.end(), 0.0);
    open_summary(sum, st0, initial_total);
    close_summary(sum, reason, rule_.all_within(final_load, held_total, recorder_.shares()), st1, final_load, moved);
    if (all_finished) sum.finished_at = finished_last;
    if (work.completed > 0) sum.work = std::move(work);
    average(tm, all.size());
    tm.time = end_time_;
    tm.data_transferred = initial_total != 0 ? moved / initial_total : 0.0;
    sum.timing = tm;
    for (const NoteReport& n : every_note) sum.notes[n.name] = n.value;  // in rank order: the highest rank's note of a name stays
    // More ranks than processors share them: what a rank computes takes longer (task efficiency
    // and lower bound count this, experiment/task_run.cpp).
    if (const double available = processors_available(every_host); available < size_) sum.notes["processors_available"] = available;
    if (r_.record_final_load) out.final_load = final_load;
    return out;
  }

  // Every rank's `mine`, concatenated in rank order on rank 0 (empty elsewhere).
  template <class T>
  std::vector<T> gather(const std::vector<T>& mine) {
    static_assert(std::is_trivially_copyable_v<T>);
    int n = static_cast<int>(mine.size() * sizeof(T));
    std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
    MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_);
    int total = 0;
    for (int q = 0; q < size_; ++q) offsets[static_cast<std::size_t>(q)] = total, total += counts[static_cast<std::size_t>(q)];
    std::vector<T> out(rank_ == 0 ? static_cast<std::size_t>(total) / sizeof(T) : 0);
    MPI_Gatherv(mine.data(), n, MPI_BYTE, out.data(), counts.data(), offsets.data(), MPI_BYTE, 0, comm_);
    return out;
  }

  const EngineRun& r_;
  const Graph& g_;
  const bool integer_;
  MPI_Comm comm_;  // the run's own
  const std::vector<HostReport> hosts_;
  RankNode node_;  // this rank's node
  int rank_ = 0, size_ = 1;
  NodeId self_ = 0;
  double end_time_ = 0, start_held_ = 0, start_added_ = 0, steps_per_second_ = 1e8;
  NodeTimes times_;  // this rank's node
  const BalanceRule rule_;
  Recorder recorder_;           // rank 0: the series of the samples gathered (shares: speed_shares())
  const StopRules rules_;
  RunResult series_;            // rank 0: those rows
  double share_ = 0;            // this node's share of the total (speed_shares(), or 1 / nodes)
  double target_ = 0;           // share_ x the total: the initial one, then the last frozen one
  std::deque<std::unique_ptr<Sample>> samples_;
  std::uint64_t ticks_ = 0, balanced_waves_ = 0, sampled_ = 0;
};
}  // namespace

RunResult run_mpi(const EngineRun& run, MPI_Comm comm) {
  MpiRun r(run, comm);
  return r.run();
}

RunResult run_mpi(const EngineRun& run) { return run_mpi(run, MPI_COMM_WORLD); }

int mpi_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int mpi_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace nnlb
