#pragma once
// The Context an engine hands to node programs: bound in turn to the node whose handler runs, it
// forwards every call to the engine's run object with that node and its lane (the slot of the
// worker running it, for engines that run nodes in parallel; 0 otherwise). An engine provides
// these calls on its run type and nothing else.
#include <cstddef>

#include "nnlb/engine/core/node_state.hpp"
#include "nnlb/node/context.hpp"

namespace nnlb {

template <class Run>
class NodeContext final : public Context {
 public:
  explicit NodeContext(Run& run, std::size_t lane = 0) : run_(run), lane_(lane) {}
  void bind(NodeId node) { node_ = node; }
  // Runs one of node i's handlers (`handler(agent)`) with this Context bound to it; true when what
  // the node holds changed (the engine then updates its band bookkeeping once).
  template <class F>
  bool handle(NodeId i, NodeState& n, F&& handler) {
    bind(i);
    const double before = n.held();
    handler(*n.agent);
    return n.held() != before;
  }

  NodeId self() const override { return node_; }
  double now() const override { return run_.now(); }
  double speed() const override { return run_.speed(node_); }
  std::uint32_t degree() const override { return run_.degree(node_); }
  std::span<const NeighborInfo> neighbors() const override { return run_.neighbors(node_, lane_); }
  Rng& rng() override { return run_.rng(node_); }
  bool integer_load() const override { return run_.integer_load(); }
  double load() const override { return run_.load(node_); }
  std::span<const Item> items() const override { return run_.items(node_); }
  void send(Port to, Channel channel, std::uint32_t tag, const std::array<double, 3>& value, double bytes,
            const Cargo& cargo) override {
    run_.send(node_, lane_, to, channel, tag, value, bytes, cargo);
  }
  void send_each(Channel channel, std::uint32_t tag, std::span<const std::array<double, 3>> values, double bytes) override {
    if constexpr (requires { run_.send_each(node_, lane_, channel, tag, values, bytes); })
      run_.send_each(node_, lane_, channel, tag, values, bytes);
    else
      Context::send_each(channel, tag, values, bytes);
  }
  void add_load(double delta) override { run_.add_load(node_, lane_, delta); }
  std::span<const Message> take(Channel channel) override { return run_.take(node_, lane_, channel); }
  std::span<const Item> taken_items() const override { return run_.taken_items(lane_); }
  void execute(ItemId item, std::uint32_t tag) override { run_.execute(node_, item, tag); }
  void set_timer(double delay, std::uint32_t tag) override { run_.set_timer(node_, delay, tag); }
  void detected_termination() override { run_.detected(node_); }
  void finished() override { run_.finished(node_); }
  void note(std::string_view name, double value) override { run_.note(name, value); }

 private:
  Run& run_;
  std::size_t lane_;
  NodeId node_ = 0;
};

}  // namespace nnlb
