#include "nnlb/protocol/speed_reports.hpp"

#include <cmath>

#include "nnlb/protocol/tags.hpp"

namespace nnlb {

bool SpeedReports::handles(const Message& m) const { return m.tag == protocol_tags::speed; }

void SpeedReports::receive(const Message& m) {
  if (m.port == no_port || m.port >= neighbors_.size()) return;
  if (!(m.value[0] > 0 && std::isfinite(m.value[0]) && m.value[1] > 0 && std::isfinite(m.value[1]))) return;  // not a speed
  neighbors_[m.port] = {m.value[0], m.value[1]};
}

void SpeedReports::announce(Context& ctx, const Policy& policy, double control_bytes) {
  if (!active_) return;  // a policy without a delta (the hot path of every other one)
  speeds_.clear();
  const auto infos = ctx.neighbors();
  for (Port p = 0; p < neighbors_.size(); ++p) speeds_.push_back(speed(p, infos[p].speed));
  const double ci = ctx.speed();
  const auto delta = policy.reported_delta(ci, speeds_);
  if (!delta || (ci == told_speed_ && *delta == told_delta_)) return;
  told_speed_ = ci, told_delta_ = *delta;
  for (Port p = 0; p < neighbors_.size(); ++p) ctx.send(p, Channel::control, protocol_tags::speed, {ci, *delta, 0}, control_bytes);
}

}  // namespace nnlb
