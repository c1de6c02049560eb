#include "nnlb/programs/async_balancer.hpp"

#include "nnlb/programs/policy_step.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

enum Timer : std::uint32_t { compute_timer, balance_timer };
static_assert(balance_timer == AsyncBalancer::balance_timer);
enum Tag : std::uint32_t { report_tag, load_tag };

// A control message's fields.
constexpr std::size_t announced_field = 0;  // virtual load committed to the receiver in this step
constexpr std::size_t load_field = 1;       // the sender's decision load
constexpr std::size_t counted_field = 2;    // all load from the receiver the sender has counted

struct EdgeState {
  double known = 0;      // x_j^i: the neighbour's load as this node knows it
  double pending = 0;    // decided, not yet sent
  double committed = 0;  // all load ever committed to the neighbour
  double counted = 0;    // all load from the neighbour counted here
};

class AsyncAgent final : public Agent {
 public:
  explicit AsyncAgent(const AsyncBalancer& owner) : owner_(owner), keep_flow_(owner.policy().reads_last_flow()) {}

  void start(Context& ctx) override {
    edges_.assign(ctx.degree(), EdgeState{});
    const bool hears_speeds = SpeedReports::needed(policy()), detects = opt().detection != Detection::off;
    if (keep_flow_ || policy().edge_memory() > 0 || hears_speeds || detects) extras_ = std::make_unique<Extras>();
    if (keep_flow_) extras_->last_flow.assign(ctx.degree(), 0.0);
    if (hears_speeds) {
      extras_->speeds.emplace();
      extras_->speeds->start(ctx, policy());
    }
    if (detects) {
      extras_->watch.emplace();
      extras_->watch->tree.start(ctx, opt().detection == Detection::continuous);
      extras_->watch->acknowledged.assign(ctx.degree(), 0.0);
    }
    if (extras_) extras_->memory.assign(std::size_t{ctx.degree()} * policy().edge_memory(), 0.0);
    if (opt().initial_knowledge)
      for (Port p = 0; p < edges_.size(); ++p) edges_[p].known = ctx.initial_load(p);
    const double offset = opt().stagger ? ctx.rng().uniform(0, opt().lb_period) : 0.0;
    if (opt().computing && opt().compute_first) ctx.set_timer(0, compute_timer);
    if (std::isfinite(opt().lb_period)) ctx.set_timer(offset, balance_timer);
    if (opt().computing && !opt().compute_first) ctx.set_timer(0, compute_timer);
  }

  void timer(Context& ctx, std::uint32_t tag) override {
    if (tag == compute_timer) compute(ctx);
    else balance(ctx);
  }

  void arrived(Context& ctx, Channel /*data*/) override {
    if (!opt().computing) return receive(ctx);
    if (!waiting_) return;
    waiting_ = false;
    ctx.set_timer(0, compute_timer);
  }

  void neighbor_added(Context& ctx, Port port) override {
    if (opt().detection != Detection::off) throw std::logic_error("the spanning-tree detection needs a graph that does not change");
    edges_.push_back({});
    if (!extras_) return;
    if (keep_flow_) extras_->last_flow.push_back(0.0);
    if (extras_->speeds) extras_->speeds->neighbor_added(port);
    extras_->memory.resize(std::size_t{ctx.degree()} * policy().edge_memory(), 0.0);
  }

  void neighbor_removed(Context& /*ctx*/, Port port) override {
    if (opt().detection != Detection::off) throw std::logic_error("the spanning-tree detection needs a graph that does not change");
    // What was decided for it and not sent stays here.
    pending_total_ -= edges_[port].pending;
    edges_.erase(edges_.begin() + port);
    if (!extras_) return;
    if (keep_flow_) extras_->last_flow.erase(extras_->last_flow.begin() + port);
    if (extras_->speeds) extras_->speeds->neighbor_removed(port);
    const auto m = policy().edge_memory();
    extras_->memory.erase(extras_->memory.begin() + std::size_t{port} * m, extras_->memory.begin() + std::size_t{port + 1} * m);
  }

  AsyncBalancer::Status status() const {
    const auto last = static_cast<std::int64_t>(steps_) - 1;
    return {steps_, stopped(), opt().detection == Detection::continuous ? watch().tree.level_at(last) : 0};
  }

 private:
  // Computing process: take received load, send what the balancer decided, compute (all the load
  // held, or the next slice of the current iteration).
  void compute(Context& ctx) {
    waiting_ = false;
    receive(ctx);
    double real = held(ctx);
    for (Port p = 0; p < edges_.size(); ++p) {
      EdgeState& e = edges_[p];
      const double amount = std::min(e.pending, real);
      if (amount <= 0) continue;
      e.pending -= amount;
      pending_total_ -= amount;
      real -= amount;
      ctx.send(p, Channel::data, load_tag, {}, amount * opt().bytes_per_unit, {.load = amount});
    }
    if (opt().compute_chunk > 0 && real > 0) {
      // Load sent away leaves the iteration; load received waits for the next one.
      todo_ = todo_ > 0 ? std::min(todo_, real) : real;
      const double rate = ctx.speed() / opt().flops_per_unit;  // units per second
      const double slice = std::min(todo_, opt().compute_chunk * rate);
      todo_ -= slice;
      ctx.set_timer(std::max(slice / rate, opt().comp_min_period), compute_timer);
    } else if (real > 0) {
      const double work = real * opt().flops_per_unit / ctx.speed();
      ctx.set_timer(std::max(work, opt().comp_min_period), compute_timer);
    } else {
      todo_ = 0;
      waiting_ = true;  // woken by the next data message
    }
  }

  // Takes the data that arrived: its load (or its items' weight) is counted from its sender.
  void receive(Context& ctx) {
    const auto messages = ctx.take(Channel::data);
    const auto items = ctx.taken_items();
    std::size_t next = 0;
    for (const Message& m : messages) {
      double amount = m.load;
      for (std::uint32_t k = 0; k < m.item_count; ++k) amount += items[next++].weight;
      if (opt().virtual_load) announced_ -= amount;
      else if (m.port != no_port) edges_[m.port].counted += amount;
      if (amount > 0 && watching()) watch().last_exchange = static_cast<std::int64_t>(steps_);  // in the coming step, at the latest
    }
  }

  // What the node balances: its divisible load, and with items their weight too.
  double held(Context& ctx) const {
    double h = ctx.load();
    if (opt().items)
      for (const Item& it : ctx.items()) h += it.weight;
    return h;
  }

  // Items: the transfer to port p leaves now as whole items; returns the weight they carry.
  double ship_items(Context& ctx, Port p, double amount) {
    thread_local std::vector<Item> movable;  // scratch
    thread_local std::vector<ItemId> chosen;
    movable.clear();
    for (const Item& it : ctx.items()) movable.push_back(it);
    chosen.clear();
    const Departure d{ctx.self(), ctx.neighbors()[p].id, amount, steps_ - 1};
    if (opt().choose) opt().choose(d, movable, chosen);
    else heaviest_fit(amount, movable, chosen);
    if (chosen.empty()) return 0;
    std::sort(movable.begin(), movable.end(), [](const Item& a, const Item& b) { return a.id < b.id; });
    double weight = 0;
    for (ItemId id : chosen) {
      const auto it = std::lower_bound(movable.begin(), movable.end(), id, [](const Item& a, ItemId b) { return a.id < b; });
      if (it == movable.end() || it->id != id) throw std::logic_error("an item choice names an item the node does not hold");
      weight += it->weight;
    }
    // The message's size is its items' bytes (the engine adds them).
    ctx.send(p, Channel::data, load_tag, {}, 0, {.items = chosen});
    return weight;
  }

  // Balancing process: read control messages, decide, tell every neighbour.
  void balance(Context& ctx) {
    for (const Message& m : ctx.take(Channel::control)) {
      if (m.port == no_port) continue;
      if (extras_ && extras_->speeds && extras_->speeds->handles(m)) {
        extras_->speeds->receive(m);
        continue;
      }
      if (watching() && watch().tree.handles(m)) {
        watch().tree.receive(ctx, m);
        continue;
      }
      EdgeState& e = edges_[m.port];
      if (opt().virtual_load) {
        announced_ += m.value[announced_field];
        e.counted += m.value[announced_field];
      }
      // The neighbour's load as it reported it, plus what this node committed to it that the
      // report did not count yet (still pending here or in flight).
      e.known = m.value[load_field] + (e.committed - m.value[counted_field]);
      if (watching()) watch().acknowledged[m.port] = m.value[counted_field];
    }
    if (!opt().computing) receive(ctx);
    if (resting()) {
      if (std::isfinite(opt().lb_period) && !stopped()) ctx.set_timer(opt().lb_period, balance_timer);
      return;
    }
    SpeedReports* speeds = extras_ && extras_->speeds ? &*extras_->speeds : nullptr;
    if (speeds) speeds->announce(ctx, policy(), opt().control_bytes);
    const auto step = static_cast<std::int64_t>(steps_);
    double load = held(ctx) - pending_total_ + (opt().virtual_load ? announced_ : 0.0);
    const auto transfers = decide_transfers(
        policy(), ctx, load, steps_++, opt().colors, extras_ ? extras_->memory : no_memory, [&](Port p) { return edges_[p].known; },
        [&](Port p) { return keep_flow_ ? extras_->last_flow[p] : 0.0; }, speeds);
    thread_local std::vector<double> flow;  // committed to each neighbour in this step
    flow.assign(edges_.size(), 0.0);
    for (const Transfer& t : transfers) {
      double amount = std::min(t.amount, load);
      if (amount <= 0) continue;
      const Port p = t.neighbor;
      EdgeState& e = edges_[p];
      if (opt().items) {
        amount = ship_items(ctx, p, amount);
        if (amount <= 0) continue;
      } else {
        e.pending += amount;
        pending_total_ += amount;
      }
      e.committed += amount;
      if (watching()) watch().last_exchange = step;
      load -= amount;
      e.known += amount;  // until the neighbour reports again
      flow[p] += amount;
    }
    if (keep_flow_) extras_->last_flow = flow;
    thread_local std::vector<std::array<double, 3>> reports;
    reports.resize(edges_.size());
    for (Port p = 0; p < edges_.size(); ++p) reports[p] = {opt().virtual_load ? flow[p] : 0.0, load, edges_[p].counted};
    ctx.send_each(Channel::control, report_tag, reports, opt().control_bytes);
    if (opt().detection != Detection::off) after_step(ctx, step);
    if (std::isfinite(opt().lb_period)) ctx.set_timer(opt().lb_period, balance_timer);
  }

  // LBDetecConv after step t; continuously, the next step waits 2^level runs of the process.
  // Load this node committed and its neighbour has not counted yet (still to send, or on the
  // wire), or announced to it and not arrived, is an exchange of every step until it settles.
  void after_step(Context& ctx, std::int64_t t) {
    bool unsettled = pending_total_ > 0 || announced_ > 1e-12 * std::max(1.0, held(ctx));  // sums of the same amounts, to rounding
    Watch& w = watch();
    for (Port p = 0; p < edges_.size(); ++p) unsettled = unsettled || edges_[p].committed > w.acknowledged[p] * (1 + 1e-12) + 1e-300;
    if (unsettled) w.last_exchange = t;
    w.tree.after_step(ctx, t, w.last_exchange);
    std::uint64_t every = 1;
    for (std::uint32_t k = w.tree.level_at(t); k > 0 && every < opt().quiet_every_max; --k) every *= 2;
    w.next_run = w.runs - 1 + std::min(every, std::max<std::uint64_t>(opt().quiet_every_max, 1));
  }

  bool stopped() const {
    if (!watching()) return false;
    const auto stop = watch().tree.stop_step();
    return stop && static_cast<std::int64_t>(steps_) >= *stop;
  }

  // This run of the balancing process takes no step: balancing stopped, or a quiet phase.
  bool resting() {
    if (opt().detection == Detection::off) return false;
    return stopped() || watch().runs++ < watch().next_run;
  }

  // Jeannot & Vernier's detection (opt().detection only): the tree's protocol, per port what of
  // `committed` the neighbour's last report counted, the runs of the balancing process, and the
  // last step in which this node sent or received load.
  struct Watch {
    SpanningTreeDetection tree;
    std::vector<double> acknowledged;
    std::uint64_t runs = 0, next_run = 0;  // runs of the balancing process; the one that steps next
    std::int64_t last_exchange = -1;
  };
  // What a node keeps only when its run uses it, behind one pointer: at a million nodes each
  // agent's bytes count (88 bytes an agent, 168 when each part had a member of its own;
  // docs/benchmarks.md).
  struct Extras {
    std::vector<double> last_flow;       // per port, committed in this node's last step (keep_flow_)
    std::vector<double> memory;          // Policy::edge_memory() doubles per port
    std::optional<SpeedReports> speeds;  // relative-speed diffusion on reported speeds (a policy with a delta only)
    std::optional<Watch> watch;
  };
  const Policy& policy() const { return owner_.policy(); }
  const AsyncBalancerOptions& opt() const { return owner_.options(); }
  bool watching() const { return extras_ && extras_->watch; }
  Watch& watch() { return *extras_->watch; }
  const Watch& watch() const { return *extras_->watch; }
  inline static std::vector<double> no_memory;  // a policy's edge memory when it keeps none (never touched)

  const AsyncBalancer& owner_;
  std::vector<EdgeState> edges_;
  std::unique_ptr<Extras> extras_;
  double pending_total_ = 0;  // decided, not yet sent
  double announced_ = 0;      // virtual load announced to this node, not yet received
  std::uint64_t steps_ = 0;   // balancing steps so far
  double todo_ = 0;           // compute_chunk: units left in the current iteration
  const bool keep_flow_;      // the policy reads the last step's flows (Policy::reads_last_flow)
  bool waiting_ = false;      // the computing process waits for data
};

}  // namespace

AsyncBalancer::AsyncBalancer(const Policy& policy, AsyncBalancerOptions options) : policy_(policy), opt_(options) {
  if (policy.needs_net_flow())
    throw InputError({}, "algorithm",
                     "'" + policy.name() + "' needs the net flow of the previous synchronous step, which the asynchronous "
                     "balancer does not have; run it with agent = \"rounds\"");
  if (policy.pairing() == Pairing::matching && options.colors == 0)
    throw InputError({}, "algorithm", "'" + policy.name() + "' pairs neighbours by an edge colouring, and none was given");
}

std::unique_ptr<Agent> AsyncBalancer::make_agent(NodeId /*node*/) const { return std::make_unique<AsyncAgent>(*this); }

AsyncBalancer::Status AsyncBalancer::status(const Agent& agent) { return static_cast<const AsyncAgent&>(agent).status(); }

}  // namespace nnlb
