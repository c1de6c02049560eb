#include "nnlb/engine/sync/sync_engine.hpp"

#include <optional>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <span>
#include <string>

#include "nnlb/engine/core/balance.hpp"
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/stop_rules.hpp"
#include "nnlb/engine/core/summary.hpp"
#include "nnlb/engine/sync/grid_stencil.hpp"
#include "nnlb/engine/sync/linear_kernels.hpp"
#include "nnlb/metrics/load_stats.hpp"
#include "nnlb/util/parallel.hpp"

namespace nnlb {

namespace {

// Integer loads are int64: totals are tracked exactly; real totals to 1e-9 relative.
constexpr double real_conservation_tolerance = 1e-9;

template <class L>
class SyncRun {
 public:
  SyncRun(const Topology& topo, const Policy& policy, const EdgeColoring* coloring, const std::vector<double>& initial,
          const Platform& platform, const SyncOptions& opt)
      : g_(topo.graph), policy_(policy), coloring_(coloring), platform_(platform), opt_(opt),
        linear_(policy.linear_form()), rules_(stop_rules(opt.stop)) {
    w_.resize(g_.num_nodes());
    shares_ = speed_shares(platform, g_.num_nodes());
    for (NodeId i = 0; i < g_.num_nodes(); ++i) w_[i] = static_cast<L>(initial[i]);
    next_.resize(w_.size());
    matching_ = policy.pairing() == Pairing::matching;
    if (matching_ && (coloring_ == nullptr || coloring_->num_colors == 0))
      throw std::logic_error("dimension exchange needs an edge colouring");
    fused_ = opt.allow_fused && linear_.has_value() && !matching_ && opt.invocation.kind == Invocation::Kind::synchronous &&
             policy.edge_memory() == 0;
    // Flow history: the per-node path always keeps last round's outflows; the fused path keeps
    // net flows only for second-order schemes.
    if (!fused_) {
      out_.assign(g_.num_slots(), L{0});
      prev_out_.assign(g_.num_slots(), L{0});
      if (policy.edge_memory() > 0) memory_.assign(g_.num_slots() * policy.edge_memory(), 0.0);
    } else if (linear_->beta != 1.0) {
      net_.assign(g_.num_slots(), L{0});
      next_net_.assign(g_.num_slots(), L{0});
    } else if constexpr (std::is_same_v<L, double>) {
      stencil_ = fos_grid_stencil(topo, *linear_);
    }
    if (opt.invocation.kind == Invocation::Kind::threshold) active_.assign(g_.num_nodes(), 0);
    classes_per_round_ = matching_ && opt.de_sweep_is_one_step ? coloring_->num_colors : 1;
    rounds_per_sweep_ = matching_ && !opt.de_sweep_is_one_step ? coloring_->num_colors : 1;
    cost_per_round_ = matching_ || opt.port == PortModel::all ? 1 : g_.max_degree();
  }

  RunResult run() {
    RunResult result;
    auto& sum = result.summary;
    LoadStats st = load_stats<L>(w_, shares_);
    expected_total_ = st.total;
    scale_ = initial_scale_ = st.abs_total;
    if constexpr (std::is_integral_v<L>) expected_int_ = exact_total();
    open_summary(sum, st, st.total);
    record(result, st, 0.0, true);

    std::uint64_t round = 0, steps = 0, idle_rounds = 0;
    bool diverged_now = false;
    StopReason reason;
    while (true) {
      if (const auto stop = decide(rules_, moment(st, steps, idle_rounds, diverged_now))) {
        reason = *stop;
        break;
      }
      double moved = 0;
      if (fused_) moved = fused_round(round);
      else
        for (std::uint64_t c = 0; c < classes_per_round_; ++c) moved += per_node_round(round * classes_per_round_ + c);
      ++round;
      steps += cost_per_round_;
      if (opt_.workload.kind == Workload::Kind::dynamic)
        for (std::uint64_t k = 0; k < cost_per_round_; ++k) apply_workload(steps - cost_per_round_ + k);
      idle_rounds = moved > 0 ? 0 : idle_rounds + 1;
      moved_ += moved;
      if (opt_.faults.any() && moved > 0) [[unlikely]] inject_fault();
      st = load_stats<L>(w_, shares_);
      round_ = round, steps_ = steps;
      diverged_now = diverged(st.abs_total, std::max(initial_scale_, std::abs(expected_total_)));
      if (diverged_now) {
        record(result, st, moved, true);
        continue;  // the decision names it
      }
      check_conservation(st, sum);
      record(result, st, moved, opt_.series_every > 0 && round % opt_.series_every == 0);
    }
    if (result.series.back().round != round) record(result, st, 0.0, true);
    const std::vector<double> held(w_.begin(), w_.end());
    close_summary(sum, reason, !diverged_now && balanced(held, st.total), st, held, moved_);
    close_rounds(sum, reason, round, steps);
    sum.final_total = st.total;
    if (opt_.record_final_load) result.final_load = held;
    return result;
  }

 private:
  // The run now, for the one stop rule (core/stop_rules.hpp). A synchronous step is a function of
  // the loads: a sweep that moved nothing will never move anything again ("quiet"), under static
  // load, when the scenario asks to stop there.
  RunMoment moment(const LoadStats& st, std::uint64_t steps, std::uint64_t idle_rounds, bool diverged_now) const {
    RunMoment m;
    m.rounds = steps;
    m.sample = &st;
    m.diverged = diverged_now;
    m.balanced = rules_.when_balanced && balanced(w_, st.total);
    m.quiet = opt_.stop.quiescent && idle_rounds >= rounds_per_sweep_;
    return m;
  }

  // Every node within the band of its share (BalanceRule; one unit of grain in integer mode).
  template <class V>
  bool balanced(const std::vector<V>& w, double total) const {
    return BalanceRule{opt_.band, std::is_integral_v<L> ? 1.0 : 0.0}.all_within<V>(w, total, shares_);
  }

  static StopRules stop_rules(const StopRule& s) {
    StopRules r;
    r.when_balanced = s.when_balanced;
    r.imbalance = s.imbalance;
    r.spread = s.spread;
    r.max_rounds = s.max_steps;
    return r;
  }

  // A round's loads for the record (core/recorder.hpp); `moved`: in this round.
  void record(RunResult& r, const LoadStats& st, double moved, bool keep) {
    const auto every = opt_.load_history_every;
    if (every > 0 && round_ % every == 0 && (r.load_history.steps.empty() || r.load_history.steps.back() != static_cast<double>(steps_)))
      recorder_.history(r, static_cast<double>(steps_), std::vector<double>(w_.begin(), w_.end()));
    moved_since_row_ += moved;
    if (!keep) return;
    recorder_.add_row(r, {round_, steps_, 0.0}, st, moved_since_row_);
    moved_since_row_ = 0;
  }

  // SyncOptions::faults, after a round that moved load.
  [[gnu::noinline]] void inject_fault() {
    const std::uint64_t k = ++moving_rounds_;
    const L unit = std::min(w_[0], L{1});
    if (FaultInjection::hits(opt_.faults.drop_every, k)) w_[0] -= unit;
    if (FaultInjection::hits(opt_.faults.duplicate_every, k)) w_[0] += L{1};
    if (FaultInjection::hits(opt_.faults.corrupt_every, k)) {
      if constexpr (std::is_integral_v<L>) w_[0] += L{1};
      else w_[0] *= 1 + 1e-6;
    }
  }

  std::int64_t exact_total() const {
    std::int64_t t = 0;
    for (auto x : w_) t += static_cast<std::int64_t>(x);
    return t;
  }

  void check_conservation(const LoadStats& st, RunSummary& sum) {
    if constexpr (std::is_integral_v<L>) {
      const auto t = exact_total();
      if (t != expected_int_)
        throw ConservationError("integer load not conserved at round " + std::to_string(round_ + 1) + ": total " +
                                std::to_string(t) + ", expected " + std::to_string(expected_int_));
    } else {
      // Rounding in the sums grows with the largest loads they have held, not with today's total
      // (a dynamic workload can drain the total towards 0), so the error is relative to that.
      scale_ = std::max({scale_, std::abs(expected_total_), st.abs_total});
      const double err = std::abs(st.total - expected_total_) / std::max(scale_, 1e-300);
      sum.max_conservation_error = std::max(sum.max_conservation_error, err);
      if (err > real_conservation_tolerance)
        throw ConservationError("load not conserved at round " + std::to_string(round_ + 1) + ": relative error " +
                                std::to_string(err));
    }
  }

  double fused_round(std::uint64_t round) {
    const LinearForm f = *linear_;
    double moved = 0;
    if constexpr (std::is_same_v<L, double>)
      if (stencil_) {
        moved = fos_sweep_grid(g_, *stencil_, w_, next_);
        w_.swap(next_);
        return moved;
      }
    if (net_.empty()) {
      moved = fos_sweep<L>(g_, f, w_, next_);
    } else {
      moved = sos_sweep<L>(g_, f, round == 0, w_, next_, net_, next_net_);
      net_.swap(next_net_);
    }
    w_.swap(next_);
    return moved;
  }

  bool invokes(NodeId i) const {
    const double x = static_cast<double>(w_[i]);
    return x < opt_.invocation.low || x > opt_.invocation.high;
  }

  // General path: builds each node's local view, runs the policy, then applies all transfers.
  double per_node_round(std::uint64_t round) {
    const std::uint32_t color = matching_ ? static_cast<std::uint32_t>(round % coloring_->num_colors) : 0;
    const std::uint64_t sweep = round / (rounds_per_sweep_ * classes_per_round_);
    const bool threshold = !active_.empty();
    if (threshold)
      for_each_block(w_.size(), [&](std::size_t b, std::size_t e, std::size_t) {
        for (std::size_t i = b; i < e; ++i) active_[i] = invokes(static_cast<NodeId>(i));
      });
    const std::uint32_t mem = policy_.edge_memory();
    std::vector<double> moved(block_count(w_.size()));
    for_each_block(w_.size(), [&](std::size_t b, std::size_t e, std::size_t blk) {
      std::vector<NeighborState> nbs;
      std::vector<Slot> slot_of;
      std::vector<Transfer> transfers;
      double m = 0;
      for (std::size_t ii = b; ii < e; ++ii) {
        const auto i = static_cast<NodeId>(ii);
        nbs.clear();
        slot_of.clear();
        transfers.clear();
        for (Slot s = g_.first_slot(i); s < g_.end_slot(i); ++s) {
          out_[s] = L{0};
          const NodeId j = g_.target(s);
          if (matching_ && coloring_->slot_color[s] != color) continue;
          if (threshold && !active_[i] && !active_[j]) continue;
          NeighborState nb;
          nb.id = j;
          nb.degree = g_.degree(j);
          nb.load = static_cast<double>(w_[j]);
          nb.speed = platform_.node_speed(j);
          nb.last_flow = static_cast<double>(prev_out_[s] - prev_out_[g_.reverse(s)]);
          nb.memory = mem ? memory_.data() + s * mem : nullptr;
          nbs.push_back(nb);
          slot_of.push_back(s);
        }
        if (nbs.empty()) continue;
        Rng rng(opt_.seed ^ 0x706f6c6963790000ULL, mix_seed(i, round));
        LocalView view;
        view.self = i;
        view.degree = g_.degree(i);
        view.load = static_cast<double>(w_[i]);
        view.speed = platform_.node_speed(i);
        view.step = sweep;
        view.neighbors = nbs;
        view.rng = &rng;
        policy_.decide(view, transfers);
        for (const auto& t : transfers) {
          const L x = quantize<L>(t.amount);
          if (x > L{0}) {
            out_[slot_of[t.neighbor]] += x;
            m += static_cast<double>(x);
          }
        }
      }
      moved[blk] = m;
    });
    for_each_block(w_.size(), [&](std::size_t b, std::size_t e, std::size_t) {
      for (std::size_t ii = b; ii < e; ++ii) {
        const auto i = static_cast<NodeId>(ii);
        L acc = w_[i];
        for (Slot s = g_.first_slot(i); s < g_.end_slot(i); ++s) acc = acc + (out_[g_.reverse(s)] - out_[s]);
        next_[i] = acc;
      }
    });
    w_.swap(next_);
    prev_out_.swap(out_);
    double total = 0;
    for (double x : moved) total += x;
    return total;
  }

  // phi in Eq. 1: generation ~ Normal(mean, stddev) clipped at 0, then consumption of at most
  // what the node holds. Integer mode rounds the generation to the nearest unit.
  void apply_workload(std::uint64_t step) {
    const auto& wl = opt_.workload;
    std::vector<L> delta(block_count(w_.size()));
    std::vector<double> held(delta.size());  // sum of |load| after generation, before consumption
    for_each_block(w_.size(), [&](std::size_t b, std::size_t e, std::size_t blk) {
      L d{0};
      double h = 0;
      for (std::size_t i = b; i < e; ++i) {
        Rng rng(opt_.seed ^ 0x776f726b6c6f6164ULL, mix_seed(i, step));
        double gen = std::max(0.0, rng.normal(wl.generation_mean, wl.generation_stddev));
        if constexpr (std::is_integral_v<L>) gen = std::round(gen);
        const L with_gen = w_[i] + static_cast<L>(gen);
        const L consumed = std::clamp<L>(static_cast<L>(wl.consumption), L{0}, std::max(with_gen, L{0}));
        d += static_cast<L>(gen) - consumed;
        h += std::abs(static_cast<double>(with_gen));
        w_[i] = with_gen - consumed;
      }
      delta[blk] = d;
      held[blk] = h;
    });
    double total_held = 0;
    for (std::size_t blk = 0; blk < delta.size(); ++blk) {
      if constexpr (std::is_integral_v<L>) expected_int_ += delta[blk];
      expected_total_ += static_cast<double>(delta[blk]);
      total_held += held[blk];
    }
    scale_ = std::max(scale_, total_held);
  }

  const Graph& g_;
  const Policy& policy_;
  const EdgeColoring* coloring_;
  const Platform& platform_;
  const SyncOptions& opt_;
  const std::optional<LinearForm> linear_;
  const StopRules rules_;
  double moved_ = 0;  // load moved over the run
  bool matching_ = false;
  bool fused_ = false;
  std::vector<double> shares_;  // speed_shares: nu relative to speed on heterogeneous nodes
  std::optional<GridStencil> stencil_;  // FOS on the interior of a 2-D grid (real loads)
  std::uint64_t rounds_per_sweep_ = 1;   // rounds in one dimension-exchange sweep
  std::uint64_t classes_per_round_ = 1;  // colour classes done in one round
  std::uint64_t cost_per_round_ = 1;
  std::uint64_t round_ = 0, steps_ = 0;
  std::vector<L> w_, next_, out_, prev_out_, net_, next_net_;
  std::vector<double> memory_;
  std::vector<char> active_;
  std::uint64_t moving_rounds_ = 0;  // rounds that moved load, for fault injection
  double expected_total_ = 0;
  Recorder recorder_{{}, opt_.series_max_rows};
  double moved_since_row_ = 0;  // since the last row offered to the recorder
  double scale_ = 0;  // the largest load magnitude the run has held, workload included (conservation tolerance)
  double initial_scale_ = 0;  // the initial loads' absolute sum: the reference of the divergence rule
  std::int64_t expected_int_ = 0;
};

}  // namespace

RunResult run_sync(const Topology& topo, const Policy& policy, const EdgeColoring* coloring, LoadMode mode,
                   const std::vector<double>& initial, const Platform& platform, const SyncOptions& options) {
  if (mode == LoadMode::integer) return SyncRun<std::int64_t>(topo, policy, coloring, initial, platform, options).run();
  return SyncRun<double>(topo, policy, coloring, initial, platform, options).run();
}

}  // namespace nnlb
