#pragma once
// The Context an engine hands to node programs: bound in turn to the node whose handler runs, it
// forwards every call to the engine's run object with that node and its lane (the slot of the
// worker running it, for engines that run nodes in parallel; 0 otherwise). An engine provides its
// clock, its transport and its execution of work on its run type; what a node holds, its speed,
// random stream and reports come from the run's driver (`run.driver()`, core/driver.hpp).
#include <cstddef>
#include <stdexcept>
#include <string>

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
  std::uint32_t degree() const override { return run_.degree(node_); }
  std::span<const NeighborInfo> neighbors() const override { return run_.neighbors(node_, lane_); }
  double initial_load(Port p) const override {
    if (p >= degree()) throw std::logic_error("node " + std::to_string(node_) + ": initial_load of port " + std::to_string(p) + " beyond its degree");
    return run_.initial_load(node_, p);
  }
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
  std::span<const Message> take(Channel channel) override { return run_.take(node_, lane_, channel); }
  std::span<const Item> taken_items() const override { return run_.taken_items(lane_); }
  void execute(ItemId item, std::uint32_t tag) override { run_.execute(node_, item, tag); }
  void set_timer(double delay, std::uint32_t tag) override {
    if (!(delay >= 0)) throw std::logic_error("node " + std::to_string(node_) + ": set_timer with a negative delay");
    run_.set_timer(node_, delay, tag);
  }

  // What the node holds and what it reports: the run's driver (core/driver.hpp) keeps them, unless
  // the engine answers itself (one that runs nodes side by side books their reports per lane; a
  // rank that hosts one node keeps it).
  double speed() const override {
    if constexpr (requires { run_.speed(node_); }) return run_.speed(node_);
    else return driver().speed(node_);
  }
  Rng& rng() override {
    if constexpr (requires { run_.rng(node_); }) return run_.rng(node_);
    else return driver().rng(node_);
  }
  bool integer_load() const override {
    if constexpr (requires { run_.integer_load(); }) return run_.integer_load();
    else return driver().integer();
  }
  double load() const override {
    if constexpr (requires { run_.load(node_); }) return run_.load(node_);
    else return driver().node(node_).load;
  }
  std::span<const Item> items() const override {
    if constexpr (requires { run_.items(node_); }) return run_.items(node_);
    else return driver().node(node_).items;
  }
  void add_load(double delta) override {
    if constexpr (requires { run_.add_load(node_, lane_, delta); }) run_.add_load(node_, lane_, delta);
    else driver().add_load(node_, delta);
  }
  void detected_termination() override {
    if constexpr (requires { run_.detected(node_); }) run_.detected(node_);
    else driver().tally().detected(run_.now());
  }
  void finished() override {
    if constexpr (requires { run_.finished(node_); }) run_.finished(node_);
    else driver().tally().finished(run_.now());
  }
  void note(std::string_view name, double value) override {
    if constexpr (requires { run_.note(name, value); }) run_.note(name, value);
    else driver().tally().note(name, value);
  }

 private:
  auto& driver() const { return run_.driver(); }

  Run& run_;
  std::size_t lane_;
  NodeId node_ = 0;
};

}  // namespace nnlb
