#include "nnlb/protocol/tree_detection.hpp"

#include <algorithm>
#include <optional>

#include "nnlb/protocol/tags.hpp"

namespace nnlb {

namespace {
enum : std::uint32_t { explore_tag = protocol_tags::tree, accept_tag, reject_tag, report_tag, stop_tag, change_tag };
enum : std::int8_t { unknown = 0, tree_edge = 1, other_edge = 2 };
}  // namespace

void SpanningTreeDetection::start(Context& ctx, bool continuous) {
  continuous_ = continuous;
  state_.assign(ctx.degree(), unknown);
  sub_.assign(ctx.degree(), SubTree{});
  if (ctx.self() == 0) explore(ctx, no_port);
}

bool SpanningTreeDetection::handles(const Message& m) const { return m.tag >= explore_tag && m.tag <= change_tag; }

// The first explore: adopt its sender as parent, flood on.
void SpanningTreeDetection::explore(Context& ctx, Port parent) {
  explored_ = true;
  parent_ = parent;
  if (parent != no_port) {
    state_[parent] = tree_edge;
    ctx.send(parent, Channel::control, accept_tag, {}, control_bytes_);
  }
  for (Port p = 0; p < state_.size(); ++p)
    if (p != parent) {
      ctx.send(p, Channel::control, explore_tag, {}, control_bytes_);
      ++pending_;
    }
  if (pending_ == 0) settle_tree();
}

// Every explore answered: the tree edges are the parent's and the accepted ones.
void SpanningTreeDetection::settle_tree() {
  ready_ = true;
  for (Port p = 0; p < state_.size(); ++p)
    if (state_[p] == tree_edge) tree_.push_back(p);
}

void SpanningTreeDetection::receive(Context& ctx, const Message& m) {
  if (m.port == no_port) return;
  switch (m.tag) {
    case explore_tag:
      if (!explored_) explore(ctx, m.port);
      else ctx.send(m.port, Channel::control, reject_tag, {}, control_bytes_);
      break;
    case accept_tag:
    case reject_tag:
      state_[m.port] = m.tag == accept_tag ? tree_edge : other_edge;
      if (--pending_ == 0) settle_tree();
      break;
    case report_tag: {
      SubTree& s = sub_[m.port];
      s.heard = true;
      s.last_exchange = m.value[0], s.current = m.value[1], s.height = m.value[2];
      break;
    }
    case stop_tag:
      stop_at(ctx, m.value[0], m.port);
      break;
    case change_tag:
      change_at(ctx, {static_cast<std::int64_t>(m.value[0]), static_cast<std::uint32_t>(m.value[1]), m.value[2]}, m.port);
      break;
    default:
      break;
  }
}

// Takes the earliest stop step heard and passes it on down the tree (the two roots' broadcasts
// may differ by a step: every node keeps the smaller, which reaches all nodes first).
void SpanningTreeDetection::stop_at(Context& ctx, double step, Port from) {
  const auto s = static_cast<std::int64_t>(step);
  if (stop_ && *stop_ <= s) return;
  stop_ = s;
  for (Port p : tree_)
    if (p != from) ctx.send(p, Channel::control, stop_tag, {step, 0, 0}, control_bytes_);
}

void SpanningTreeDetection::change_at(Context& ctx, PhaseChange c, Port from) {
  auto at = std::lower_bound(changes_.begin(), changes_.end(), c.step, [](const PhaseChange& x, std::int64_t s) { return x.step < s; });
  if (at != changes_.end() && at->step == c.step) {
    if (c.level >= at->level) return;  // known, or loses the tie
    *at = c;
  } else {
    changes_.insert(at, c);
  }
  for (Port p : tree_)
    if (p != from)
      ctx.send(p, Channel::control, change_tag, {static_cast<double>(c.step), static_cast<double>(c.level), c.basis}, control_bytes_);
}

std::uint32_t SpanningTreeDetection::level_at(std::int64_t t) const {
  for (auto it = changes_.rbegin(); it != changes_.rend(); ++it)
    if (it->step <= t) return it->level;
  return 0;
}

void SpanningTreeDetection::decide_phase(Context& ctx, std::int64_t t, double last_all, double current_all, double height_all) {
  const PhaseChange last = changes_.empty() ? PhaseChange{} : changes_.back();
  if (t < last.step) return;  // a change still on its way: wait until it is in force everywhere
  std::optional<std::uint32_t> level;
  if (last.level > 0 && last_all > last.basis) level = 0;                                // load moved again
  else if (current_all > last_all && current_all > last.basis) level = last.level + 1;  // a quiet step since
  if (!level) return;
  if (*level > 0) {
    detected_ = t;
    ctx.detected_termination();
  }
  change_at(ctx, {t + static_cast<std::int64_t>(height_all) + 1, *level, current_all}, no_port);
}

void SpanningTreeDetection::after_step(Context& ctx, std::int64_t t, std::int64_t last_exchange) {
  if (!ready_ || stop_) return;
  std::uint32_t heard = 0;
  Port silent = no_port;
  for (Port p : tree_) {
    if (sub_[p].heard) ++heard;
    else silent = p;
  }
  if (father_ == no_port && heard + 1 == tree_.size()) father_ = silent;
  root_ = heard == tree_.size();
  // The sub-tree's state, without the father's report (in the two-root case each root is the
  // other's father and child).
  double last = static_cast<double>(last_exchange), current = static_cast<double>(t), height = 0;
  double last_all = last, current_all = current, height_all = 0;
  for (Port p : tree_) {
    const SubTree& s = sub_[p];
    if (!s.heard) continue;
    last_all = std::max(last_all, s.last_exchange);
    current_all = std::min(current_all, s.current);
    height_all = std::max(height_all, s.height + 1);
    if (p == father_) continue;
    last = std::max(last, s.last_exchange);
    current = std::min(current, s.current);
    height = std::max(height, s.height + 1);
  }
  if (father_ != no_port) ctx.send(father_, Channel::control, report_tag, {last, current, height}, control_bytes_);
  if (root_ && continuous_) {
    decide_phase(ctx, t, last_all, current_all, height_all);
    return;
  }
  if (root_ && current_all > last_all) {
    detected_ = t;
    ctx.detected_termination();
    stop_at(ctx, static_cast<double>(t) + height_all + 1, no_port);
  }
}

}  // namespace nnlb
