#pragma once
// Every mailbox of a run in one store (issue 37): a mailbox is a chain of chunks drawn from one
// pool, so a run's memory follows the messages it holds now, not every mailbox's largest burst
// (the messages a run holds are most of a large run's memory, docs/benchmarks.md). A chunk is at
// most 512 bytes of records on a cache-line boundary; the chain's links are kept apart, 4 bytes a
// chunk, so that they stay in cache and a take asks for all its chunks at once instead of one
// miss after the other. A mailbox keeps its records in the order they were put; a take reads its
// chunks in order and gives back those it empties.
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

 public:
  static constexpr std::size_t chunk_bytes = 512;
  static constexpr std::uint32_t per_chunk = chunk_bytes / sizeof(Record);
  static_assert(per_chunk >= 1, "a record larger than a chunk");

  explicit MailStore(std::size_t boxes = 0) : boxes_(boxes) {}
  void add_boxes(std::size_t n) { boxes_.resize(boxes_.size() + n); }
  std::size_t boxes() const { return boxes_.size(); }
  std::uint32_t size(std::size_t b) const { return boxes_[b].size; }
  // Chunks holding records now, and made so far (in use or free).
  std::size_t chunks_in_use() const { return chunks_.in_use(); }
  std::size_t chunks_made() const { return chunks_.made(); }

  // Appends r to mailbox b (inlined: it is most of a send).
  [[gnu::always_inline]] void put(std::size_t b, const Record& r) {
    Box& box = boxes_[b];
    const std::uint32_t k = box.size % per_chunk;
    if (k == 0) {
      const std::uint32_t c = new_chunk();
      if (box.size == 0) box.head = c;
      else next_[box.tail] = c;
      box.tail = c;
    }
    chunk(box.tail).records[k] = r;
    ++box.size;
  }

  // What a put into mailbox b will write, asked for ahead in two steps (the box, then the place
  // in its tail chunk), so that a send to many mailboxes waits for their misses together and
  // not one after the other.
  void prefetch_box(std::size_t b) const { prefetch(&boxes_[b]); }
  void prefetch_place(std::size_t b) const {
    const Box& box = boxes_[b];
    const std::uint32_t k = box.size % per_chunk;
    if (k == 0) return;  // a new chunk
    const Record* place = &chunk(box.tail).records[k];
    prefetch(place);
    prefetch(reinterpret_cast<const char*>(place + 1) - 1);
  }

  // Asks ahead for mailbox b's first chunk.
  void prefetch_head(std::size_t b) const {
    const Box& box = boxes_[b];
    if (box.size > 0) prefetch(&chunk(box.head));
  }

  // Visits mailbox b's records oldest first; those for which `take(record)` is true leave it, the
  // others stay in order. Chunks left empty go back to the pool. Returns how many left.
  template <class Take>
  std::uint32_t take_if(std::size_t b, Take&& take) {
    Box& box = boxes_[b];
    if (box.size == 0) return 0;
    for (std::uint32_t c = box.head; c != none; c = next_[c])
      for (std::size_t line = 0; line < sizeof(Chunk); line += 64) prefetch(reinterpret_cast<const char*>(&chunk(c)) + line);
    std::uint32_t rc = box.head, wc = box.head, r = 0, w = 0, kept = 0;
    Record* read = chunk(rc).records;
    Record* write = read;
    for (std::uint32_t n = 0; n < box.size; ++n, ++r) {
      if (r == per_chunk) rc = next_[rc], read = chunk(rc).records, r = 0;
      Record& record = read[r];
      if (take(record)) continue;
      if (w == per_chunk) wc = next_[wc], write = chunk(wc).records, w = 0;
      if (write != read || w != r) write[w] = record;
      ++w, ++kept;
    }
    const std::uint32_t taken = box.size - kept;
    if (kept == 0) {
      free_chain(box.head);
      box.head = box.tail = none;
    } else {
      free_chain(next_[wc]);
      next_[wc] = none;
      box.tail = wc;
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
      if (k == per_chunk) c = next_[c], k = 0;
      f(chunk(c).records[k]);
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
    std::uint32_t head = none, tail = none, size = 0;
  };
  struct alignas(64) Chunk {
    Record records[per_chunk];
  };
  static_assert(sizeof(Chunk) <= chunk_bytes);

  Chunk& chunk(std::uint32_t c) { return chunks_[c]; }
  const Chunk& chunk(std::uint32_t c) const { return chunks_[c]; }

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

  std::vector<Box> boxes_;
  BlockPool<Chunk> chunks_;          // on huge pages past the first 8 MiB (`hypercube:18`: 0.91 of the time)
  std::vector<std::uint32_t> next_;  // per chunk: the next of its mailbox
};

}  // namespace nnlb::des
