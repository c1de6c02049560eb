#pragma once
// Synchronous balancing steps as messages (Xu et al. 1995, Eq. 1; the sendRecvLoad step of
// Jeannot & Vernier's Algorithm 1): in step t every node sends its load to every neighbour,
// waits for all their reports, runs the policy on exact loads, sends each neighbour its transfer
// (possibly zero, so the neighbour knows the step is complete), and takes all transfers before
// reporting again. No node needs a clock: steps are counted by messages, so the program runs in
// the rounds engine (a step every two rounds) and over links with any latency. The net flow over
// an edge in the previous step is known at both ends (SOS's memory); dimension exchange pairs by
// the edge colouring, colour t mod colors in step t.
#include <cstdint>

#include "nnlb/node/agent.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

struct RoundBalancerOptions {
  std::uint64_t steps = 0;      // stop after this many steps (0: never; the engine's rule stops the run)
  std::uint32_t colors = 0;     // dimension exchange: colours of the edge colouring
  double control_bytes = 64;    // size of a report
  double bytes_per_unit = 0;    // size of a transfer per load unit
};

class RoundBalancer final : public Program {
 public:
  // Throws InputError when a matching policy comes without `colors`.
  RoundBalancer(const Policy& policy, RoundBalancerOptions options);
  std::string name() const override { return "rounds"; }
  std::unique_ptr<Agent> make_agent(NodeId node) const override;
  ProgramNeeds needs() const override {
    return {.edge_coloring = policy_.pairing() == Pairing::matching, .overdraft = policy_.needs_net_flow()};
  }

 private:
  const Policy& policy_;
  RoundBalancerOptions opt_;
};

}  // namespace nnlb
