#include "nnlb/model/churn.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "nnlb/util/error.hpp"

namespace nnlb {

Churn::Churn(const Graph& hosts, double half_life, std::vector<ChurnEvent> scripted, Rng rng, bool repair)
    : net_(hosts), rng_(rng), leave_p_(half_life > 0 ? 1 - std::exp2(-1 / half_life) : 0.0), events_(std::move(scripted)), repair_(repair) {
  std::stable_sort(events_.begin(), events_.end(), [](const ChurnEvent& a, const ChurnEvent& b) { return a.time < b.time; });
}

const std::vector<GraphChange>& Churn::step(std::uint64_t step) {
  changes_.clear();
  const auto t = static_cast<double>(step);
  if (leave_p_ > 0)
    for (NodeId h : net_.live_hosts())
      if (rng_.uniform() < leave_p_ && net_.size() > 1) {
        leave(h, t);
        enter(t);
      }
  while (next_ < events_.size() && events_[next_].time <= t) {
    const ChurnEvent& e = events_[next_++];
    if (e.kind == ChurnEvent::Kind::enter) {
      enter(t);
    } else if (e.host != ChurnEvent::any) {
      if (e.host >= net_.slots() || !net_.alive(e.host) || net_.size() == 1)
        throw InputError({}, "churn.events", "host " + std::to_string(e.host) + " cannot leave at t = " + std::to_string(t) +
                                                 (e.host < net_.slots() && net_.alive(e.host) ? ": it is the last one" : ": it is not in the network"));
      leave(e.host, t);
    } else if (net_.size() > 1) {
      leave(net_.random_host(rng_, net_.slots()), t);
    }
  }
  if (!changes_.empty()) {  // only a change can split or join parts
    if (repair_) repair();
    partitioned_ = !net_.connected();
  }
  partitioned_steps_ += partitioned_;
  return changes_;
}

void Churn::repair() {
  const auto parts = net_.components();
  if (parts.size() < 2) return;
  const auto largest = std::max_element(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
  for (auto p = parts.begin(); p != parts.end(); ++p)
    if (p != largest) {
      net_.rejoin(p->front(), *largest, rng_);
      ++repairs_;
    }
}

void Churn::leave(NodeId h, double t) {
  GraphChange c{GraphChange::Kind::leave, t, h, {}};
  for (NodeId j : net_.leave(h))
    if (net_.alive(j)) c.peers.push_back(j);
  changes_.push_back(std::move(c));
}

void Churn::enter(double t) {
  const NodeId h = net_.enter(rng_);
  const auto peers = net_.neighbors(h);
  changes_.push_back({GraphChange::Kind::join, t, h, {peers.begin(), peers.end()}});
}

}  // namespace nnlb
