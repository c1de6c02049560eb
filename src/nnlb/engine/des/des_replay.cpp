// An application's load trace replayed on the discrete-event run (engine/core/load_trace.hpp): its
// items change weight wherever they are, new items appear on their rank's node, a rank's balancing
// step fires on its node, and the notes say when the loads were first balanced at a step.
#include <algorithm>
#include <string>
#include <vector>

#include "nnlb/engine/core/balance.hpp"
#include "nnlb/engine/core/trace_replay.hpp"
#include "nnlb/engine/des/des_run.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb::des {

void DesRun::replay(std::size_t k) {
  const TraceAction& a = opt_.trace->actions[k];
  if (a.rank >= driver_.size() || !driver_.alive(a.rank)) throw InputError({}, "load.trace", "the trace names rank " + std::to_string(a.rank) + ", not a node of the run");
  if (a.kind == TraceAction::Kind::step) {
    replayed_[a.rank].push_back({now_, driver_.node(a.rank).held()});
    call(a.rank, [&](Agent& ag) { ag.timer(ctx_, opt_.trace_step_tag); });
    return;
  }
  if (a.kind == TraceAction::Kind::add) {
    for (const Item& it : a.items) driver_.node(a.rank).add(it), driver_.ledger().add_item(it);
  } else {
    reweigh_everywhere(a.items);
  }
  driver_.refresh_band(now_);
}

// New weights for the named items wherever they are: held, in hand, on a wire or in a mailbox.
void DesRun::reweigh_everywhere(std::span<const Item> changes) {
  Reweighing to;
  for (const Item& it : changes) to[it.id] = it.weight;
  double delta = 0;
  for (NodeId i = 0; i < driver_.size(); ++i) {
    DesNode& n = driver_.node(i);
    const double d = reweigh(n.items, to);
    n.item_weight += d, delta += d;
    if (n.in_hand().item) delta += reweigh(std::span<Item>(&*n.hand().item, 1), to);
  }
  for_each_held([&](double, std::uint32_t label) {
    if (label & stored_label) delta += reweigh(cargo_[label & ~stored_label].items, to);
  });
  driver_.ledger().reweigh(delta);
}

// The notes of a replay: the first step at which the loads were balanced, recorded and replayed.
void DesRun::note_replay() {
  const BalanceRule rule{opt_.band, std::max(driver_.rule().grain, opt_.trace->heaviest)};
  auto note = [&](const std::string& who, const std::vector<std::vector<StepSnapshot>>& steps) {
    if (const auto b = first_balanced_step(steps, rule)) {
      driver_.tally().note(who + "_balanced_at", b->time);
      driver_.tally().note(who + "_balanced_step", static_cast<double>(b->step));
    }
  };
  note("trace", opt_.trace->steps);
  note("replay", replayed_);
}

}  // namespace nnlb::des
