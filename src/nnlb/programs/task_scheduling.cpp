#include "nnlb/programs/task_scheduling.hpp"

#include "nnlb/util/apportion.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace nnlb {

namespace {

enum Tag : std::uint32_t { request_tag, tasks_tag, no_more_tag, terminate_tag, report_tag, assign_tag, ms_start_tag };
enum Timer : std::uint32_t { executed_timer, serve_timer };
constexpr NodeId coordinator = 0;

// (max - min) / mean of `x`; 0 for an empty or all-zero list.
double relative_range(const std::vector<double>& x) {
  if (x.empty()) return 0;
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
  return mean > 0 ? (*hi - *lo) / mean : 0;
}

class TaskAgent final : public Agent {
 public:
  TaskAgent(const TaskSchedulingOptions& opt, NodeId self) : opt_(opt), self_(self) {}

  void start(Context& ctx) override {
    if (opt_.algorithm == TaskAlgorithm::ms) {
      if (self_ == coordinator) role_ = Role::master;
      else become_worker(ctx);
      return;
    }
    role_ = Role::own_list;
    next(ctx);
  }

  void timer(Context& ctx, std::uint32_t tag) override {
    if (tag == serve_timer) {
      serve(ctx);
      return;
    }
    busy_ = false;
    phase1_busy_ += ctx.now() - started_;
    ++phase1_done_;
    next(ctx);
  }

  void arrived(Context& ctx, Channel channel) override {
    for (const Message& m : ctx.take(channel)) {
      switch (m.tag) {
        case request_tag:
          pending_.push_back({m.from, m.port, static_cast<std::uint32_t>(m.value[0]), ctx.now()});
          if (!serving_) {
            // The requests of this moment are answered together, in core order, after the
            // master's service time (the timer comes after the arrivals already queued for now).
            serving_ = true;
            ctx.set_timer(opt_.service, serve_timer);
          }
          break;
        case tasks_tag:
          asked_ = false;
          next(ctx);
          break;
        case no_more_tag:
          role_ = Role::done;
          ctx.finished();
          break;
        case terminate_tag:
          signal_ = std::min(signal_, m.value[0]);
          stop(ctx);
          break;
        case report_tag:
          collect(ctx, m.from, {m.value[0], m.value[1], ctx.neighbors()[m.port].speed});
          break;
        case assign_tag:
          phase3_ = true;
          role_ = Role::own_list;
          next(ctx);
          break;
        case ms_start_tag:
          phase3_ = true;
          become_worker(ctx);
          break;
        default:
          break;
      }
    }
  }

 private:
  enum class Role { own_list, stopping, reported, worker, master, done };
  struct Request {
    NodeId from;
    Port port;
    std::uint32_t batch;
    double at;  // when it arrived
  };

  Port port_of(Context& ctx, NodeId node) const {
    const auto nb = ctx.neighbors();
    for (Port p = 0; p < nb.size(); ++p)
      if (nb[p].id == node) return p;
    return no_port;
  }

  void become_worker(Context& ctx) {
    role_ = Role::worker;
    next(ctx);
  }

  // The next task of this core, or what to do when it has none.
  void next(Context& ctx) {
    if (busy_) return;
    if (role_ == Role::stopping) {
      report(ctx);
      return;
    }
    if (role_ != Role::own_list && role_ != Role::worker) return;
    const auto items = ctx.items();
    if (!items.empty()) {
      busy_ = true;
      started_ = ctx.now();
      ctx.execute(items.back().id, executed_timer);
      return;
    }
    if (role_ == Role::worker) {
      if (!asked_) {
        asked_ = true;
        ctx.send(port_of(ctx, coordinator), Channel::control, request_tag, {static_cast<double>(opt_.batch), 0, 0}, 0);
      }
      return;
    }
    // Its own list is done.
    if (opt_.algorithm == TaskAlgorithm::ca && !phase3_) {
      // Phase 1 ends here (T_min): the signal to every other core, then this core's report.
      if (signal_ == INFINITY) {
        signal_ = ctx.now();
        for (Port p = 0; p < ctx.degree(); ++p) ctx.send(p, Channel::control, terminate_tag, {signal_, 0, 0}, 0);
      }
      report(ctx);
      return;
    }
    role_ = Role::done;
    ctx.finished();
  }

  // CA: the termination signal; the task in hand is finished first.
  void stop(Context& ctx) {
    if (role_ != Role::own_list || phase3_) return;
    role_ = Role::stopping;
    if (!busy_) report(ctx);
  }

  // CA phase 2: tasks done, their durations and the unfinished tasks go to the coordinator.
  void report(Context& ctx) {
    role_ = Role::reported;
    if (self_ == coordinator) {
      collect(ctx, self_, {static_cast<double>(phase1_done_), phase1_busy_, ctx.speed()});
      return;
    }
    std::vector<ItemId> all;
    for (const Item& it : ctx.items()) all.push_back(it.id);
    ctx.send(port_of(ctx, coordinator), Channel::control, report_tag, {static_cast<double>(phase1_done_), phase1_busy_, signal_}, 0,
             {.items = all});
  }

  // The coordinator: every core's report in, it chooses and reschedules (phase 2 -> 3).
  void collect(Context& ctx, NodeId from, CoreReport r) {
    if (reports_.empty()) reports_.resize(ctx.degree() + 1);
    reports_[from] = r;
    if (++reported_ < reports_.size()) return;
    const auto unfinished = static_cast<std::uint64_t>(ctx.items().size());
    const Phase3 choice = choose_phase3(reports_, unfinished, opt_.rules);
    ctx.note("ca_choice", choice == Phase3::ms ? 1 : 0);
    ctx.note("ca_signal", signal_);
    ctx.note("ca_reports", ctx.now());
    ctx.note("ca_unfinished", static_cast<double>(unfinished));
    phase3_ = true;
    if (choice == Phase3::ms) {
      role_ = Role::master;
      for (Port p = 0; p < ctx.degree(); ++p) ctx.send(p, Channel::control, ms_start_tag, {}, 0);
      if (ctx.degree() == 0) finish_master(ctx);
      return;
    }
    reassign(ctx);
  }

  // CA's DD phase 3: shares in proportion to the tasks each core finished in phase 1 (largest
  // remainders; equal shares if none finished any).
  void reassign(Context& ctx) {
    const std::size_t cores = reports_.size();
    std::vector<double> done(cores);
    for (std::size_t c = 0; c < cores; ++c) done[c] = reports_[c].done;
    const std::vector<std::size_t> count = apportion(done, ctx.items().size());
    // Shares are ranges of the coordinator's items as it holds them now, its own first.
    std::vector<std::size_t> first(cores + 1, 0);
    first[1] = count[coordinator];
    for (std::size_t c = 1; c < cores; ++c) first[c + 1] = first[c] + count[c];
    const std::vector<Item> held(ctx.items().begin(), ctx.items().end());
    for (std::size_t c = cores; c-- > 1;) {
      std::vector<ItemId> which;
      for (std::size_t k = first[c]; k < first[c + 1]; ++k) which.push_back(held[k].id);
      ctx.send(port_of(ctx, static_cast<NodeId>(c)), Channel::control, assign_tag, {}, 0, {.items = which});
    }
    role_ = Role::own_list;
    next(ctx);
  }

  // The master answers the waiting requests in order of arrival (ties: core order): all of them
  // with no service time, else one per service time.
  void serve(Context& ctx) {
    serving_ = false;
    std::stable_sort(pending_.begin(), pending_.end(), [](const Request& a, const Request& b) { return a.at < b.at || (a.at == b.at && a.from < b.from); });
    const std::size_t answered = opt_.service > 0 ? 1 : pending_.size();
    for (std::size_t k = 0; k < answered; ++k) {
      const Request& r = pending_[k];
      const auto held = static_cast<std::uint32_t>(ctx.items().size());
      if (held == 0) {
        ctx.send(r.port, Channel::control, no_more_tag, {}, 0);
        ++released_;
        continue;
      }
      // The last items are the first in task order.
      const std::uint32_t take = std::min(r.batch, held);
      std::vector<ItemId> which(take);
      for (std::uint32_t k = 0; k < take; ++k) which[k] = ctx.items()[held - 1 - k].id;
      ctx.send(r.port, Channel::control, tasks_tag, {}, 0, {.items = which});
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(answered));
    if (!pending_.empty()) {
      serving_ = true;
      ctx.set_timer(opt_.service, serve_timer);
    }
    if (released_ == ctx.degree()) finish_master(ctx);
  }

  void finish_master(Context& ctx) {
    role_ = Role::done;
    ctx.finished();
  }

  const TaskSchedulingOptions& opt_;
  NodeId self_;
  Role role_ = Role::own_list;
  bool busy_ = false, asked_ = false, serving_ = false, phase3_ = false;
  double started_ = 0, phase1_busy_ = 0, signal_ = INFINITY;
  std::uint64_t phase1_done_ = 0;
  std::vector<Request> pending_;
  std::uint32_t released_ = 0;
  std::vector<CoreReport> reports_;
  std::size_t reported_ = 0;
};

}  // namespace

Phase3 choose_phase3(const std::vector<CoreReport>& reports, std::uint64_t unfinished, const CaRules& rules) {
  const bool ms1 = reports.size() > rules.cores;
  if (rules.ms1_first && ms1) return Phase3::ms;                          // MS1
  if (unfinished <= reports.size()) return Phase3::dd;                    // DD3
  if (ms1) return Phase3::ms;                                             // MS1
  std::vector<double> speed, duration, count;
  for (const CoreReport& r : reports) {
    speed.push_back(r.speed);
    count.push_back(r.done);
    if (r.done > 0) duration.push_back(r.busy / r.done);
  }
  if (relative_range(speed) > rules.similar_speed) return Phase3::ms;        // MS2
  if (relative_range(duration) > rules.similar_duration) return Phase3::ms;  // MS3
  if (relative_range(count) > rules.similar_count) return Phase3::ms;        // MS4
  return Phase3::dd;                                                         // DD1, DD2
}

std::string TaskScheduling::name() const {
  switch (opt_.algorithm) {
    case TaskAlgorithm::dd:
      return "dd";
    case TaskAlgorithm::ms:
      return "ms";
    case TaskAlgorithm::ca:
      return "ca";
  }
  return "tasks";
}

std::unique_ptr<Agent> TaskScheduling::make_agent(NodeId node) const { return std::make_unique<TaskAgent>(opt_, node); }

}  // namespace nnlb
