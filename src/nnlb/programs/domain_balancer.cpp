#include "nnlb/programs/domain_balancer.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "nnlb/node/context.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

enum Tag : std::uint32_t {
  report,       // value[0]: the sender's job count
  instruction,  // value[0]: jobs to move, value[1]: the receiver's id
  forward,      // jobs on their way through this node; value[1]: the receiver's id
  jobs,         // jobs for this node
};
enum TimerTag : std::uint32_t { tick };

class DomainAgent final : public Agent {
 public:
  DomainAgent(const DomainPolicy& policy, const DomainBalancerOptions& o) : policy_(policy), o_(o) {}

  void start(Context& ctx) override {
    known_.assign(ctx.degree(), 0);
    for (Port p = 0; p < ctx.degree(); ++p) known_[p] = ctx.initial_load(p);
    ctx.set_timer(ctx.rng().uniform(0, o_.period), tick);  // staggered: domains decide one after another
  }

  void timer(Context& ctx, std::uint32_t) override {
    if (ctx.now() >= busy_until_) decide(ctx);
    send_report(ctx);
    ctx.set_timer(o_.period, tick);
  }

  void arrived(Context& ctx, Channel channel) override {
    const std::size_t before = ctx.items().size();
    const auto taken = ctx.take(channel);
    const std::vector<Message> messages(taken.begin(), taken.end());
    for (const Message& m : messages) {
      if (m.tag == report) {
        if (m.port != no_port) known_[m.port] = m.value[0];
      } else if (m.tag == instruction) {
        // One move a period: instructions from several domains at once would over-migrate.
        if (ctx.now() >= busy_until_) {
          send_jobs(ctx, static_cast<std::size_t>(m.value[0]), static_cast<NodeId>(m.value[1]), m.port);
          busy_until_ = ctx.now() + o_.period;
        }
      } else if (m.tag == forward) {
        // The items arrived with this message and are held now: pass them on.
        send_jobs(ctx, m.item_count, static_cast<NodeId>(m.value[1]), no_port);
      }
    }
    if (ctx.items().size() != before) send_report(ctx);  // neighbours decide on fresh counts
  }

  void neighbor_added(Context& ctx, Port) override { known_.push_back(0), send_report(ctx); }
  void neighbor_removed(Context&, Port port) override { known_.erase(known_.begin() + port); }

  void leaving(Context& ctx) override {
    const std::uint32_t d = ctx.degree();
    std::vector<ItemId> held;
    for (const Item& it : ctx.items()) held.push_back(it.id);
    const auto n = static_cast<std::uint32_t>(held.size());
    std::size_t next = 0;
    for (Port p = 0; p < d; ++p) {  // an even share to each neighbour
      const std::size_t share = n / d + (p < n % d);
      if (share > 0) ctx.send(p, Channel::data, jobs, {}, o_.control_bytes, {0, std::span<const ItemId>(held).subspan(next, share)});
      next += share;
    }
  }

 private:
  void send_report(Context& ctx) {
    values_.assign(ctx.degree(), {static_cast<double>(ctx.items().size()), 0, 0});
    if (!values_.empty()) ctx.send_each(Channel::control, report, values_, o_.control_bytes);
  }

  void decide(Context& ctx) {
    domain_.clear();
    domain_.push_back({ctx.self(), 0, static_cast<std::int64_t>(ctx.items().size())});
    for (Port p = 0; p < ctx.degree(); ++p) domain_.push_back({ctx.neighbors()[p].id, 1, static_cast<std::int64_t>(known_[p])});
    decided_.clear();
    decide_checked(policy_, {domain_, &ctx.rng()}, decided_);
    if (!decided_.empty()) busy_until_ = ctx.now() + o_.period;
    for (const Migration& m : decided_) {
      if (m.jobs <= 0) continue;
      const NodeId to = domain_[m.to].id;
      if (m.from == 0) {
        send_jobs(ctx, static_cast<std::size_t>(m.jobs), to, no_port);
        known_[m.to - 1] += static_cast<double>(m.jobs);
      } else {
        ctx.send(m.from - 1, Channel::control, instruction, {static_cast<double>(m.jobs), static_cast<double>(to), 0}, o_.control_bytes);
        known_[m.from - 1] -= static_cast<double>(m.jobs);
        if (m.to > 0) known_[m.to - 1] += static_cast<double>(m.jobs);
      }
    }
  }

  // Up to n of this node's jobs to node `to`: directly if it is a neighbour, else through port
  // `via` (the node that asked) with a forward tag.
  void send_jobs(Context& ctx, std::size_t n, NodeId to, Port via) {
    n = std::min(n, ctx.items().size());
    if (n == 0) return;
    Port direct = no_port;
    for (Port p = 0; p < ctx.degree(); ++p)
      if (ctx.neighbors()[p].id == to) direct = p;
    if (direct == no_port && via == no_port) return;  // the receiver left meanwhile: keep them
    pick(ctx, n, to);
    if (direct != no_port) ctx.send(direct, Channel::data, jobs, {}, o_.control_bytes, {0, picked_});
    else ctx.send(via, Channel::data, forward, {0, static_cast<double>(to), 0}, o_.control_bytes, {0, picked_});
  }

  // n of the held jobs into picked_, for node `to`.
  void pick(Context& ctx, std::size_t n, NodeId to) {
    picked_.clear();
    if (o_.selection == JobSelection::any) {
      for (std::size_t k = 0; k < n; ++k) picked_.push_back(ctx.items()[ctx.items().size() - 1 - k].id);
      return;
    }
    std::vector<ItemId> movable;
    for (const Item& it : ctx.items()) movable.push_back(it.id);
    std::unordered_set<ItemId> held(movable.begin(), movable.end());
    // A neighbour job held here is 0 hops from this node and 1 from `to`; one sent to `to` the
    // reverse; of any other this node knows nothing (as far from both).
    auto place = [&](ItemId k) {
      if (held.contains(k)) return NeighbourPlace{0, 1};
      const auto sent = sent_to_.find(k);
      return sent != sent_to_.end() && sent->second == to ? NeighbourPlace{1, 0} : NeighbourPlace{1, 1};
    };
    auto move = [&](ItemId j) {
      held.erase(j);
      sent_to_[j] = to;
      picked_.push_back(j);
    };
    pick_jobs(o_.selection, movable, n, *o_.guest, ctx.rng(), place, move);
  }

  const DomainPolicy& policy_;
  const DomainBalancerOptions& o_;
  std::vector<double> known_;  // per port: the neighbour's job count as last reported (or assumed)
  double busy_until_ = 0;      // moved jobs lately: no other move before this
  std::vector<std::array<double, 3>> values_;
  std::vector<DomainHost> domain_;
  std::vector<Migration> decided_;
  std::vector<ItemId> picked_;
  std::unordered_map<ItemId, NodeId> sent_to_;  // where this node last sent a job (selection rules)
};

}  // namespace

DomainBalancer::DomainBalancer(std::shared_ptr<const DomainPolicy> policy, DomainBalancerOptions options)
    : policy_(std::move(policy)), options_(options) {
  if (policy_->domain() != DomainKind::ball || policy_->radius() > 1)
    throw InputError({}, "algorithm", "as a node program, " + policy_->name() + " needs a domain this program does not gather (radius 1 only)");
  if (!(options_.period > 0)) throw InputError({}, "async.lb_period", "must be > 0");
  if (options_.selection != JobSelection::any && options_.guest == nullptr) throw std::logic_error("a job selection rule needs the guest graph");
}

std::unique_ptr<Agent> DomainBalancer::make_agent(NodeId) const { return std::make_unique<DomainAgent>(*policy_, options_); }

}  // namespace nnlb
