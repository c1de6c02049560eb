#pragma once
// What a run's nodes sent and reported, counted the same way on every engine: messages per
// channel, the load and item weight they carried (the record's load_moved), when load or items
// last moved (the "stalled" rule), and the programs' notes, detection and ends.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "nnlb/engine/core/result.hpp"
#include "nnlb/node/message.hpp"

namespace nnlb {

class Tally {
 public:
  // A message of `channel` left a node at `now` carrying `load` and `items`.
  void sent(Channel channel, double now, double load, std::span<const Item> items) {
    ++messages_[static_cast<std::size_t>(channel)];
    moved_ += load;
    for (const Item& it : items) moved_ += it.weight;
    if (load > 0 || !items.empty()) last_move_ = now;
  }
  // `count` messages of `channel` without cargo.
  void sent_plain(Channel channel, std::uint64_t count) { messages_[static_cast<std::size_t>(channel)] += count; }
  // Load or items reached a node at `now` (engines that see only their own node's sends).
  void arrived(double now, double load, std::span<const Item> items) {
    if (load > 0 || !items.empty()) last_move_ = now;
  }

  void note(std::string_view name, double value) { notes_[std::string(name)] = value; }
  void detected(double now) {
    if (!detected_at_) detected_at_ = now;
  }
  void finished(double now) { ++finished_, finished_at_ = now; }

  double moved() const { return moved_; }
  double last_move() const { return last_move_; }
  std::uint64_t messages(Channel channel) const { return messages_[static_cast<std::size_t>(channel)]; }
  bool detected() const { return detected_at_.has_value(); }
  std::optional<double> detected_at() const { return detected_at_; }
  std::size_t finished_count() const { return finished_; }
  double finished_at() const { return finished_at_; }
  const std::map<std::string, double>& notes() const { return notes_; }

  // The summary's fields the programs reported: notes, the first detection, and when the last
  // of `nodes` programs finished, if all did.
  void close(RunSummary& s, std::size_t nodes) const {
    s.notes = notes_;
    if (detected_at_) s.detected_at = detected_at_;
    if (finished_ >= nodes) s.finished_at = finished_at_;
  }
  // The message counts of the time metrics.
  void close(TimeMetrics& t) const {
    t.control_messages = messages(Channel::control);
    t.data_messages = messages(Channel::data);
  }

 private:
  std::uint64_t messages_[channel_count] = {};
  double moved_ = 0, last_move_ = 0, finished_at_ = 0;
  std::optional<double> detected_at_;
  std::size_t finished_ = 0;
  std::map<std::string, double> notes_;
};

}  // namespace nnlb
