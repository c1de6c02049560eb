#pragma once
// The asynchronous balancing node program of Couturier, Giersch & Hakem sec. 6.1, running any
// Policy unchanged. Each node runs
//   computing - takes the received load, sends what the balancer decided (at most what it
//               holds), computes for load * flops_per_unit / speed (at least comp_min_period),
//               or waits for data when it holds none;
//   balancing - reads the control messages that have arrived, builds the LocalView (its
//               decision load and the known loads of its neighbours), runs the policy, sends a
//               control message to every neighbour, sleeps lb_period.
// The receiver process is the engine's mailbox: data arrivals wake a waiting computing process;
// control messages are read when the balancing process takes them (no event each).
//
// Items (an application's work items): the node balances the weight of the items it holds (its
// divisible load counts but stays: work pinned to it) and a decision ships whole items at once,
// those `choose` picks (programs/item_choice.hpp). Without the computing process (`computing`
// false: the application computes, as in the MPI library), arrivals are taken as they land.
//
// Knowledge of a neighbour's load is its last report plus what this node committed to it that
// the report had not counted yet (each control message carries the cumulative amount its sender
// has counted from the receiver). Virtual load (sec. 6): a control message also announces the
// load just committed to the receiver, which counts it as its own before it arrives.
#include <cstdint>

#include "nnlb/node/agent.hpp"
#include "nnlb/programs/item_choice.hpp"
#include "nnlb/policy/policy.hpp"
#include "nnlb/protocol/tree_detection.hpp"

namespace nnlb {

struct AsyncBalancerOptions {
  double flops_per_unit = 1e5;    // computation per load unit and iteration
  double bytes_per_unit = 1250;   // data message bytes per load unit
  double control_bytes = 64;      // size of a control message
  double lb_period = 1e-3;        // period of the balancing process (s); infinite: steps on demand only (balance_timer)
  double comp_min_period = 1e-4;  // minimum period of the computing process (s)
  bool virtual_load = false;
  // Dimension exchange: in its k-th step a node balances with the neighbour whose edge has
  // colour k mod colors (NeighborInfo::color); nodes without such an edge skip the step.
  std::uint32_t colors = 0;
  // Choices the paper leaves open (docs/reproductions/couturier.md measures their effect):
  bool compute_first = false;     // at t = 0 the computing process runs before the balancing one
  bool stagger = false;           // balancing processes start at a random offset in [0, lb_period)
  bool initial_knowledge = true;  // a node starts knowing its neighbours' loads (else 0 until reports)
  // > 0: the computing process works in slices of at most this many seconds and ships decided
  // load between slices (a runtime that polls while it computes); 0: an iteration is atomic.
  double compute_chunk = 0;
  bool items = false;     // balance items by weight, ship whole items (else divisible load)
  bool computing = true;  // run the computing process (false: balancing only)
  ItemChoice choose{};    // which items carry a transfer (items); empty: heaviest_fit
  // Jeannot & Vernier sec. 3.3.2's detection on a spanning tree (protocol/tree_detection.hpp),
  // over the balancing steps: `stop` ends every node's decisions at the same step once a whole
  // step was quiet everywhere; `continuous` keeps watching and takes a step only every 2^level-th
  // time the balancing process runs (at most every `quiet_every_max`-th), the level rising with
  // each quiet phase and back to 0 when load moves again. Exact when each node's k-th step sees
  // all that its neighbours sent in their (k-1)-th (loosely-synchronous steps, or a period well
  // above the links' delay); otherwise a step may look quiet with load still on a wire.
  Detection detection = Detection::off;
  std::uint64_t quiet_every_max = 64;
};

class AsyncBalancer final : public Program {
 public:
  // Throws InputError when the policy needs what this program cannot give (SOS's net flow of a
  // synchronous step; an edge colouring without `colors`).
  AsyncBalancer(const Policy& policy, AsyncBalancerOptions options);
  std::string name() const override { return "async"; }
  std::unique_ptr<Agent> make_agent(NodeId node) const override;
  bool notifies(Channel channel) const override { return channel == Channel::data; }
  ProgramNeeds needs() const override { return {.edge_coloring = policy_.pairing() == Pairing::matching, .items = opt_.items}; }
  // The timer tag of the balancing process: an engine that balances on demand (the MPI
  // library's balance()) may call Agent::timer with it.
  static constexpr std::uint32_t balance_timer = 1;
  // What one of this program's agents tells its owner: balancing steps taken, whether the
  // detection stopped them (Detection::stop), and the quiet level in force (continuous).
  struct Status {
    std::uint64_t steps = 0;
    bool stopped = false;
    std::uint32_t quiet_level = 0;
  };
  static Status status(const Agent& agent);
  const Policy& policy() const { return policy_; }
  const AsyncBalancerOptions& options() const { return opt_; }

 private:
  const Policy& policy_;
  AsyncBalancerOptions opt_;
};

}  // namespace nnlb
