#pragma once
// Every mailbox of a run in one store (issue 37): a mailbox is a chain of chunks drawn from one
// pool, so a run's memory follows the messages it holds now, not every mailbox's largest burst
// (the messages a run holds are most of a large run's memory, docs/benchmarks.md). A chunk is
// whole cache lines, 512 bytes unless the store is told how many records it should hold (up to
// 2 KiB), since a mailbox's last chunk is mostly part-filled; the chain's links
// are kept apart, 4 bytes a chunk, so that they stay in cache and a take asks for all its chunks
// at once instead of one miss after the other. A mailbox keeps its records in the order they were
// put; a take reads its chunks in order and gives back those it empties.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "nnlb/util/block_pool.hpp"
#include "nnlb/util/prefetch.hpp"

namespace nnlb::des {

template <class Record>
class MailStore {
  static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
  struct alignas(64) Line {
    std::byte bytes[64];
  };
  static constexpr std::size_t usual_lines = 8, most_lines = 32;  // 512 bytes, at most 2 KiB
  static_assert(sizeof(Record) <= usual_lines * sizeof(Line), "a record larger than a chunk");
  static std::size_t lines_for(std::size_t records) {
    if (records == 0) return usual_lines;
    return std::clamp<std::size_t>((records * sizeof(Record) + sizeof(Line) - 1) / sizeof(Line), 1, most_lines);
  }

 public:
  // `boxes` mailboxes; a chunk of the fewest lines that hold `records` (up to 2 KiB), or of 512
  // bytes; with `huge_now`, huge pages from the first block on (util/block_pool.hpp).
  explicit MailStore(std::size_t boxes = 0, std::size_t records = 0, bool huge_now = false)
      : chunks_(static_cast<std::uint32_t>(lines_for(records)), huge_now),
        per_chunk_(static_cast<std::uint32_t>(chunks_.width() * sizeof(Line) / sizeof(Record))),
        boxes_(boxes, empty_box()) {}
  std::uint32_t per_chunk() const { return per_chunk_; }
  void add_boxes(std::size_t n) { boxes_.resize(boxes_.size() + n, empty_box()); }
  std::size_t boxes() const { return boxes_.size(); }
  std::uint32_t size(std::size_t b) const { return boxes_[b].size; }
  // Chunks holding records now, and made so far (in use or free).
  std::size_t chunks_in_use() const { return chunks_.in_use(); }
  std::size_t chunks_made() const { return chunks_.made(); }

  // Appends r to mailbox b (inlined: it is most of a send).
  [[gnu::always_inline]] void put(std::size_t b, const Record& r) {
    Box& box = boxes_[b];
    if (box.fill == per_chunk_) {  // a full tail chunk, or none
      const std::uint32_t c = new_chunk();
      if (box.size == 0) box.head = c;
      else next_[box.tail] = c;
      box.tail = c, box.fill = 0;
    }
    records(box.tail)[box.fill++] = r;
    ++box.size;
  }

  // What a put into mailbox b will write, asked for ahead in two steps (the box, then the place
  // in its tail chunk), so that a send to many mailboxes waits for their misses together and
  // not one after the other.
  void prefetch_box(std::size_t b) const { prefetch(&boxes_[b]); }
  void prefetch_place(std::size_t b) const {
    const Box& box = boxes_[b];
    if (box.fill == per_chunk_) return;  // a new chunk
    const Record* place = records(box.tail) + box.fill;
    prefetch(place);
    prefetch(reinterpret_cast<const char*>(place + 1) - 1);
  }

  // Asks ahead for the filled lines of mailbox b's first chunk (most mailboxes hold one).
  void prefetch_head(std::size_t b) const {
    const Box& box = boxes_[b];
    if (box.size == 0) return;
    const Line* first = &chunks_[box.head];
    const std::uint32_t lines = std::min<std::uint32_t>(chunks_.width(), (box.size * sizeof(Record) + sizeof(Line) - 1) / sizeof(Line));
    for (std::uint32_t line = 0; line < lines; ++line) prefetch(first + line);
  }

  // Visits mailbox b's records oldest first; those for which `take(record)` is true leave it, the
  // others stay in order. Chunks left empty go back to the pool. Returns how many left.
  template <class Take>
  std::uint32_t take_if(std::size_t b, Take&& take) {
    Box& box = boxes_[b];
    if (box.size == 0) return 0;
    for (std::uint32_t c = box.head; c != none; c = next_[c]) {
      const Line* first = &chunks_[c];
      for (std::uint32_t line = 0; line < chunks_.width(); ++line) prefetch(first + line);
    }
    std::uint32_t rc = box.head, wc = box.head, r = 0, w = 0, kept = 0;
    Record* read = records(rc);
    Record* write = read;
    for (std::uint32_t n = 0; n < box.size; ++n, ++r) {
      if (r == per_chunk_) rc = next_[rc], read = records(rc), r = 0;
      Record& record = read[r];
      if (take(record)) continue;
      if (w == per_chunk_) wc = next_[wc], write = records(wc), w = 0;
      if (write != read || w != r) write[w] = record;
      ++w, ++kept;
    }
    const std::uint32_t taken = box.size - kept;
    if (kept == 0) {
      free_chain(box.head);
      box = empty_box();
    } else {
      free_chain(next_[wc]);
      next_[wc] = none;
      box.tail = wc, box.fill = w;
    }
    box.size = kept;
    return taken;
  }

  // Visits mailbox b's records oldest first.
  template <class F>
  void for_each(std::size_t b, F&& f) const {
    const Box& box = boxes_[b];
    std::uint32_t c = box.head, k = 0;
    for (std::uint32_t n = 0; n < box.size; ++n, ++k) {
      if (k == per_chunk_) c = next_[c], k = 0;
      f(records(c)[k]);
    }
  }

  // Empties mailbox b; returns its records, oldest first.
  std::vector<Record> release(std::size_t b) {
    std::vector<Record> out;
    out.reserve(boxes_[b].size);
    for_each(b, [&](const Record& r) { out.push_back(r); });
    take_if(b, [](const Record&) { return true; });
    return out;
  }

 private:
  struct Box {
    std::uint32_t head, tail, size;
    std::uint32_t fill;  // records in the tail chunk; per_chunk_ when there is none
  };
  Box empty_box() const { return {none, none, 0, per_chunk_}; }

  // Chunk c's records (objects of an implicit-lifetime type, begun as their bytes are written).
  Record* records(std::uint32_t c) { return reinterpret_cast<Record*>(&chunks_[c]); }
  const Record* records(std::uint32_t c) const { return reinterpret_cast<const Record*>(&chunks_[c]); }

  // Out of line: inlined into a send's loop over its receivers, it took `hypercube:15` 1.09 times as long.
  [[gnu::noinline]] std::uint32_t new_chunk() {
    const std::uint32_t c = chunks_.make();
    if (c == next_.size()) next_.push_back(none);
    next_[c] = none;
    return c;
  }

  // Chunk c and those after it go back to the pool.
  void free_chain(std::uint32_t c) {
    while (c != none) chunks_.give_back(c), c = next_[c];
  }

  // Blocks of the chunk's lines times 2 MiB, on huge pages past the first four or from the first
  // (`hypercube:18`: 0.91 of the time without any; with blocks of 2 MiB, thus huge pages past 8
  // MiB, not 64, `hypercube:16` took 1.047 times as long and 3 % more memory).
  BlockPool<Line> chunks_;
  std::uint32_t per_chunk_;
  std::vector<Box> boxes_;
  HugeVector<std::uint32_t> next_;  // per chunk: the next of its mailbox
};

}  // namespace nnlb::des
