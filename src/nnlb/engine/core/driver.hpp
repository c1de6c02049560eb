#pragma once
// The run driver: the part of every run that is not the engine's. It owns the nodes (their
// holdings, item in hand and program), the ledger, the tally, the completions, each node's idle
// and convergence times, fault injection, the sampling and the stop decision, and it writes every
// summary field. An engine owns only its clock, its transport and its execution of work: it runs
// the nodes' handlers through `handle`, tells the driver after each event or round, wakes it when
// it asked (`next_wake`), and stops when `after` names a reason.
//
//   engine loop:  handle(ctx, i, handler, now) ...  ->  after(engine)  ->  stop? why?
//   at the stop:  close(engine, reason)             ->  the record (recount, final loads, summary)
#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nnlb/engine/core/balance.hpp"
#include "nnlb/engine/core/ledger.hpp"
#include "nnlb/engine/core/node_state.hpp"
#include "nnlb/engine/core/node_times.hpp"
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/run_rules.hpp"
#include "nnlb/engine/core/stop_rules.hpp"
#include "nnlb/engine/core/summary.hpp"
#include "nnlb/engine/core/tally.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

// What an engine shows the driver: its clock, whether anything is left to happen, and every
// message on a wire or in a mailbox not yet taken, added to a recount (Ledger::Count::in_flight).
template <class E>
concept Transport = requires(const E& e, Ledger::Count& count) {
  { e.now() } -> std::convertible_to<double>;
  { e.quiet() } -> std::convertible_to<bool>;
  e.count_in_flight(count);
};

// How an engine counts time: rounds (samples are rounds; no per-node times) or seconds.
enum class Clock { rounds, seconds };

// What happens to a load-carrying message (FaultInjection): lost, its load altered, sent twice.
struct Fault {
  bool lost = false;
  double factor = 1;
  int copies = 1;
};

// A node as the driver keeps it: the core's node state, its idle and band times and whether it is
// in the run. An engine's node derives from it and adds its links and mailboxes (one object, one
// cache line's neighbourhood for a handler's bookkeeping).
struct DrivenNode : NodeState {
  NodeTimes times;
  bool alive = true;
};

template <class Node>
  requires std::derived_from<Node, DrivenNode>
class Driver {
 public:
  // `speeds`: each node's (a joining node with a new id computes at node 0's speed); `seed`: of
  // the nodes' random streams.
  Driver(const RunRules& rules, Clock clock, bool integer, const InitialState& initial, std::vector<double> speeds, std::uint64_t seed)
      : rules_(rules), clock_(clock), integer_(integer), faulty_(rules.faults.any()), seed_(seed),
        rule_{rules.band, load_grain(integer, initial)}, speeds_(std::move(speeds)), nodes_(initial.load.size()),
        live_(static_cast<NodeId>(nodes_.size())) {
    rngs_.reserve(nodes_.size());
    for (NodeId i = 0; i < nodes_.size(); ++i) ledger_.open(nodes_[i], initial, i), rngs_.emplace_back(seed, i);
    relative_ = std::any_of(speeds_.begin(), speeds_.end(), [&](double c) { return c != speeds_[0]; });
    for (NodeId i = 0; i < nodes_.size(); ++i) live_speed_ += speed(i);
    refresh_band(0.0, true);
  }

  // --- the nodes -----------------------------------------------------------------------------
  std::size_t size() const { return nodes_.size(); }
  Node& node(NodeId i) { return nodes_[i]; }
  const Node& node(NodeId i) const { return nodes_[i]; }
  bool alive(NodeId i) const { return nodes_[i].alive; }
  NodeId live() const { return live_; }
  const BalanceRule& rule() const { return rule_; }
  // What every node holds now (a neighbour's load at set-up: NeighborInfo::initial_load).
  std::vector<double> held() const {
    std::vector<double> h(nodes_.size());
    for (NodeId i = 0; i < nodes_.size(); ++i) h[i] = nodes_[i].held();
    return h;
  }
  double speed(NodeId i) const { return i < speeds_.size() ? speeds_[i] : speeds_[0]; }
  bool integer() const { return integer_; }
  Rng& rng(NodeId i) { return rngs_[i]; }
  bool faulty() const { return faulty_; }
  Tally& tally() { return tally_; }
  Ledger& ledger() { return ledger_; }
  Completions& completions() { return completions_; }

  // --- Context operations on what a node holds, each with one meaning on every engine ----------

  // Context::send: the cargo leaves node i (`degree` ports) at `now`; returns its items.
  [[gnu::always_inline]] std::vector<Item> send(NodeId i, Port p, std::uint32_t degree, Channel c, const Cargo& cargo, double now,
                                                bool overdraft) {
    std::vector<Item> carried = take_cargo(nodes_[i], i, p, degree, cargo, overdraft);
    tally_.sent(c, now, cargo.load, carried);
    return carried;
  }
  // What becomes of a message carrying `load` and `items` (counted over load-carrying ones).
  Fault fault(double load, bool items) {
    if (!faulty() || (load <= 0 && !items)) return {};
    const std::uint64_t k = ++carrying_;
    const FaultInjection& f = rules_.faults;
    if (FaultInjection::hits(f.drop_every, k)) return {true, 1, 0};
    return {false, FaultInjection::hits(f.corrupt_every, k) ? 1 + 1e-6 : 1.0, FaultInjection::hits(f.duplicate_every, k) ? 2 : 1};
  }
  // A load-carrying message through fault injection: `post()` once, twice or never, with `load`
  // altered first as the fault says (a message without load or items is posted once, unaltered).
  template <class Post>
  void through_faults(double& load, bool items, Post&& post) {
    const Fault f = fault(load, items);
    load *= f.factor;
    for (int copy = 0; copy < f.copies; ++copy) post();
  }
  // Context::add_load, booked at once (engines that run nodes side by side book it themselves).
  void add_load(NodeId i, double delta) {
    own_load(nodes_[i], i, delta, integer_);
    ledger_.add(delta);
  }
  // Context::execute: node i takes `item` in hand for `duration`; complete() when it is done.
  void execute(NodeId i, ItemId item, std::uint32_t tag, double now, double duration) {
    nodes_[i].hand().begin(nodes_[i], item, tag, now, duration, i);
    executing_.store(true, std::memory_order_relaxed);  // nodes of a round engine execute side by side
  }
  void complete(NodeId i, double now) { completions_.complete(nodes_[i].hand(), now); }

  // Every node's program starts at `now` (Agent::start), in node order.
  template <class Ctx>
  void start_agents(const Program& program, Ctx& ctx, double now) {
    for (NodeId i = 0; i < nodes_.size(); ++i) {
      nodes_[i].agent = program.make_agent(i);
      handle(ctx, i, [&](Agent& a) { a.start(ctx); }, now);
    }
  }
  // Runs one of node i's handlers through `ctx` (a NodeContext), then its idle and band bookkeeping.
  template <class Ctx, class F>
  void handle(Ctx& ctx, NodeId i, F&& handler, double now) {
    ++handlers_;
    if (ctx.handle(i, nodes_[i], handler)) settle(i, now);
  }
  // Node i's idle and band bookkeeping after what it holds changed.
  void settle(NodeId i, double now) {
    Node& n = nodes_[i];
    if (!n.alive) return;
    const double held = n.held();
    in_band_ += n.times.update(held, rule_.within(held, target(i, mean())), now);
  }
  // Every live node's band, after the total or the live nodes changed.
  void refresh_band(double now, bool initial = false) {
    const double m = mean();
    in_band_ = 0;
    for (NodeId i = 0; i < nodes_.size(); ++i) {
      Node& n = nodes_[i];
      if (!n.alive) continue;
      const bool band = rule_.within(n.held(), target(i, m));
      n.times.reset(initial, n.held(), band, now);
      in_band_ += band;
    }
  }

  // Node i leaves: it no longer counts (the engine has handed over what it held).
  void leave(NodeId i) {
    Node& n = nodes_[i];
    n.alive = false;
    n.agent.reset();
    if (n.times.in_band) --in_band_;
    n.times.in_band = false;
    --live_;
    live_speed_ -= speed(i);
  }
  // Node i joins at `now`, holding nothing: an id that left, or the next new one.
  Node& join(NodeId i, double now) {
    if (i == nodes_.size()) nodes_.emplace_back(), rngs_.emplace_back(seed_, i);
    nodes_[i] = Node{};
    nodes_[i].times.idle = true;
    nodes_[i].times.idle_since = now;
    ++live_;
    live_speed_ += speed(i);
    return nodes_[i];
  }

  // --- the run -------------------------------------------------------------------------------

  // Once every node's program has started: the first sample, the summary's opening.
  template <Transport E>
  void start(const E& e) {
    if (clock_ == Clock::rounds) refresh_band(e.now());
    keep_sample(e, true);
    open_summary(result_.summary, last_, current_total());
    if (rules_.sample_period > 0) next_wake_ = e.now() + rules_.sample_period;
  }
  // When the engine's clock should wake the driver next (timed engines; infinity: never).
  double next_wake() const { return next_wake_; }
  double time_limit() const { return rules_.stop.time_limit; }
  // Woken at next_wake(): a sample, which the next decision sees.
  template <Transport E>
  void wake(const E& e) {
    keep_sample(e, rules_.series_every > 0);
    next_wake_ += rules_.sample_period;
  }
  // After round `round` of a round engine: a sample (a row every series_every rounds), the band.
  template <Transport E>
  void round(const E& e, std::uint64_t round) {
    round_ = round;
    keep_sample(e, rules_.series_every > 0 && round % rules_.series_every == 0);
    refresh_band(e.now());
  }
  // The stop decision after an event or a round; `next`: when the engine's next event is due.
  template <Transport E>
  [[gnu::always_inline]] std::optional<StopReason> after(const E& e, double next = -std::numeric_limits<double>::infinity()) {
    RunMoment m;
    m.now = e.now();
    m.rounds = round_;
    m.sample = fresh_ ? &last_ : nullptr;
    m.balanced = in_band_ == live_;
    m.last_move = tally_.last_move();
    m.detected = tally_.detected();
    m.finished = tally_.finished_count() >= live_;
    m.quiet = e.quiet();
    m.next = next;
    fresh_ = false;
    return decide(rules_.stop, m);
  }

  // The record: a last sample and recount, the final loads, every summary field.
  template <Transport E>
  RunResult close(const E& e, StopReason reason) {
    if (clock_ == Clock::seconds || result_.series.empty() || result_.series.back().round != round_) keep_sample(e, true);
    std::vector<double> held, shares;
    live_loads(held, shares);
    RunSummary& sum = result_.summary;
    close_summary(sum, reason, rule_.all_within(held, current_total(), shares), last_, held, tally_.moved());
    tally_.close(sum, live_);
    if (executing_.load(std::memory_order_relaxed)) {
      std::vector<double> busy;
      for (const Node& n : nodes_) busy.push_back(n.in_hand().busy);
      sum.work = completions_.metrics(std::move(busy));
    }
    if (clock_ == Clock::rounds) {
      close_rounds(sum, reason, round_, round_);
    } else {
      TimeMetrics tm;
      tm.time = e.now();
      for (const Node& n : nodes_)
        if (n.alive) accumulate(tm, n.times, e.now());
      average(tm, live_);
      tm.data_transferred = sum.initial_total != 0 ? tally_.moved() / sum.initial_total : 0.0;
      tally_.close(tm);
      tm.events = handlers_;
      sum.timing = tm;
    }
    if (rules_.final_load) result_.final_load = std::move(held);
    return std::move(result_);
  }

  // The run's load now: divisible load and the items not yet completed, held or in flight.
  double current_total() const { return ledger_.current_total(completions_.weight); }

 private:
  double mean() const { return live_ ? current_total() / live_ : 0.0; }
  // What node i holds when balanced: the mean, or on nodes of different speeds its share of the
  // total relative to speed (Jeannot & Vernier 2006, Theorem 1), over the live nodes.
  double target(NodeId i, double mean) const { return relative_ ? current_total() * speed(i) / live_speed_ : mean; }

  void live_loads(std::vector<double>& held, std::vector<double>& shares) const {
    held.reserve(live_);
    for (NodeId i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].alive) {
        held.push_back(nodes_[i].held());
        if (relative_) shares.push_back(speed(i) / live_speed_);
      }
  }

  // Recounts load and items (conservation), then samples the live nodes' loads: a row of the
  // series when `keep`, every node's load when the history is asked for.
  template <Transport E>
  void keep_sample(const E& e, bool keep) {
    recount(e);
    std::vector<double> held, shares;
    live_loads(held, shares);
    const SamplePoint at = clock_ == Clock::rounds ? SamplePoint{round_, round_, 0.0} : SamplePoint{++samples_, 0, e.now()};
    last_ = recorder_.sample(result_, at, held, tally_.moved(), keep, shares);
    fresh_ = true;
    if (rules_.load_history) recorder_.history(result_, e.now(), std::move(held));
  }

  // Every node's holdings and item in hand, the completed items and what the engine has in
  // flight, against the ledger.
  template <Transport E>
  void recount(const E& e) {
    Ledger::Count c;
    for (const Node& n : nodes_) c.node(n, n.in_hand());
    c.completed(completions_);
    e.count_in_flight(c);
    RunSummary& sum = result_.summary;
    sum.final_total = c.total();
    const std::string where = clock_ == Clock::rounds ? "round " + std::to_string(round_) : "t = " + std::to_string(e.now());
    sum.max_conservation_error = std::max(sum.max_conservation_error, ledger_.check(std::move(c), integer_, where));
  }

  const RunRules rules_;
  const Clock clock_;
  const bool integer_;
  const bool faulty_;
  const std::uint64_t seed_;
  const BalanceRule rule_;
  std::vector<double> speeds_;
  bool relative_ = false;  // speeds differ: targets relative to speed
  double live_speed_ = 0;  // sum of the live nodes' speeds
  std::vector<Node> nodes_;
  std::vector<Rng> rngs_;
  NodeId live_ = 0, in_band_ = 0;
  Ledger ledger_;
  Tally tally_;
  Completions completions_;
  Recorder recorder_{{}, rules_.series_max_rows};
  RunResult result_;
  LoadStats last_;      // the latest sample's statistics
  bool fresh_ = false;  // taken since the last decision
  std::atomic<bool> executing_ = false;
  double next_wake_ = std::numeric_limits<double>::infinity();
  std::uint64_t round_ = 0, samples_ = 0, carrying_ = 0;
  std::uint64_t handlers_ = 0;  // the record's events: handlers the nodes' programs ran
};

}  // namespace nnlb
