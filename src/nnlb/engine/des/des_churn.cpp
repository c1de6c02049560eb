// Nodes leaving and joining the discrete-event run (GraphChange, listed or drawn by Churn): a
// leaving node hands what it holds to its neighbours (engine/core/hand_over.hpp), its links go at
// both ends, and messages sent to it go back; a joining node links to its peers and starts empty.
#include <string>
#include <vector>

#include "nnlb/engine/core/hand_over.hpp"
#include "nnlb/engine/des/des_run.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb::des {

// A message for node `gone`, which left, returns to its sender (or, if that one left too, goes
// to the first live node), so no load or item is lost. It carries only what it carried.
void DesRun::bounce(NodeId gone, Channel channel, Wire w) {
  if (w.load <= 0 && items_of(w.label).empty()) {  // information only: lost with the node
    if (w.label & stored_label) free_cargo(w.label & ~stored_label);
    return;
  }
  NodeId to = w.link;  // the sender (the graph changes)
  if (!driver_.alive(to)) to = first_alive();
  w.link = gone;
  w.arrival = now_;
  deposit(to, channel, w);
  if (notify_[static_cast<std::size_t>(channel)]) call(to, [&](Agent& a) { a.arrived(ctx_, channel); });
}

std::vector<Wire> DesRun::release(NodeId i, Channel channel) {
  std::vector<Wire> out;
  in_store(channel, [&](auto& store) {
    for (const auto& r : store.release(i)) {
      Wire w{now_, load_of(r), {}, link_of(r), label_in(r)};  // bounce() sends it on from now
      if constexpr (requires { r.value; }) w.value = r.value;
      if (w.label & stored_label) {  // what the record had no room for, back on the wire
        Carried& c = cargo_[w.label & ~stored_label];
        if constexpr (!requires { r.value; }) w.value = c.value;
        c.load = 0, c.value = {}, c.arrival = 0;
      }
      out.push_back(w);
    }
  });
  return out;
}

NodeId DesRun::first_alive() const {
  for (NodeId i = 0; i < driver_.size(); ++i)
    if (driver_.alive(i)) return i;
  throw std::logic_error("no node left");
}

void DesRun::apply(const GraphChange& c) {
  if (c.kind == GraphChange::Kind::leave) leave(c.node), ++left_;
  else join(c.node, c.peers), ++entered_;
  driver_.refresh_band(now_);
}

void DesRun::leave(NodeId i) {
  if (i >= driver_.size() || !driver_.alive(i)) throw InputError({}, "changes", "node " + std::to_string(i) + " cannot leave: it is not in the graph");
  if (driver_.live() == 1) throw InputError({}, "changes", "node " + std::to_string(i) + " cannot leave: it is the last one");
  DesNode& n = driver_.node(i);
  call(i, [&](Agent& a) { a.leaving(ctx_); });
  // The item in hand is given up unfinished and handed over with the rest.
  if (n.in_hand().item) n.add(*n.hand().item), n.hand().item.reset();
  hand_over(i);
  // Messages waiting in its mailboxes go back to their senders.
  for (std::size_t c = 0; c < channel_count; ++c) {
    const std::vector<Wire> waiting = release(i, static_cast<Channel>(c));
    held_ -= waiting.size();
    for (const Wire& w : waiting) bounce(i, static_cast<Channel>(c), w);
  }
  for (Port p = static_cast<Port>(ports_[i].size()); p-- > 0;) unlink(i, p);
  driver_.leave(i);
}

// Spreads what a leaving node still holds over its neighbours as data messages, by the rule of
// core/hand_over.hpp; with no neighbour left, all of it reaches a random live node at once.
void DesRun::hand_over(NodeId i) {
  DesNode& n = driver_.node(i);
  const auto d = static_cast<Port>(ports_[i].size());
  const std::vector<Item> items = std::move(n.items);
  n.items.clear();
  n.item_weight = 0;
  if (d == 0) {
    NodeId to = i;
    while (to == i || !driver_.alive(to)) to = static_cast<NodeId>(handover_rng_.below(driver_.size()));
    driver_.tally().sent(Channel::data, now_, n.load, items);
    const Wire w{now_, n.load, {}, i, label_of(handover_tag, items)};
    n.load = 0;
    deposit(to, Channel::data, w);
    if (notify_[static_cast<std::size_t>(Channel::data)]) call(to, [&](Agent& a) { a.arrived(ctx_, Channel::data); });
    return;
  }
  const auto hands = deal<Item>(items, d);
  const std::vector<double> shares = load_shares(n.load, d, driver_.integer());
  for (Port p = d; p-- > 0;) {
    n.load -= shares[p];
    double bytes = 0;
    for (const Item& it : hands[p]) bytes += it.bytes;
    driver_.tally().sent(Channel::data, now_, shares[p], hands[p]);
    ship(i, p, Channel::data, handover_tag, {}, bytes, shares[p], hands[p]);
  }
}

// Removes the link on node i's port p at both ends; the neighbour hears of it.
void DesRun::unlink(NodeId i, Port p) {
  const NodeId peer = ports_[i].to(p);
  const Port back = ports_[i].back[p];
  erase_port(i, p);
  erase_port(peer, back);
  call(peer, [&](Agent& a) { a.neighbor_removed(ctx_, back); });
}

// Removes node i's port p; the peers of its later ports learn their new numbers, and every
// neighbour its new degree.
void DesRun::erase_port(NodeId i, Port p) {
  NodePorts& ports = ports_[i];
  ports.erase(p);
  for (Port q = 0; q < ports.size(); ++q) {
    NodePorts& peer = ports_[ports.to(q)];
    if (q >= p) peer.back[ports.back[q]] = q;
    peer.info[ports.back[q]].degree = ports.size();
  }
}

void DesRun::join(NodeId i, const std::vector<NodeId>& peers) {
  if (i > driver_.size() || (i < driver_.size() && driver_.alive(i)))
    throw InputError({}, "changes", "node " + std::to_string(i) + " cannot join: it is in the graph, or not the next new id");
  if (i == driver_.size()) control_mail_.add_boxes(1), data_mail_.add_boxes(1), ports_.emplace_back();
  driver_.join(i, now_).born = queue_.pushed();
  for (NodeId j : peers) {
    if (j >= driver_.size() || !driver_.alive(j) || j == i)
      throw InputError({}, "changes", "node " + std::to_string(i) + " cannot link to node " + std::to_string(j));
    const auto pi = static_cast<Port>(degree(i)), pj = static_cast<Port>(degree(j));
    // New links get the platform's first link parameters.
    const double lat = platform_.link_latency(0), bw = platform_.link_bandwidth(0);
    ports_[i].push_back({j, 0, driver_.speed(j), lat, bw, -1}, driver_.node(j).held(), pj, now_, opt_.separate_control);
    ports_[j].push_back({i, 0, driver_.speed(i), lat, bw, -1}, 0.0, pi, now_, opt_.separate_control);
  }
  // Degrees as they are now, at both ends of every link that changed.
  for (Port p = 0; p < degree(i); ++p) {
    const NodeId j = ports_[i].info[p].id;
    ports_[i].info[p].degree = degree(j);
    const NodePorts& theirs = ports_[j];
    for (Port q = 0; q < theirs.size(); ++q) ports_[theirs.to(q)].info[theirs.back[q]].degree = degree(j);
  }
  driver_.node(i).agent = program_.make_agent(i);
  for (NodeId j : peers) call(j, [&](Agent& a) { a.neighbor_added(ctx_, static_cast<Port>(degree(j) - 1)); });
  call(i, [&](Agent& a) { a.start(ctx_); });
}

}  // namespace nnlb::des
