#pragma once
// A balancing policy is a decision rule over one node's local view (Xu et al. 1995, Eq. 1: the
// operator f_i). It never sends messages, reads clocks or draws from a global random source: the
// engine that owns time and messages builds the view, runs `decide`, and carries out the
// transfers. The same policy object therefore runs in the synchronous engine, the discrete-event
// engine, SimGrid and MPI.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

// What node i knows about one neighbour j.
struct NeighborState {
  NodeId id = 0;
  std::uint32_t degree = 0;  // d(j), known from set-up (Boillat's choice needs it)
  double load = 0;           // x^i_j: the last load i heard of (exact in the synchronous engine)
  double speed = 1;          // C_j
  double last_flow = 0;      // net load i sent to j in i's previous balancing step (< 0: received)
  double* memory = nullptr;  // Policy::edge_memory() doubles owned by i for this edge, or nullptr
  double delta = 0;          // delta_j of relative-speed diffusion as j reported it (0: not heard)
};

struct LocalView {
  NodeId self = 0;
  std::uint32_t degree = 0;  // d(i) in the whole graph
  double load = 0;           // w_i (integer loads are exact in a double up to 2^53)
  double speed = 1;          // C_i
  std::uint64_t step = 0;    // the caller's balancing step counter at this node
  // The neighbours this decision may act on: all of them for neighbourhood policies, the
  // current partner for pairwise ones, those on active edges under threshold invocation.
  std::span<NeighborState> neighbors;
  Rng* rng = nullptr;        // this node's stream, for randomized policies
};

// Load to move from the deciding node to neighbors[neighbor]; amount > 0.
struct Transfer {
  std::uint32_t neighbor = 0;
  double amount = 0;
};

// A linear policy's per-edge flow rule: the synchronous engine runs it as fused sweeps over the CSR
// arrays (the per-node path gives the same result) and the spectral analysis reads its operator.
// Flow on edge (i, j) at step t: y_ij = beta * alpha_ij * (w_i - w_j) + (beta - 1) * y_ij(t-1),
// with beta = 1 for first-order schemes (FOS) and beta in (1, 2) for SOS.
// Relative-speed diffusion (Jeannot & Vernier 2006) has per-edge coefficients instead:
// y_ij = M_r,ij w_i - M_r,ji w_j (relative_speed.hpp).
struct RelativeSpeedMatrix;
struct LinearForm {
  enum class AlphaRule { uniform, boillat, relative } rule = AlphaRule::uniform;
  double alpha = 0;  // for AlphaRule::uniform
  double beta = 1;   // 1 for FOS
  std::shared_ptr<const RelativeSpeedMatrix> relative;  // for AlphaRule::relative
  double alpha_ij(std::uint32_t di, std::uint32_t dj) const {
    return rule == AlphaRule::uniform ? alpha : 1.0 / (1.0 + static_cast<double>(di > dj ? di : dj));
  }
};

// How a policy's decisions are scheduled by a synchronous engine.
enum class Pairing {
  neighborhood,  // balance with all (active) neighbours at once: diffusion
  matching,      // balance with one partner per step, pairs from an edge colouring: dimension exchange
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  virtual Pairing pairing() const { return Pairing::neighborhood; }
  // Doubles of per-edge memory each node keeps for each of its edges (0 = none).
  virtual std::uint32_t edge_memory() const { return 0; }
  // Whether NeighborState::last_flow must be the net flow over the edge in the previous
  // synchronous step (SOS's memory); node programs without synchronous steps refuse such a policy.
  virtual bool needs_net_flow() const { return false; }
  // Whether decide() reads NeighborState::last_flow at all: a node program keeps each port's flow
  // from one step to the next only for such a policy (at a million nodes, 8 bytes a port add up).
  virtual bool reads_last_flow() const { return true; }
  // FOS and SOS: their flow rule (Policy::decide gives the same flows edge by edge).
  virtual std::optional<LinearForm> linear_form() const { return std::nullopt; }
  // Dimension exchange: lambda of Xu et al. Eq. 2.
  virtual std::optional<double> exchange_lambda() const { return std::nullopt; }
  // Relative-speed diffusion on speeds reported at run time (Jeannot & Vernier 2006, sec. 3.2):
  // the delta_i node i tells its neighbours with its speed C_i, from C_i and its neighbours'
  // speeds; they see it as NeighborState::delta (protocol/speed_reports.hpp). nullopt (for any
  // arguments): the policy needs none, and nothing is sent.
  virtual std::optional<double> reported_delta(double /*speed*/, std::span<const double> /*neighbor_speeds*/) const {
    return std::nullopt;
  }
  // Appends the transfers node view.self makes now. Must only depend on the view (and its rng).
  // Thread-safe: one policy object serves all nodes concurrently.
  virtual void decide(const LocalView& view, std::vector<Transfer>& out) const = 0;
};



}  // namespace nnlb
