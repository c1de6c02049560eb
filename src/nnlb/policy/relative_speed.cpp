#include "nnlb/policy/relative_speed.hpp"

#include <algorithm>

namespace nnlb {

double mr_delta(double ci, std::span<const double> neighbor_speeds, bool self_term) {
  double sum = self_term ? 0.5 : 0.0;  // C_r,ii = C_i / (2 C_i)
  for (double cj : neighbor_speeds) sum += relative_speed(ci, cj);
  return sum > 0 ? 1.0 / sum : 0.0;  // an isolated node keeps its load
}

RelativeSpeedMatrix relative_speed_matrix(const Graph& g, std::span<const double> speed, bool self_term) {
  const NodeId n = g.num_nodes();
  RelativeSpeedMatrix m;
  m.self_term = self_term;
  m.speed.resize(n);
  for (NodeId i = 0; i < n; ++i) m.speed[i] = speed.size() == 1 ? speed[0] : speed[i];
  std::vector<double> delta(n), nb;
  for (NodeId i = 0; i < n; ++i) {
    nb.clear();
    for (NodeId j : g.neighbors(i)) nb.push_back(m.speed[j]);
    delta[i] = mr_delta(m.speed[i], nb, self_term);
  }
  m.out.resize(g.num_slots());
  m.in.resize(g.num_slots());
  for (NodeId i = 0; i < n; ++i)
    for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
      const NodeId j = g.target(s);
      m.out[s] = mr_coefficient(m.speed[i], m.speed[j], delta[i], delta[j]);
      m.in[s] = mr_coefficient(m.speed[j], m.speed[i], delta[j], delta[i]);
    }
  return m;
}

RelativeSpeedDiffusion::RelativeSpeedDiffusion(const Graph& g, std::shared_ptr<const RelativeSpeedMatrix> mr, Shaker shaker)
    : g_(&g), mr_(std::move(mr)), self_term_(mr_->self_term), shaker_(shaker) {}

RelativeSpeedDiffusion::RelativeSpeedDiffusion(bool self_term, Shaker shaker) : self_term_(self_term), shaker_(shaker) {}

std::optional<LinearForm> RelativeSpeedDiffusion::linear_form() const {
  if (shaker_.kappa || !mr_) return std::nullopt;  // random moves, or coefficients known only at run time
  LinearForm f;
  f.rule = LinearForm::AlphaRule::relative;
  f.relative = mr_;
  return f;
}

std::optional<double> RelativeSpeedDiffusion::reported_delta(double speed, std::span<const double> neighbor_speeds) const {
  if (mr_) return std::nullopt;
  return mr_delta(speed, neighbor_speeds, self_term_);
}

void RelativeSpeedDiffusion::transfer(const LocalView& view, std::uint32_t k, double flow, std::vector<Transfer>& out) const {
  const NeighborState& nb = view.neighbors[k];
  if (!shaker_.kappa) {
    if (flow > 0) out.push_back({k, flow});
  } else if (const double moved = shaker_step(shaker_, nb.memory[0], flow >= 1, view.load, view.speed, nb.load, nb.speed, *view.rng);
             flow >= 1 || moved > 0) {
    out.push_back({k, flow >= 1 ? flow : moved});
  }
}

void RelativeSpeedDiffusion::decide(const LocalView& view, std::vector<Transfer>& out) const {
  if (!mr_) {
    thread_local std::vector<double> speeds;
    speeds.clear();
    for (const NeighborState& nb : view.neighbors) speeds.push_back(nb.speed);
    const double ci = view.speed, delta_i = mr_delta(ci, speeds, self_term_);
    for (std::uint32_t k = 0; k < view.neighbors.size(); ++k) {
      const NeighborState& nb = view.neighbors[k];
      const double delta_j = nb.delta > 0 ? nb.delta : delta_i;
      transfer(view, k, mr_flow(mr_coefficient(ci, nb.speed, delta_i, delta_j), mr_coefficient(nb.speed, ci, delta_j, delta_i), view.load, nb.load),
               out);
    }
    return;
  }
  const auto adjacent = g_->neighbors(view.self);
  for (std::uint32_t k = 0; k < view.neighbors.size(); ++k) {
    const NeighborState& nb = view.neighbors[k];
    const auto it = std::lower_bound(adjacent.begin(), adjacent.end(), nb.id);
    if (it == adjacent.end() || *it != nb.id) continue;  // a neighbour that joined later: no coefficient negotiated
    const Slot s = g_->first_slot(view.self) + static_cast<Slot>(it - adjacent.begin());
    transfer(view, k, mr_flow(mr_->out[s], mr_->in[s], view.load, nb.load), out);
  }
}

}  // namespace nnlb
