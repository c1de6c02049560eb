#include "nnlb/programs/iterative_application.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "nnlb/policy/relative_speed.hpp"
#include "nnlb/policy/shaker.hpp"
#include "nnlb/programs/step_exchange.hpp"
#include "nnlb/protocol/relative_speed_negotiation.hpp"
#include "nnlb/protocol/tree_detection.hpp"

namespace nnlb {

double exchange_benefit(double wi, double ci, double wj, double cj, double l, double work_per_unit) {
  auto cmp = [&](double w, double c) { return w * work_per_unit / c; };
  return cmp(wi, ci) - std::max(cmp(wi - l, ci), cmp(wj + l, cj));
}

double exchange_cost(double l, double latency, double bandwidth, double bytes_per_unit, double pre, double post) {
  return pre * l + latency + l * bytes_per_unit / bandwidth + post * l;
}

namespace {

enum Timer : std::uint32_t { computed, sent_after_pre, integrated_after_post };

class IterativeAgent final : public Agent {
 public:
  explicit IterativeAgent(const IterativeApplicationOptions& opt) : opt_(opt), negotiation_(opt.mr_self), k_(opt.k0) {}

  void start(Context& ctx) override {
    exchange_.start(ctx.degree());
    sent_.assign(ctx.degree(), 0.0);
    stuck_.assign(ctx.degree(), 0.0);
    negotiation_.start(ctx);
    if (opt_.detection) detection_.start(ctx, dynamic());
    if (set_up()) begin_iteration(ctx);
  }

  // The step's reports and transfers go to the exchange (which keeps a transfer of step t
  // waiting until this node has decided on w_i(t), Eq. 3); the set-up protocols' messages here.
  void arrived(Context& ctx, Channel channel) override {
    const bool was_set_up = set_up();
    exchange_.arrived(ctx, channel, [&](const Message& m) {
      if (negotiation_.handles(m)) negotiation_.receive(ctx, m);
      else if (opt_.detection && detection_.handles(m)) detection_.receive(ctx, m);
    });
    if (!was_set_up && set_up()) begin_iteration(ctx);
    else advance(ctx);
  }

  void timer(Context& ctx, std::uint32_t tag) override {
    switch (tag) {
      case computed:
        end_iteration(ctx);
        break;
      case sent_after_pre:
        send_transfers(ctx);
        advance(ctx);
        break;
      case integrated_after_post:
        compute(ctx);
        break;
      default:
        break;
    }
  }

 private:
  enum class Phase { setup, reports, pre, transfers, post, computing, done };

  // initLBDetecConv and initLB done: the iterations may start (Algorithm 1, left).
  bool set_up() const { return negotiation_.done() && (!opt_.detection || detection_.tree_ready()); }

  bool dynamic() const { return opt_.workload.kind == Workload::Kind::dynamic; }

  bool balances_now() const {
    if (iteration_ != next_balance_) return false;
    const auto stop = detection_.stop_step();
    return !stop || static_cast<std::int64_t>(exchange_.step()) < *stop;
  }

  // Iterations until the next balancing step, after step t: lb_every, or under a dynamic load
  // with detection lb_every x 2^level, at most lb_every_max.
  std::uint64_t interval_after(std::int64_t t) const {
    std::uint64_t every = opt_.lb_every;
    if (opt_.detection && dynamic())
      for (std::uint32_t k = detection_.level_at(t); k > 0 && every < opt_.lb_every_max; --k) every *= 2;
    return std::min(std::max(every, opt_.lb_every), std::max(opt_.lb_every, opt_.lb_every_max));
  }

  void begin_iteration(Context& ctx) {
    iteration_start_ = ctx.now();
    if (iteration_ == opt_.iterations) {
      phase_ = Phase::done;
      ctx.finished();
      return;
    }
    balanced_iteration_ = balances_now();
    if (!balanced_iteration_) {
      compute(ctx);
      return;
    }
    phase_ = Phase::reports;  // getWj
    exchange_.report(ctx, opt_.control_bytes);
    advance(ctx);
  }

  void advance(Context& ctx) {
    if (phase_ == Phase::reports && exchange_.reports_in()) decide(ctx);
    if (phase_ == Phase::transfers && exchange_.transfers_in()) end_step(ctx);
  }

  // computeLij: M_r flows, filtered by cost/benefit; the shaker where nothing moves.
  void decide(Context& ctx) {
    const double wi = ctx.load(), ci = ctx.speed();
    const auto info = ctx.neighbors();
    // `left` falls by each amount as the engine's holdings will when the transfers are sent, in
    // the same order, so the last send never asks for a rounding error more than is held.
    double total = 0, left = wi;
    for (Port p = 0; p < sent_.size(); ++p) {
      const double wj = exchange_.reported(p), cj = info[p].speed;
      double l = std::max(0.0, mr_flow(negotiation_.out()[p], negotiation_.in()[p], wi, wj));
      if (ctx.integer_load()) l = std::floor(l);
      if (l > 0 && opt_.cost_benefit != CostBenefit::off &&
          !(exchange_cost(l, info[p].latency, info[p].bandwidth, opt_.bytes_per_unit, opt_.pre_cost, opt_.post_cost) <
            k_ * exchange_benefit(wi, ci, wj, cj, l, opt_.work_per_unit)))
        l = 0;
      if (opt_.shaker.kappa > 0) l = std::max(l, shaker_step(opt_.shaker, stuck_[p], l > 0, left, ci, wj, cj, ctx.rng()));
      l = std::min(l, left);
      sent_[p] = l;
      left -= l;
      total += l;
    }
    exchange_.decide(ctx, sent_);
    if (opt_.cost_benefit == CostBenefit::decreasing || opt_.cost_benefit == CostBenefit::adaptive) k_ = std::max(0.0, k_ - 1);
    phase_ = Phase::pre;
    if (total > 0 && opt_.pre_cost > 0) ctx.set_timer(opt_.pre_cost * total, sent_after_pre);
    else send_transfers(ctx);
  }

  // sendRecvLoad: one message per edge, so that the neighbour knows the step is complete.
  void send_transfers(Context& ctx) {
    exchange_.send(ctx, opt_.bytes_per_unit, opt_.control_bytes);
    phase_ = Phase::transfers;
  }

  void end_step(Context& ctx) {
    const auto t = static_cast<std::int64_t>(exchange_.step());
    const StepExchange::Moved moved = exchange_.end();
    if (moved.any) last_exchange_ = t;
    if (opt_.detection) detection_.after_step(ctx, t, last_exchange_);  // LBDetecConv
    next_balance_ = iteration_ + interval_after(t);
    phase_ = Phase::post;
    if (moved.received > 0 && opt_.post_cost > 0) ctx.set_timer(opt_.post_cost * moved.received, integrated_after_post);
    else compute(ctx);
  }

  // The application's job for this iteration.
  void compute(Context& ctx) {
    phase_ = Phase::computing;
    ctx.set_timer(ctx.load() * opt_.work_per_unit / ctx.speed(), computed);
  }

  // Sec. 4.2.2: the iteration time shows the slowest node's, as the program is synchronous; k
  // halves when it grows. Iterations are compared with the previous one of the same kind (with or
  // without a balancing step).
  void end_iteration(Context& ctx) {
    const double took = ctx.now() - iteration_start_;
    double& previous = balanced_iteration_ ? last_balanced_time_ : last_plain_time_;
    if (opt_.cost_benefit == CostBenefit::adaptive && previous >= 0 && took > previous) k_ /= 2;
    previous = took;
    if (dynamic()) ctx.add_load(opt_.workload.change(ctx.load(), ctx.rng(), ctx.integer_load()));
    ++iteration_;
    begin_iteration(ctx);
  }

  const IterativeApplicationOptions& opt_;
  RelativeSpeedNegotiation negotiation_;
  SpanningTreeDetection detection_;
  StepExchange exchange_;
  std::vector<double> sent_;   // per port, in the current step
  std::vector<double> stuck_;  // per port: the shaker's U_ij
  Phase phase_ = Phase::setup;
  std::uint64_t iteration_ = 0, next_balance_ = 0;
  std::int64_t last_exchange_ = -1;
  double k_, iteration_start_ = 0, last_balanced_time_ = -1, last_plain_time_ = -1;
  bool balanced_iteration_ = false;
};

}  // namespace

std::unique_ptr<Agent> IterativeApplication::make_agent(NodeId /*node*/) const { return std::make_unique<IterativeAgent>(opt_); }

}  // namespace nnlb
