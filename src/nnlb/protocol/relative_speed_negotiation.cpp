#include "nnlb/protocol/relative_speed_negotiation.hpp"

#include "nnlb/policy/relative_speed.hpp"
#include "nnlb/protocol/tags.hpp"

namespace nnlb {

namespace {
enum : std::uint32_t { speed_tag = protocol_tags::negotiation, proposal_tag };
}

void RelativeSpeedNegotiation::start(Context& ctx) {
  const std::uint32_t d = ctx.degree();
  speed_.assign(d, 0), out_.assign(d, 0), in_.assign(d, 0), proposal_.assign(d, 0);
  has_speed_.assign(d, 0), has_answer_.assign(d, 0);
  if (d == 0) {
    done_ = true;
    return;
  }
  for (Port p = 0; p < d; ++p) ctx.send(p, Channel::control, speed_tag, {ctx.speed(), 0, 0}, control_bytes_);
}

bool RelativeSpeedNegotiation::handles(const Message& m) const { return m.tag == speed_tag || m.tag == proposal_tag; }

void RelativeSpeedNegotiation::receive(Context& ctx, const Message& m) {
  if (m.port == no_port) return;
  if (m.tag == speed_tag) {
    if (!has_speed_[m.port]) ++speeds_;
    has_speed_[m.port] = 1;
    speed_[m.port] = m.value[0];
    if (speeds_ == speed_.size()) propose(ctx);
    return;
  }
  // The neighbour's proposal RMr_ji; it may come before our own speeds are all in.
  if (!has_answer_[m.port]) ++answers_;
  has_answer_[m.port] = 1;
  proposal_[m.port] = m.value[0];
  if (proposed_) settle(m.port);
  done_ = proposed_ && answers_ == speed_.size();
}

// Keeps the smaller proposal (Algorithm 1, right, last loop).
void RelativeSpeedNegotiation::settle(Port p) {
  const double rmr_ji = proposal_[p];
  if (rmr_ji < in_[p]) {
    out_[p] = rmr_ji * out_[p] / in_[p];
    in_[p] = rmr_ji;
  }
}

void RelativeSpeedNegotiation::propose(Context& ctx) {
  const double ci = ctx.speed();
  const double delta = mr_delta(ci, speed_, self_term_);
  for (Port p = 0; p < speed_.size(); ++p) {
    out_[p] = delta * relative_speed(ci, speed_[p]);  // Mr_ij
    in_[p] = delta * relative_speed(speed_[p], ci);   // Mr_ji as i would set it
    ctx.send(p, Channel::control, proposal_tag, {out_[p], 0, 0}, control_bytes_);
  }
  proposed_ = true;
  for (Port p = 0; p < speed_.size(); ++p)
    if (has_answer_[p]) settle(p);
  done_ = answers_ == speed_.size();
}

}  // namespace nnlb
