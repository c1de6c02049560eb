#pragma once
// Jeannot & Vernier 2006, Algorithm 1 (left): a synchronous iterative application with diffusion
// balancing. Set-up: the relative-speed matrix M_r by negotiation (initLB, Algorithm 1 right) and
// the spanning tree of the convergence detection (initLBDetecConv). Then `iterations` times:
// every `lb_every` iterations a balancing step — getWj (loads to and from every neighbour),
// computeLij (M_r flows, the cost/benefit filter of sec. 3.1, the shaker of sec. 3.3.1),
// sendRecvLoad (one transfer message per edge, possibly empty), LBDetecConv (sec. 3.3.2) — and the
// application's job, computing w_i * work_per_unit / C_i seconds. Balancing steps synchronize
// neighbours; the run's time is when the last node ends its last iteration.
//
// Static load: the detection stops balancing. Dynamic load (a Workload applied after every
// iteration): the detection runs continuously and sets how often the nodes balance, every
// lb_every x 2^level iterations (at most lb_every_max), the level rising with each globally quiet
// phase and falling to 0 when load moves again (sec. 3.3.2, last paragraph).
#include <cstdint>
#include <string>

#include "nnlb/node/agent.hpp"
#include "nnlb/model/workload.hpp"
#include "nnlb/policy/shaker.hpp"

namespace nnlb {

// How k, the number of iterations over which an exchange's benefit counts, evolves (sec. 3.1,
// 4.2.2): fixed; k(t+1) = k(t) - 1 per balancing step; or decreasing and halved whenever the
// node's iteration got slower than the previous one.
enum class CostBenefit { off, constant, decreasing, adaptive };

struct IterativeApplicationOptions {
  std::uint64_t iterations = 1000;
  std::uint64_t lb_every = 1;      // a balancing step before iterations 0, s, 2s, ...
  double work_per_unit = 1e6;      // flop per load unit and iteration
  double bytes_per_unit = 1250;    // transfer size per load unit
  double control_bytes = 64;       // a load report, an empty transfer
  double pre_cost = 0;             // PreExcCost per unit sent (s)
  double post_cost = 0;            // PostExcCost per unit received (s)
  CostBenefit cost_benefit = CostBenefit::off;
  double k0 = 1000;                // k(0)
  bool detection = false;          // stop balancing when the spanning tree detects convergence
  bool mr_self = false;            // M_r with the self term
  Shaker shaker;                   // kappa 0: no shaker
  Workload workload;               // load created and consumed by each iteration (fixed: none)
  std::uint64_t lb_every_max = 64; // dynamic load with detection: the longest interval between steps
};

class IterativeApplication final : public Program {
 public:
  explicit IterativeApplication(IterativeApplicationOptions options) : opt_(options) {}
  std::string name() const override { return "iterative"; }
  std::unique_ptr<Agent> make_agent(NodeId node) const override;

 private:
  IterativeApplicationOptions opt_;
};

// Eq. 4: the time node i (holding w_i, computing at speed c_i) saves in one iteration by sending
// l units to j, with Cmp(w, n) = w * work / C_n.
double exchange_benefit(double wi, double ci, double wj, double cj, double l, double work_per_unit);
// Sec. 3.1: PreExcCost + Lat_ij + |L| / Bw_ij + PostExcCost for l units.
double exchange_cost(double l, double latency, double bandwidth, double bytes_per_unit, double pre, double post);

}  // namespace nnlb
