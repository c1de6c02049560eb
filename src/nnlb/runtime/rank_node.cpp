#include "nnlb/runtime/rank_node.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace nnlb {

RankNode::RankNode(RankNodeSetup setup) : setup_(std::move(setup)), ctx_(*this), eager_(wire::eager_bytes) {
  int rank = 0;
  MPI_Comm_rank(setup_.comm, &rank);
  self_ = static_cast<NodeId>(rank);
  rng_ = Rng(setup_.seed, self_);
  for (std::size_t c = 0; c < channel_count; ++c) notify_[c] = setup_.program->notifies(static_cast<Channel>(c));
  marked_.assign(setup_.neighbors.size(), 0);
  finishing_.assign(setup_.neighbors.size(), false);
  post_receive();
}

RankNode::~RankNode() {
  if (receive_ != MPI_REQUEST_NULL) {
    MPI_Cancel(&receive_);
    MPI_Wait(&receive_, MPI_STATUS_IGNORE);
  }
  // A send nobody will receive (the job ends on an error) must not hang here: what did not
  // complete is left to MPI.
  for (PendingSend& s : sends_)
    for (MPI_Request& r : s.requests) {
      int done = 0;
      MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      if (!done) MPI_Request_free(&r);
    }
}

void RankNode::start(double t0) {
  t0_ = t0;
  node_.agent = setup_.program->make_agent(self_);
  ctx_.bind(self_);
  ++handlers_;
  node_.agent->start(ctx_);
}

void RankNode::post_receive() {
  MPI_Irecv(eager_.data(), static_cast<int>(eager_.size()), MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, setup_.comm, &receive_);
}

bool RankNode::progress(bool deliver, std::size_t budget) {
  bool any = false;
  for (std::size_t k = 0; k < budget; ++k) {
    int done = 0;
    MPI_Status status;
    MPI_Test(&receive_, &done, &status);
    if (!done) break;
    receive(status, deliver);
    any = true;
  }
  if (deliver) any = fire_timers() || any;
  reap_sends();
  return any;
}

void RankNode::receive(const MPI_Status& status, bool deliver) {
  const int source = status.MPI_SOURCE, tag = status.MPI_TAG;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  if (tag == wire::marker_tag) {
    std::uint64_t epoch = 0;
    const Port p = port_of(static_cast<NodeId>(source));
    if (count != sizeof epoch || p == no_port)
      throw wire::ProtocolError("a marker from rank " + std::to_string(source) + " of " + std::to_string(count) + " bytes");
    std::memcpy(&epoch, eager_.data(), sizeof epoch);
    if (epoch == wire::finishing_marker) finishing_[p] = true;
    else marked_[p] = std::max(marked_[p], epoch);
    ++received_;
    return post_receive();
  }
  if (tag == wire::note_tag) {
    const Port p = port_of(static_cast<NodeId>(source));
    if (count % static_cast<int>(sizeof(double)) != 0 || count > static_cast<int>(wire::note_values * sizeof(double)) || p == no_port)
      throw wire::ProtocolError("a note from rank " + std::to_string(source) + " of " + std::to_string(count) + " bytes");
    double values[wire::note_values];
    std::memcpy(values, eager_.data(), static_cast<std::size_t>(count));
    ++received_;
    post_receive();
    if (setup_.heard) setup_.heard(p, std::span<const double>(values, static_cast<std::size_t>(count) / sizeof(double)));
    return;
  }
  if (tag != wire::eager_tag)
    throw wire::ProtocolError("a message from rank " + std::to_string(source) + " has tag " + std::to_string(tag) +
                              " where a node program's message starts");
  const std::span<const std::byte> first(eager_.data(), static_cast<std::size_t>(count));
  const wire::Header h = wire::header_of(first, source);
  std::vector<std::byte> whole(first.begin(), first.end());
  if (h.total_bytes() > wire::eager_bytes) {  // the rest follows from the same source, in pieces
    whole.resize(h.total_bytes());
    for (std::size_t at = wire::eager_bytes; at < whole.size();) {
      const auto most = static_cast<int>(std::min<std::size_t>(whole.size() - at, std::numeric_limits<int>::max()));
      MPI_Status rest_status;
      MPI_Recv(whole.data() + at, most, MPI_BYTE, source, wire::rest_tag, setup_.comm, &rest_status);
      MPI_Get_count(&rest_status, MPI_BYTE, &count);
      if (count <= 0) throw wire::ProtocolError("a message from rank " + std::to_string(source) + " is cut short");
      at += static_cast<std::size_t>(count);
    }
  }
  post_receive();
  wire::Decoded d = wire::decode(h, whole);
  d.msg.port = port_of(d.msg.from);
  if (d.msg.port == no_port)
    throw wire::ProtocolError("a message from rank " + std::to_string(source) + ", which is not a neighbour of rank " +
                              std::to_string(self_));
  ++received_;
  const auto c = static_cast<std::size_t>(d.channel);
  mailbox_[c].push_back(std::move(d));
  if (deliver && notify_[c]) ++handlers_, node_.agent->arrived(ctx_, static_cast<Channel>(c));
}

bool RankNode::fire_timers() {
  bool any = false;
  while (timers_.next_time() <= now() && !executing()) {
    const std::uint32_t tag = timers_.pop();
    ++handlers_;
    node_.agent->timer(ctx_, tag);
    any = true;
  }
  return any;
}

void RankNode::wait(MPI_Request* other) {
  if (executing()) return;
  MPI_Request requests[2] = {receive_, other != nullptr ? *other : MPI_REQUEST_NULL};
  const double due = timers_.next_time();
  while (true) {
    int index = MPI_UNDEFINED, done = 0;
    MPI_Status status;
    if (due == std::numeric_limits<double>::infinity() && !setup_.shared_processor) MPI_Waitany(2, requests, &index, &status), done = 1;
    else MPI_Testany(2, requests, &index, &done, &status);
    if (done && index == 0) {
      receive_ = MPI_REQUEST_NULL;
      return receive(status, true);
    }
    if (done && index == 1) {
      *other = MPI_REQUEST_NULL;
      return;
    }
    if (done || now() >= due) return;  // nothing to wait for, or the timer is due
    if (setup_.shared_processor) {
      const timespec pause{0, 50'000};
      nanosleep(&pause, nullptr);
    } else {
      sched_yield();
    }
  }
}

void RankNode::drain(std::uint32_t call, const char* name) {
  int size = 1;
  MPI_Comm_size(setup_.comm, &size);
  while (true) {
    progress(false);
    // The counts, and the call: all ranks are in the same one when the sum of the squares of
    // the calls is the square of their sum over the ranks' number (no spread).
    std::uint64_t mine[4] = {sent_, received_, call, std::uint64_t{call} * call}, all[4];
    MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, setup_.comm);
    if (all[3] * static_cast<std::uint64_t>(size) != all[2] * all[2])
      throw std::logic_error("nnlb::mpi: " + std::string(name) + " is collective: rank " + std::to_string(self_) +
                             " is in it while other ranks are in another collective call of the balancer (every rank must "
                             "call balance_and_wait(), owners() and finish() alike, in the same order)");
    if (all[0] == all[1]) break;
    if (setup_.shared_processor) {
      const timespec pause{0, 50'000};
      nanosleep(&pause, nullptr);
    }  // what is missing is on its way: count again
  }
  for (PendingSend& s : sends_) MPI_Waitall(static_cast<int>(s.requests.size()), s.requests.data(), MPI_STATUSES_IGNORE);
  sends_.clear();
}

void RankNode::flush(std::uint64_t epoch) {
  for (const NeighborInfo& n : setup_.neighbors) {
    PendingSend& s = sends_.emplace_back();
    s.bytes.resize(sizeof epoch);
    std::memcpy(s.bytes.data(), &epoch, sizeof epoch);
    MPI_Isend(s.bytes.data(), sizeof epoch, MPI_BYTE, static_cast<int>(n.id), wire::marker_tag, setup_.comm, &s.requests.emplace_back());
    ++sent_;
  }
}

void RankNode::tell(Port to, std::span<const double> values) {
  if (values.size() > wire::note_values) throw std::logic_error("a note of more than 8 values");
  PendingSend& s = sends_.emplace_back();
  s.bytes.resize(values.size_bytes());
  std::memcpy(s.bytes.data(), values.data(), values.size_bytes());
  MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, static_cast<int>(setup_.neighbors[to].id), wire::note_tag,
            setup_.comm, &s.requests.emplace_back());
  ++sent_;
  tally_.sent_plain(Channel::control, 1);
}

void RankNode::wait_markers(std::uint64_t epoch, const char* name) {
  while (true) {
    progress(false);
    Port missing = no_port;
    for (Port p = 0; p < marked_.size() && missing == no_port; ++p)
      if (marked_[p] < epoch) missing = p;
    if (missing == no_port) return;
    if (finishing_[missing])
      throw std::logic_error("nnlb::mpi: rank " + std::to_string(self_) + " is in " + name + " while its neighbour rank " +
                             std::to_string(setup_.neighbors[missing].id) + " has called finish() (every rank must call it alike)");
    if (setup_.shared_processor) {
      const timespec pause{0, 50'000};
      nanosleep(&pause, nullptr);
    } else {
      sched_yield();
    }
  }
}

void RankNode::reap_sends() {
  while (!sends_.empty()) {
    int done = 0;
    MPI_Testall(static_cast<int>(sends_.front().requests.size()), sends_.front().requests.data(), &done, MPI_STATUSES_IGNORE);
    if (!done) return;
    sends_.pop_front();
  }
}

void RankNode::complete() {
  completions_.complete(node_.hand(), now());
  ++handlers_;
  node_.agent->timer(ctx_, node_.in_hand().tag);
}

void RankNode::for_each_waiting(const std::function<void(double, std::span<const Item>)>& f) const {
  for (const auto& box : mailbox_)
    for (const wire::Decoded& d : box) f(d.msg.load, d.items);
}

void RankNode::unpack_waiting() {
  if (setup_.payloads == nullptr) return;
  for (const auto& box : mailbox_)
    for (const wire::Decoded& d : box) {
      const auto parts = wire::payloads_of(d.payload, d.items.size());
      for (std::size_t k = 0; k < d.items.size(); ++k) setup_.payloads->unpack(d.items[k].id, parts[k]);
    }
}

void RankNode::settle() {
  for (std::size_t c = 0; c < channel_count; ++c) take(self_, 0, static_cast<Channel>(c));
}

void RankNode::renotify() {
  for (std::size_t c = 0; c < channel_count; ++c)
    if (!mailbox_[c].empty() && notify_[c]) ++handlers_, node_.agent->arrived(ctx_, static_cast<Channel>(c));
}

Port RankNode::port_of(NodeId from) const {
  for (Port p = 0; p < setup_.neighbors.size(); ++p)
    if (setup_.neighbors[p].id == from) return p;
  return no_port;
}

// --- the Context ---

void RankNode::send(NodeId, std::size_t, Port to, Channel channel, std::uint32_t tag, const std::array<double, 3>& value,
                    double, const Cargo& cargo) {
  const std::vector<Item> items = take_cargo(node_, self_, to, degree(self_), cargo, setup_.program->needs().overdraft);
  tally_.sent(channel, now(), cargo.load, items);
  const bool carries = cargo.load > 0 || !items.empty();
  payload_.clear();
  if (setup_.payloads != nullptr)
    for (const Item& it : items) {  // the items leave with their data, even to be lost on the wire
      const std::size_t at = payload_.size();
      payload_.resize(at + sizeof(std::uint64_t));
      setup_.payloads->pack(it.id, payload_);
      const std::uint64_t size = payload_.size() - at - sizeof(std::uint64_t);
      std::memcpy(payload_.data() + at, &size, sizeof size);
    }
  std::uint64_t copies = 1;
  if (carries) {
    ++carrying_;
    if (FaultInjection::hits(setup_.faults.drop_every, carrying_)) copies = 0, ++lost_;
    else if (FaultInjection::hits(setup_.faults.duplicate_every, carrying_)) copies = 2;
  }
  wire::Header h;
  h.from = self_, h.tag = tag, h.channel = static_cast<std::uint32_t>(channel);
  h.item_count = items.size(), h.payload_bytes = payload_.size(), h.load = cargo.load;
  h.value[0] = value[0], h.value[1] = value[1], h.value[2] = value[2];
  for (std::uint64_t k = 0; k < copies; ++k) put(wire::encode(h, items, payload_), static_cast<int>(setup_.neighbors[to].id));
}

void RankNode::put(std::vector<std::byte> bytes, int to) {
  PendingSend& s = sends_.emplace_back();
  s.bytes = std::move(bytes);
  const std::size_t first = std::min(s.bytes.size(), wire::eager_bytes);
  MPI_Isend(s.bytes.data(), static_cast<int>(first), MPI_BYTE, to, wire::eager_tag, setup_.comm, &s.requests.emplace_back());
  for (std::size_t at = first; at < s.bytes.size(); at += setup_.piece_bytes) {
    const std::size_t piece = std::min(setup_.piece_bytes, s.bytes.size() - at);
    MPI_Isend(s.bytes.data() + at, static_cast<int>(piece), MPI_BYTE, to, wire::rest_tag, setup_.comm, &s.requests.emplace_back());
  }
  ++sent_;
}

std::span<const Message> RankNode::take(NodeId, std::size_t, Channel channel) {
  auto& box = mailbox_[static_cast<std::size_t>(channel)];
  taken_.clear();
  taken_items_.clear();
  for (wire::Decoded& d : box) {
    tally_.arrived(now(), d.msg.load, d.items);
    credit(node_, d.msg.load, d.items, taken_items_);
    if (setup_.payloads != nullptr) {
      const auto parts = wire::payloads_of(d.payload, d.items.size());
      for (std::size_t k = 0; k < d.items.size(); ++k) setup_.payloads->unpack(d.items[k].id, parts[k]);
    }
    taken_.push_back(d.msg);
  }
  box.clear();
  return taken_;
}

void RankNode::set_timer(NodeId, double delay, std::uint32_t tag) {  // delay >= 0: checked by NodeContext
  timers_.add(now() + delay, tag);
}

void RankNode::execute(NodeId, ItemId item, std::uint32_t tag) {
  if (setup_.work_scale <= 0) throw std::logic_error("this runtime executes no items: the application computes them");
  const double seconds = work_seconds(node_, item, setup_.speed);
  node_.hand().begin(node_, item, tag, now(), seconds * setup_.work_scale, self_);
}

void RankNode::add_load(NodeId, std::size_t, double delta) {
  own_load(node_, self_, delta, setup_.integer);
  added_ += delta;
}

}  // namespace nnlb
