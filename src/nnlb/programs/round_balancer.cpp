#include "nnlb/programs/round_balancer.hpp"

#include "nnlb/programs/policy_step.hpp"
#include "nnlb/programs/step_exchange.hpp"

#include <cmath>
#include <vector>

#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

class RoundAgent final : public Agent {
 public:
  RoundAgent(const Policy& policy, const RoundBalancerOptions& opt) : policy_(policy), opt_(opt) {}

  void start(Context& ctx) override {
    exchange_.start(ctx.degree());
    sent_.assign(ctx.degree(), 0.0);
    memory_.assign(std::size_t{ctx.degree()} * policy_.edge_memory(), 0.0);
    exchange_.report(ctx, opt_.control_bytes);
  }

  void arrived(Context& ctx, Channel channel) override {
    exchange_.arrived(ctx, channel, [](const Message&) {});
    advance(ctx);
  }

 private:
  // Moves on as far as the messages received allow: decide once every report of this step is
  // in, report again once every transfer of this step is in.
  void advance(Context& ctx) {
    if (exchange_.reports_in()) decide(ctx);
    if (exchange_.transfers_in()) {
      exchange_.end();
      if (opt_.steps == 0 || exchange_.step() < opt_.steps) exchange_.report(ctx, opt_.control_bytes);
    }
  }

  void decide(Context& ctx) {
    const auto transfers = decide_transfers(
        policy_, ctx, ctx.load(), exchange_.step(), opt_.colors, memory_, [&](Port p) { return exchange_.reported(p); },
        [&](Port p) { return exchange_.net_flow(p); });
    std::fill(sent_.begin(), sent_.end(), 0.0);
    for (const Transfer& t : transfers)
      if (t.amount > 0) sent_[t.neighbor] += t.amount;
    exchange_.decide(ctx, sent_);
    exchange_.send(ctx, opt_.bytes_per_unit, 0);
  }

  const Policy& policy_;
  const RoundBalancerOptions& opt_;
  StepExchange exchange_;
  std::vector<double> sent_;  // per port, in the current step
  std::vector<double> memory_;
};

}  // namespace

RoundBalancer::RoundBalancer(const Policy& policy, RoundBalancerOptions options) : policy_(policy), opt_(options) {
  if (policy.pairing() == Pairing::matching && options.colors == 0)
    throw InputError({}, "algorithm", "'" + policy.name() + "' pairs neighbours by an edge colouring, and none was given");
}

std::unique_ptr<Agent> RoundBalancer::make_agent(NodeId /*node*/) const { return std::make_unique<RoundAgent>(policy_, opt_); }

}  // namespace nnlb
