#include "nnlb/runtime/mpi_engine.hpp"

#include <mpi.h>
#include <sched.h>
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
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/summary.hpp"
#include "nnlb/engine/core/tally.hpp"
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
  double finished_at = -1, detected_at = -1;  // -1: never
  std::uint64_t completed = 0, control_messages = 0, data_messages = 0;
};

// Where a rank runs: its host's name and the processors it may use there.
struct HostReport {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  cpu_set_t processors;
  static HostReport here() {
    HostReport h;
    int length = 0;
    MPI_Get_processor_name(h.name, &length);
    CPU_ZERO(&h.processors);
    if (sched_getaffinity(0, sizeof h.processors, &h.processors) != 0) CPU_SET(0, &h.processors);
    return h;
  }
};

// Processors the ranks really had: on each host, the fewer of its ranks and the processors any
// of them may use (ranks bound to a core each have one each; unbound ranks share the host's).
double processors_available(const std::vector<HostReport>& hosts) {
  std::map<std::string, std::pair<int, cpu_set_t>> by_host;  // ranks, processors
  for (const HostReport& h : hosts) {
    auto [it, fresh] = by_host.try_emplace(h.name);
    if (fresh) CPU_ZERO(&it->second.second);
    ++it->second.first;
    CPU_OR(&it->second.second, &it->second.second, &h.processors);
  }
  double available = 0;
  for (const auto& [name, count] : by_host) available += std::min(count.first, CPU_COUNT(&count.second));
  return available;
}

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

// A message on the wire: this header, then item_count items, then (with ItemPayloads) each
// item's payload as its size (8 bytes) and its bytes.
struct Header {
  std::uint32_t from, tag, channel, item_count;
  double load;
  double value[3];
};

struct Timer {
  double at;
  std::uint64_t seq;
  std::uint32_t tag;
  bool operator>(const Timer& o) const { return at != o.at ? at > o.at : seq > o.seq; }
};

// A compute loop that cannot be optimized away, and how many of its steps a second holds.
double kernel(std::uint64_t steps) {
  double x = 1.0;
  for (std::uint64_t k = 0; k < steps; ++k) x = x * 1.0000001 + 1e-9;
  return x;
}

// The best of five trials of at least 20 ms each: a trial that shared its core with another
// process is slower and does not count.
double calibrate() {
  std::uint64_t steps = 1 << 16;
  double best = 0;
  for (int trial = 0; trial < 5;) {
    const double t0 = MPI_Wtime();
    volatile double sink = kernel(steps);
    (void)sink;
    const double dt = MPI_Wtime() - t0;
    if (dt > 0.02 || steps > (std::uint64_t{1} << 40)) {
      best = std::max(best, static_cast<double>(steps) / std::max(dt, 1e-9));
      ++trial;
    } else {
      steps *= 2;
    }
  }
  return best;
}

void pause_briefly() {
  const timespec ts{0, 50'000};
  nanosleep(&ts, nullptr);
}

class MpiRun {
 public:
  MpiRun(const EngineRun& r, MPI_Comm comm)
      : r_(r), g_(r.topology.graph), integer_(r.mode == LoadMode::integer), comm_(comm), ctx_(*this),
        rule_{r.band, load_grain(integer_, r.initial)}, recorder_(speed_shares(r.platform, g_.num_nodes())) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    if (static_cast<std::uint64_t>(size_) != g_.num_nodes())
      throw InputError({}, r.nodes_key, "gives " + std::to_string(g_.num_nodes()) + " nodes and mpirun started " + std::to_string(size_) +
                                            " ranks: engine = \"mpi\" runs one rank per node");
    self_ = static_cast<NodeId>(rank_);
    node_.load = r.initial.load[self_];
    if (!r.initial.items.empty())
      for (const Item& it : r.initial.items[self_]) node_.add(it);
    const bool colored = usable_coloring(r.program, r.coloring, g_.num_slots());
    for (Slot s = g_.first_slot(self_); s < g_.end_slot(self_); ++s) {
      const NodeId j = g_.target(s);
      info_.push_back({j, g_.degree(j), r.platform.node_speed(j), r.platform.link_latency(s), r.platform.link_bandwidth(s),
                       colored ? static_cast<std::int32_t>(r.coloring->slot_color[s]) : -1, r.initial.load[j]});
    }
    for (std::size_t c = 0; c < channel_count; ++c) notify_[c] = r.program.notifies(static_cast<Channel>(c));
    rng_ = Rng(r.seed, self_);
    // One kernel rate for all ranks (rank 0's on a core of its own): a task's work is the same
    // number of steps everywhere, and a slower or shared core takes longer. The other ranks wait
    // asleep, not spinning in a collective, or rank 0 would measure a shared core where ranks
    // outnumber the processors (and tasks would then run faster than their work says).
    double rate = 0;
    MPI_Barrier(comm_);
    if (rank_ == 0) rate = calibrate();
    MPI_Request calibrated;
    MPI_Ibcast(&rate, 1, MPI_DOUBLE, 0, comm_, &calibrated);
    for (int done = 0; !done;) {
      MPI_Test(&calibrated, &done, MPI_STATUS_IGNORE);
      if (!done) pause_briefly();
    }
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

  RunResult run() {
    node_.agent = r_.program.make_agent(self_);
    MPI_Barrier(comm_);
    t0_ = MPI_Wtime();
    ctx_.bind(self_);
    node_.agent->start(ctx_);
    start_held_ = node_.held(), start_added_ = added_;  // the record's first state, as on every engine
    StopReason reason = StopReason::quiet;
    std::uint64_t previous[2] = {~0ull, ~0ull};
    bool wave = false;
    std::uint64_t mine[wave_counters] = {}, all[wave_counters] = {};
    MPI_Request wave_request = MPI_REQUEST_NULL;
    while (true) {
      bool did = poll(true);
      if (executing_) {
        run_kernel();
        did = true;
      }
      did = fire_timers() || did;
      if (!wave) {
        // Passive: no timer and nothing in hand.
        mine[sent] = sent_ - lost_, mine[received] = received_, mine[active] = timers_.empty() && !executing_ ? 0 : 1;
        mine[past_limit] = now() > r_.time_limit ? 1 : 0;
        mine[out_of_band] = rule_.within(node_.held(), target_) ? 0 : 1;
        mine[moving] = now() - tally_.last_move() < r_.stall ? 1 : 0;
        mine[done_ranks] = tally_.finished_count() > 0 ? 1 : 0;
        mine[tick] = rank_ == 0 && r_.sample_period > 0 ? static_cast<std::uint64_t>(now() / r_.sample_period) : 0;
        MPI_Iallreduce(mine, all, wave_counters, MPI_UINT64_T, MPI_SUM, comm_, &wave_request);
        wave = true;
      }
      int done = 0;
      MPI_Test(&wave_request, &done, MPI_STATUS_IGNORE);
      if (done) {
        wave = false;
        if (all[past_limit] > 0) {
          reason = StopReason::time;
          break;
        }
        if (all[done_ranks] == static_cast<std::uint64_t>(size_)) {
          reason = StopReason::finished;
          break;
        }
        // "stalled": a balancer out of the band with nothing moving anywhere for stop.stall.
        if (r_.stop_when_balanced && r_.stall > 0 && all[out_of_band] > 0 && all[moving] == 0) {
          reason = StopReason::stalled;
          break;
        }
        // Two waves in a row with every node in the band suggest a balanced state; a wave is no
        // consistent cut, so the ranks freeze, receive everything in flight and check exactly.
        balanced_waves_ = all[out_of_band] == 0 ? balanced_waves_ + 1 : 0;
        if (r_.stop_when_balanced && balanced_waves_ == 2) {
          drain();
          if (balanced_when_frozen()) {
            reason = StopReason::balanced;
            break;
          }
          balanced_waves_ = 0;
          for (std::size_t c = 0; c < channel_count; ++c)  // resume: the program hears what came
            if (!mailbox_[c].empty() && notify_[c]) node_.agent->arrived(ctx_, static_cast<Channel>(c));
        }
        const bool quiet = all[active] == 0 && all[sent] == all[received];
        if (quiet && previous[0] == all[sent] && previous[1] == all[received]) break;
        previous[0] = all[sent], previous[1] = all[received];
        if (all[tick] > ticks_) {
          ticks_ = all[tick];
          post_sample();
        }
      }
      reap_sends();
      reap_samples(false);
      if (!did) pause_briefly();
    }
    end_time_ = now();
    drain();
    reap_samples(true);
    return result(reason);
  }

  // --- the Context of this rank's node ---
  double now() const { return MPI_Wtime() - t0_; }
  double speed(NodeId i) const { return r_.platform.node_speed(i); }
  std::uint32_t degree(NodeId) const { return static_cast<std::uint32_t>(info_.size()); }
  std::span<const NeighborInfo> neighbors(NodeId, std::size_t) const { return info_; }
  Rng& rng(NodeId) { return rng_; }
  bool integer_load() const { return integer_; }
  double load(NodeId) const { return node_.load; }
  std::span<const Item> items(NodeId) const { return node_.items; }
  std::span<const Item> taken_items(std::size_t) const { return taken_items_; }

  void send(NodeId, std::size_t, Port to, Channel channel, std::uint32_t tag, const std::array<double, 3>& value, double,
            const Cargo& cargo) {
    const std::vector<Item> items = take_cargo(node_, self_, to, degree(self_), cargo, r_.program.needs().overdraft);
    tally_.sent(channel, now(), cargo.load, items);
    ++sent_;
    const bool carries = cargo.load > 0 || !items.empty();
    payload_.clear();
    if (r_.payloads != nullptr)
      for (const Item& it : items) {  // the items leave with their data, even to be lost on the wire
        const std::size_t at = payload_.size();
        payload_.resize(at + sizeof(std::uint64_t));
        r_.payloads->pack(it.id, payload_);
        const std::uint64_t size = payload_.size() - at - sizeof(std::uint64_t);
        std::memcpy(payload_.data() + at, &size, sizeof size);
      }
    if (carries && r_.faults.drop_every > 0 && ++carrying_ % r_.faults.drop_every == 0) {
      ++lost_;  // fault injection: lost on the wire
      return;
    }
    Header h{self_, tag, static_cast<std::uint32_t>(channel), static_cast<std::uint32_t>(items.size()), cargo.load,
             {value[0], value[1], value[2]}};
    const std::size_t items_end = sizeof(Header) + items.size() * sizeof(Item);
    auto buffer = std::make_unique<std::vector<char>>(items_end + payload_.size());
    std::memcpy(buffer->data(), &h, sizeof h);
    if (!items.empty()) std::memcpy(buffer->data() + sizeof h, items.data(), items.size() * sizeof(Item));
    if (!payload_.empty()) std::memcpy(buffer->data() + items_end, payload_.data(), payload_.size());
    MPI_Request request;
    MPI_Isend(buffer->data(), static_cast<int>(buffer->size()), MPI_BYTE, static_cast<int>(info_[to].id), message_tag, comm_,
              &request);
    sends_.push_back({request, std::move(buffer)});
  }

  std::span<const Message> take(NodeId, std::size_t, Channel channel) {
    auto& box = mailbox_[static_cast<std::size_t>(channel)];
    taken_.clear();
    taken_items_.clear();
    for (Arrived& a : box) {
      tally_.arrived(now(), a.msg.load, a.items);
      credit(node_, a.msg.load, a.items, taken_items_);
      if (r_.payloads != nullptr) unpack(a);
      taken_.push_back(a.msg);
    }
    box.clear();
    return taken_;
  }

  void set_timer(NodeId, double delay, std::uint32_t tag) {
    if (!(delay >= 0)) throw std::logic_error("negative timer delay");
    timers_.push({now() + delay, timer_seq_++, tag});
  }

  void execute(NodeId, ItemId item, std::uint32_t tag) {
    const double seconds = work_seconds(node_, item, speed(self_));
    node_.execution.begin(node_, item, tag, now(), seconds * r_.work_scale, self_);
    executing_ = true;  // the kernel runs once the handler has returned
  }

  void add_load(NodeId, std::size_t, double delta) {
    own_load(node_, self_, delta, integer_);
    added_ += delta;
  }

  void detected(NodeId) { tally_.detected(now()); }
  void finished(NodeId) { tally_.finished(now()); }
  void note(std::string_view name, double value) { tally_.note(name, value); }

 private:
  struct Arrived {
    Message msg;
    std::vector<Item> items;
    std::vector<std::byte> payload;  // the items' data, size-prefixed (with ItemPayloads)
  };

  // Hands each item's data to the application as the program takes the item.
  void unpack(const Arrived& a) {
    std::size_t at = 0;
    for (const Item& it : a.items) {
      std::uint64_t size = 0;
      if (a.payload.size() - at < sizeof size) throw std::runtime_error("mpi: an item's payload is cut short");
      std::memcpy(&size, a.payload.data() + at, sizeof size);
      at += sizeof size;
      if (a.payload.size() - at < size) throw std::runtime_error("mpi: an item's payload is cut short");
      r_.payloads->unpack(it.id, std::span<const std::byte>(a.payload).subspan(at, size));
      at += size;
    }
  }
  struct PendingSend {
    MPI_Request request;
    std::unique_ptr<std::vector<char>> buffer;
  };
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
    x.time = now();
    x.mine[0] = node_.held(), x.mine[1] = tally_.moved();
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
        recorder_.sample(series_, {series_.series.size() + 1, 0, x.time}, w, moved, true);
      }
      samples_.pop_front();
    }
  }

  Port port_of(NodeId from) const {
    for (Port p = 0; p < info_.size(); ++p)
      if (info_[p].id == from) return p;
    return no_port;
  }

  // Receives what has arrived; with `deliver`, the program hears of it.
  bool poll(bool deliver) {
    bool any = false;
    while (true) {
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, message_tag, comm_, &flag, &status);
      if (!flag) return any;
      int bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      std::vector<char> buffer(static_cast<std::size_t>(bytes));
      MPI_Recv(buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, message_tag, comm_, MPI_STATUS_IGNORE);
      Header h;
      std::memcpy(&h, buffer.data(), sizeof h);
      Arrived a;
      a.msg.port = port_of(h.from);
      a.msg.from = h.from;
      a.msg.tag = h.tag;
      a.msg.item_count = h.item_count;
      a.msg.load = h.load;
      a.msg.value = {h.value[0], h.value[1], h.value[2]};
      a.items.resize(h.item_count);
      const std::size_t items_end = sizeof h + h.item_count * sizeof(Item);
      if (h.item_count) std::memcpy(a.items.data(), buffer.data() + sizeof h, h.item_count * sizeof(Item));
      a.payload.resize(buffer.size() - items_end);
      if (!a.payload.empty()) std::memcpy(a.payload.data(), buffer.data() + items_end, a.payload.size());
      ++received_;
      const auto channel = static_cast<Channel>(h.channel);
      mailbox_[h.channel].push_back(std::move(a));
      any = true;
      if (deliver && notify_[h.channel]) node_.agent->arrived(ctx_, channel);
    }
  }

  // The item in hand, for real: the calibrated kernel for its work, then its program hears.
  void run_kernel() {
    const double seconds = node_.execution.ends - node_.execution.started;
    volatile double sink = kernel(static_cast<std::uint64_t>(seconds * steps_per_second_));
    (void)sink;
    executing_ = false;
    completions_.complete(node_.execution, now());
    node_.agent->timer(ctx_, node_.execution.tag);
  }

  bool fire_timers() {
    bool any = false;
    while (!timers_.empty() && timers_.top().at <= now() && !executing_) {
      const Timer t = timers_.top();
      timers_.pop();
      node_.agent->timer(ctx_, t.tag);
      any = true;
    }
    return any;
  }

  void reap_sends() {
    std::erase_if(sends_, [](PendingSend& s) {
      int done = 0;
      MPI_Test(&s.request, &done, MPI_STATUS_IGNORE);
      return done != 0;
    });
  }

  // At the stop, or to freeze the run: receive every message still on its way (into the
  // mailboxes, unheard), so that the recount sees it.
  void drain() {
    while (true) {
      poll(false);
      reap_sends();
      std::uint64_t mine[2] = {sent_ - lost_, received_}, all[2];
      MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, comm_);
      if (all[0] == all[1]) break;
      pause_briefly();
    }
    for (PendingSend& s : sends_) MPI_Wait(&s.request, MPI_STATUS_IGNORE);
    sends_.clear();
  }

  // With every rank frozen and nothing in flight: whether every node, counting what reached it,
  // is within the band of its share of the current total (which the waves use from then on).
  bool balanced_when_frozen() {
    double at_node = node_.held();
    for (const auto& box : mailbox_)
      for (const Arrived& a : box) {
        at_node += a.msg.load;
        for (const Item& it : a.items) at_node += it.weight;
      }
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
    NodeReport mine;
    Ledger::Count own;
    own.node(node_, node_.execution);
    own.completed(completions_);
    for (const auto& box : mailbox_)
      for (const Arrived& a : box) {
        own.in_flight(a.msg.load, a.items);
        if (r_.payloads != nullptr) unpack(a);  // the application keeps their data here
      }
    mine.held = own.total();
    mine.divisible = own.load;
    mine.item_weight = own.item_weight;
    mine.start_held = start_held_, mine.start_added = start_added_;
    mine.added = added_, mine.moved = tally_.moved(), mine.busy = node_.execution.busy, mine.last_completion = completions_.last;
    mine.finished_at = tally_.finished_count() > 0 ? tally_.finished_at() : -1;
    mine.detected_at = tally_.detected_at().value_or(-1);
    mine.completed = completions_.ids.size();
    mine.control_messages = tally_.messages(Channel::control), mine.data_messages = tally_.messages(Channel::data);
    std::vector<NodeReport> all(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, comm_);
    const std::vector<std::uint64_t> every_id = gather(own.items);
    std::vector<NoteReport> my_notes;
    for (const auto& [name, value] : tally_.notes()) my_notes.push_back(NoteReport::of(name, value));
    const std::vector<NoteReport> every_note = gather(my_notes);
    const std::vector<HostReport> every_host = gather(std::vector<HostReport>{HostReport::here()});
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
      count.load += n.divisible;
      count.item_weight += n.item_weight;
      ledger.add(n.added);
      moved += n.moved;
      work.busy.push_back(n.busy);
      work.last_completion = std::max(work.last_completion, n.last_completion);
      work.completed += n.completed;
      all_finished = all_finished && n.finished_at >= 0;
      finished_last = std::max(finished_last, n.finished_at);
      if (n.detected_at >= 0 && (!sum.detected_at || n.detected_at < *sum.detected_at)) sum.detected_at = n.detected_at;
      tm.control_messages += n.control_messages;
      tm.data_messages += n.data_messages;
      final_load[q] = n.held;
      first[q] = n.start_held;
      initial_total += n.start_added;
    }
    count.items = every_id;
    sum.final_total = count.total();
    sum.max_conservation_error = ledger.check(std::move(count), integer_, "the end of the MPI run");
    // The series: the first state, the samples gathered while running, the final state.
    const LoadStats st0 = load_stats<double>(first, recorder_.shares());
    const LoadStats st1 = recorder_.sample(series_, {series_.series.size() + 1, 0, end_time_}, final_load, moved, true);
    out.series.push_back({0, 0, 0.0, st0.imbalance, st0.stddev, st0.min, st0.max, st0.mean, 0.0});
    out.series.insert(out.series.end(), series_.series.begin(), series_.series.end());
    const double held_total = std::accumulate(final_load.begin(), final_load.end(), 0.0);
    open_summary(sum, st0, initial_total);
    close_summary(sum, reason, rule_.all_within(final_load, held_total, recorder_.shares()), st1, final_load, moved);
    if (all_finished) sum.finished_at = finished_last;
    if (work.completed > 0) sum.work = std::move(work);
    tm.time = end_time_;
    tm.events = tm.control_messages + tm.data_messages;
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
  const MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  NodeId self_ = 0;
  NodeState node_;  // this rank's node
  Completions completions_;
  bool executing_ = false;
  std::vector<NeighborInfo> info_;
  bool notify_[channel_count] = {};
  Rng rng_{1, 0};
  NodeContext<MpiRun> ctx_;
  std::vector<Arrived> mailbox_[channel_count];
  std::vector<Message> taken_;
  std::vector<Item> taken_items_;
  std::vector<std::byte> payload_;  // a send's items' data, packed
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::uint64_t timer_seq_ = 0;
  std::deque<PendingSend> sends_;
  std::uint64_t sent_ = 0, received_ = 0, lost_ = 0, carrying_ = 0;
  Tally tally_;
  double t0_ = 0, end_time_ = 0, added_ = 0, start_held_ = 0, start_added_ = 0, steps_per_second_ = 1e8;
  const BalanceRule rule_;
  Recorder recorder_;           // rank 0: the series of the samples gathered (shares: speed_shares())
  RunResult series_;            // rank 0: those rows
  double share_ = 0;            // this node's share of the total (speed_shares(), or 1 / nodes)
  double target_ = 0;           // share_ x the total: the initial one, then the last frozen one
  std::deque<std::unique_ptr<Sample>> samples_;
  std::uint64_t ticks_ = 0, balanced_waves_ = 0;
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
