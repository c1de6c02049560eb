#include "nnlb/programs/round_balancer.hpp"

#include "nnlb/programs/policy_step.hpp"

#include <cmath>
#include <vector>

#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

enum Tag : std::uint32_t { report_tag, transfer_tag };

struct EdgeState {
  double reported = 0;        // the neighbour's load in its latest report
  std::uint64_t reports = 0;  // reports received from it
  std::uint64_t transfers = 0;
  double sent = 0, received = 0;  // in the current step
  double net_flow = 0;            // sent - received in the previous step
};

class RoundAgent final : public Agent {
 public:
  RoundAgent(const Policy& policy, const RoundBalancerOptions& opt) : policy_(policy), opt_(opt) {}

  void start(Context& ctx) override {
    edges_.assign(ctx.degree(), EdgeState{});
    memory_.assign(std::size_t{ctx.degree()} * policy_.edge_memory(), 0.0);
    report(ctx);
  }

  void arrived(Context& ctx, Channel channel) override {
    for (const Message& m : ctx.take(channel)) {
      if (m.port == no_port) continue;  // load sent back after a neighbour left: kept, not part of a step
      EdgeState& e = edges_[m.port];
      if (m.tag == report_tag) {
        e.reported = m.value[0];
        ++e.reports;
      } else {
        e.received += m.load;
        ++e.transfers;
      }
    }
    advance(ctx);
  }

 private:
  void report(Context& ctx) {
    for (Port p = 0; p < edges_.size(); ++p) ctx.send(p, Channel::control, report_tag, {ctx.load(), 0, 0}, opt_.control_bytes);
  }

  bool all(std::uint64_t EdgeState::*counter, std::uint64_t needed) const {
    for (const EdgeState& e : edges_)
      if (e.*counter < needed) return false;
    return true;
  }

  // Moves on as far as the messages received allow: decide once every report of this step is
  // in, report again once every transfer of this step is in.
  void advance(Context& ctx) {
    if (!deciding_ && all(&EdgeState::reports, step_ + 1)) {
      decide(ctx);
      deciding_ = true;
    }
    if (deciding_ && all(&EdgeState::transfers, step_ + 1)) {
      for (EdgeState& e : edges_) {
        e.net_flow = e.sent - e.received;
        e.sent = e.received = 0;
      }
      deciding_ = false;
      ++step_;
      if (opt_.steps == 0 || step_ < opt_.steps) report(ctx);
    }
  }

  void decide(Context& ctx) {
    const auto transfers = decide_transfers(
        policy_, ctx, ctx.load(), step_, opt_.colors, memory_, [&](Port p) { return edges_[p].reported; },
        [&](Port p) { return edges_[p].net_flow; });
    for (const Transfer& t : transfers)
      if (t.amount > 0) edges_[t.neighbor].sent += t.amount;
    for (Port p = 0; p < edges_.size(); ++p)
      ctx.send(p, Channel::data, transfer_tag, {}, edges_[p].sent * opt_.bytes_per_unit, {.load = edges_[p].sent});
  }

  const Policy& policy_;
  const RoundBalancerOptions& opt_;
  std::vector<EdgeState> edges_;
  std::vector<double> memory_;
  std::uint64_t step_ = 0;
  bool deciding_ = false;  // transfers of this step sent, waiting for the neighbours'
};

}  // namespace

RoundBalancer::RoundBalancer(const Policy& policy, RoundBalancerOptions options) : policy_(policy), opt_(options) {
  if (policy.pairing() == Pairing::matching && options.colors == 0)
    throw InputError({}, "algorithm", "'" + policy.name() + "' pairs neighbours by an edge colouring, and none was given");
}

std::unique_ptr<Agent> RoundBalancer::make_agent(NodeId /*node*/) const { return std::make_unique<RoundAgent>(policy_, opt_); }

}  // namespace nnlb
