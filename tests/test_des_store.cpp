// The discrete-event engine's store of messages (engine/des/mail_store.hpp, issue 37): mailboxes
// keep their messages in order through bursts, partial takes and chunks reused from the pool, and
// the recount still finds every message waiting in one.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <fstream>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/core/agenda.hpp"
#include "nnlb/engine/core/node_state.hpp"
#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/engine/des/mail_store.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/util/block_pool.hpp"
#include "nnlb/util/fifo.hpp"
#include "nnlb/util/huge_pages.hpp"
#include "support.hpp"

namespace nnlb {
namespace {

using IntStore = des::MailStore<int>;
const int per_chunk = static_cast<int>(IntStore().per_chunk());  // 128: 512 bytes

// The records of mailbox b, oldest first.
std::vector<int> records_of(const IntStore& store, std::size_t b) {
  std::vector<int> v;
  store.for_each(b, [&](int r) { v.push_back(r); });
  return v;
}

std::vector<int> run_of(int first, int count) {
  std::vector<int> v(static_cast<std::size_t>(count));
  std::iota(v.begin(), v.end(), first);
  return v;
}

TEST(MailStore, ChunksAreReusedAfterManyDeliveries) {
  IntStore store(2);
  int next = 0;
  for (int round = 0; round < 10000; ++round) {  // steady traffic: a few messages, then a take of all
    for (int k = 0; k < 5; ++k) store.put(round % 2, next++);
    std::vector<int> taken;
    EXPECT_EQ(store.take_if(round % 2, [&](int r) { return taken.push_back(r), true; }), 5u);
    ASSERT_EQ(taken, run_of(next - 5, 5)) << "round " << round;
    ASSERT_EQ(store.chunks_in_use(), 0u);
  }
  EXPECT_EQ(store.chunks_made(), 1u);
}

TEST(MailStore, KeepsOrderThroughABurstAndPartialTakes) {
  IntStore store(2);
  for (int k = 0; k < 1000; ++k) store.put(0, k), store.put(1, -k);  // two bursts, chunks interleaved
  const std::size_t burst = store.chunks_in_use();
  EXPECT_EQ(burst, 2u * ((1000 + per_chunk - 1) / per_chunk));
  std::vector<int> taken;
  EXPECT_EQ(store.take_if(0, [&](int r) { return r % 2 == 0 ? (taken.push_back(r), true) : false; }), 500u);
  EXPECT_EQ(taken, [] {
    std::vector<int> even;
    for (int k = 0; k < 1000; k += 2) even.push_back(k);
    return even;
  }());
  std::vector<int> odd;
  for (int k = 1; k < 1000; k += 2) odd.push_back(k);
  EXPECT_EQ(records_of(store, 0), odd);
  EXPECT_EQ(store.chunks_in_use(), burst / 2 + (500 + per_chunk - 1) / per_chunk);  // the emptied chunks went back
  for (int k = 1000; k < 1000 + 3 * per_chunk; ++k) store.put(0, k);  // appended after the kept ones, in reused chunks
  const std::vector<int> more = run_of(1000, 3 * per_chunk);
  odd.insert(odd.end(), more.begin(), more.end());
  EXPECT_EQ(records_of(store, 0), odd);
  EXPECT_EQ(store.chunks_made(), burst);
  store.take_if(0, [](int r) { return r < 1000; });
  EXPECT_EQ(records_of(store, 0), run_of(1000, 3 * per_chunk));
  EXPECT_EQ(records_of(store, 1).size(), 1000u);
}

TEST(MailStore, AMailboxReusesTheChunksAnotherGaveBack) {
  IntStore store(3);
  for (int k = 0; k < 50 * per_chunk; ++k) store.put(0, k);
  store.take_if(0, [](int) { return true; });
  EXPECT_EQ(store.chunks_in_use(), 0u);
  for (int k = 0; k < 30 * per_chunk; ++k) store.put(1 + k % 2, k);
  EXPECT_EQ(store.chunks_made(), 50u);
  EXPECT_EQ(store.chunks_in_use(), 30u);
  std::vector<int> even, odd;
  for (int k = 0; k < 30 * per_chunk; ++k) (k % 2 ? odd : even).push_back(k);
  EXPECT_EQ(records_of(store, 1), even);
  EXPECT_EQ(records_of(store, 2), odd);
}

// A store told how many records a chunk should hold sizes its chunks for them, in whole cache
// lines (20 records of 40 bytes: 13 lines), from one line to 2 KiB (512 bytes when not told);
// records keep their order and their bytes across the chunks' odd boundaries, through many takes
// and reuses.
TEST(MailStore, ChunksSizedForWhatAMailboxMostlyHolds) {
  struct Report40 {
    std::array<double, 5> v;
  };
  using Store = des::MailStore<Report40>;
  EXPECT_EQ(Store().per_chunk(), 12u);           // 512 bytes
  EXPECT_EQ(Store(1, 5).per_chunk(), 6u);        // 200 bytes: 4 lines
  EXPECT_EQ(Store(1, 1).per_chunk(), 1u);        // one line
  EXPECT_EQ(Store(1, 1000).per_chunk(), 51u);    // never more than 2 KiB
  const auto report = [](int k) { return Report40{{k + 0.5, -k * 1.0, k * 2.0, k * 3.0, k * 4.0}}; };
  for (const std::uint32_t per_chunk : {20u, 1u}) {
    SCOPED_TRACE(per_chunk);
    Store store(3, per_chunk);
    ASSERT_EQ(store.per_chunk(), per_chunk);
    int next = 0;
    std::vector<int> expected[3];
    for (int round = 0; round < 300; ++round) {
      const std::size_t b = static_cast<std::size_t>(round % 3);
      const int burst = 1 + (round * 7) % 45;  // within a chunk, to it exactly, across two or more
      for (int k = 0; k < burst; ++k) store.put(b, report(next)), expected[b].push_back(next++);
      if (round % 4 == 3) {  // a partial take: every third record leaves
        std::vector<int> kept;
        std::size_t n = 0;
        store.take_if(b, [&](const Report40&) { return n++ % 3 == 0; });
        for (std::size_t i = 0; i < expected[b].size(); ++i)
          if (i % 3 != 0) kept.push_back(expected[b][i]);
        expected[b] = kept;
      } else if (round % 4 == 1) {
        store.take_if(b, [](const Report40&) { return true; });
        expected[b].clear();
      }
      std::size_t i = 0;
      store.for_each(b, [&](const Report40& r) {
        ASSERT_LT(i, expected[b].size());
        EXPECT_EQ(r.v[0], expected[b][i] + 0.5) << "round " << round;
        EXPECT_EQ(r.v[4], expected[b][i] * 4.0) << "round " << round;
        ++i;
      });
      ASSERT_EQ(i, expected[b].size()) << "round " << round;
    }
    std::size_t held = 0;
    for (const auto& e : expected) held += (e.size() + per_chunk - 1) / per_chunk;
    EXPECT_EQ(store.chunks_in_use(), held);  // the fewest chunks that hold them
  }
}

TEST(MailStore, ReleaseHandsBackEveryRecordInOrder) {
  IntStore store(1);
  for (int k = 0; k < 3 * per_chunk; ++k) store.put(0, k);
  store.take_if(0, [](int r) { return r % 3 == 0; });
  std::vector<int> rest;
  for (int k = 0; k < 3 * per_chunk; ++k)
    if (k % 3 != 0) rest.push_back(k);
  EXPECT_EQ(store.release(0), rest);
  EXPECT_EQ(store.size(0), 0u);
  EXPECT_EQ(store.chunks_in_use(), 0u);
}

// Best effort from one node on hypercube:4, computing a unit for 1 ms: the data a node receives
// waits in its mailbox until its computation ends, across many samples (each a recount).
RunResult waiting_run(const FaultInjection& faults) {
  const Topology t = make_topology("hypercube:4", 1);
  PolicySpec spec;
  spec.algorithm = "best-effort";
  const BuiltPolicy built = make_policy(spec, t);
  const AsyncBalancer program(*built.policy, {.flops_per_unit = 1e6});
  std::vector<double> w0(16, 0.0);
  w0[0] = 1600;
  DesOptions o;
  o.time_limit = 2;
  o.stop_when_balanced = false;
  o.sample_period = 1e-3;
  o.faults = faults;
  return run_des(t, program, LoadMode::real, {w0, {}}, Platform{{1e9}, {5e-5}, {1.25e8}}, o);
}

// A control message keeps its fields in its mailbox record and a data message its load (the
// record each channel's messages mostly need, des_run.hpp); what a record has no room for goes to
// the cargo store. Node 0 sends both kinds with both, -0.0 among the fields, on a channel that
// notifies and on a silent one; node 1 takes them at 1 ms: everything arrives bit for bit. At
// 10 us, before the link's 50 us, node 1 takes nothing (a silent channel's data record has no
// arrival: a message put before it arrives keeps its arrival in its cargo entry). A data record
// has no label either: the first data message's tag is the store's, another one's is in its
// cargo entry.
struct Sent {
  Channel channel;
  double load;
  std::array<double, 3> value;
  std::uint32_t tag = 7;
};
const std::vector<Sent> sent_both_ways = {{Channel::control, 5, {1, -0.0, 3}},  // load on control
                                          {Channel::data, 7, {-0.0, 2, 0}},     // fields on data
                                          {Channel::control, 0, {4, 5, 6}, 9},
                                          {Channel::data, 0.25, {0, 0, 0}},
                                          {Channel::data, 1.5, {0, 0, 0}, 9},  // another tag on data
                                          {Channel::data, -0.0, {0, 0, 0}},
                                          {Channel::control, -0.0, {0, 0, 0}},  // kept as sent
                                          {Channel::data, 0, {-0.0, 0, 0}, 0}};

class CargoAgent final : public Agent {
 public:
  CargoAgent(std::vector<Message>* got, std::size_t* early) : got_(got), early_(early) {}
  void start(Context& ctx) override {
    if (ctx.self() == 0)
      for (const Sent& m : sent_both_ways) ctx.send(0, m.channel, m.tag, m.value, 100, {.load = m.load});
    ctx.set_timer(1e-5, 1);
    ctx.set_timer(1e-3, 0);
  }
  void timer(Context& ctx, std::uint32_t tag) override {
    if (ctx.self() != 1) return;
    for (const Channel c : {Channel::control, Channel::data})
      for (const Message& m : ctx.take(c)) tag == 0 ? got_->push_back(m) : void(++*early_);
  }

 private:
  std::vector<Message>* got_;
  std::size_t* early_;  // taken before the link's latency
};

class CargoProgram final : public Program {
 public:
  CargoProgram(bool notify, std::vector<Message>* got, std::size_t* early) : notify_(notify), got_(got), early_(early) {}
  std::string name() const override { return "cargo"; }
  std::unique_ptr<Agent> make_agent(NodeId) const override { return std::make_unique<CargoAgent>(got_, early_); }
  bool notifies(Channel) const override { return notify_; }

 private:
  bool notify_;
  std::vector<Message>* got_;
  std::size_t* early_;
};

TEST(DesMailboxes, EachChannelsRecordKeepsWhatItsMessagesCarry) {
  const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
  for (const bool notify : {false, true}) {
    std::vector<Message> got;
    std::size_t early = 0;
    const CargoProgram program(notify, &got, &early);
    const Topology t = make_topology("line:2", 1);
    DesOptions o;
    o.time_limit = 2e-3;
    o.stop_when_balanced = false;
    const RunResult r = run_des(t, program, LoadMode::real, {{20, 0}, {}}, Platform{{1e9}, {5e-5}, {1.25e8}}, o);
    EXPECT_EQ(early, 0u) << "notify " << notify;
    ASSERT_EQ(got.size(), sent_both_ways.size()) << "notify " << notify;
    std::size_t k = 0;
    for (const Channel c : {Channel::control, Channel::data})  // taken channel by channel, each in the order sent
      for (const Sent& m : sent_both_ways) {
        if (m.channel != c) continue;
        const Message& g = got[k++];
        EXPECT_EQ(g.tag, m.tag) << "notify " << notify << ", message " << k;
        EXPECT_EQ(g.port, 0u);
        EXPECT_EQ(bits(g.load), bits(m.load)) << "notify " << notify << ", message " << k;
        for (std::size_t f = 0; f < 3; ++f) EXPECT_EQ(bits(g.value[f]), bits(m.value[f])) << "notify " << notify << ", message " << k;
      }
    EXPECT_LE(r.summary.max_conservation_error, 1e-12);
  }
}

// The pool of messages on their way (util/block_pool.hpp): indices given back are made again, the
// last given back first, and objects keep their place while the pool grows block by block (a
// 24-byte object: blocks of 2^18 in 6 MiB, three huge pages).
TEST(BlockPool, ReusesIndicesAndNeverMovesAnObject) {
  struct Flight24 {
    std::uint64_t a, b, c;
  };
  using Pool = BlockPool<Flight24>;
  static_assert(Pool::per_block == (std::uint32_t{1} << 18));
  Pool pool;
  const std::uint32_t first = pool.make();
  pool[first] = {1, 2, 3};
  const Flight24* where = &pool[first];
  std::vector<std::uint32_t> made;
  for (std::uint32_t k = 0; k < Pool::per_block + 5; ++k) made.push_back(pool.make()), pool[made.back()] = {k, k, k};
  EXPECT_EQ(pool.made(), Pool::per_block + 6);  // a second block
  EXPECT_EQ(&pool[first], where);
  EXPECT_EQ(pool[first].b, 2u);
  EXPECT_EQ(pool[made.back()].a, Pool::per_block + 4);
  pool.give_back(made[7]), pool.give_back(made[Pool::per_block + 2]);
  EXPECT_EQ(pool.in_use(), Pool::per_block + 4);
  EXPECT_EQ(pool.make(), made[Pool::per_block + 2]);
  EXPECT_EQ(pool.make(), made[7]);
  EXPECT_EQ(pool.make(), Pool::per_block + 6);  // then new ones again
  EXPECT_EQ(pool.in_use(), pool.made());
}

// An index of a wide pool names `width` objects side by side (a mailbox's chunk of 10 cache lines):
// no two indices share an object, across a block's end (32,768 indices of 10 lines: 20 MiB).
TEST(BlockPool, AWideIndexOwnsItsObjects) {
  struct alignas(64) Line64 {
    std::uint64_t word[8];
  };
  using Pool = BlockPool<Line64>;
  static_assert(Pool::per_block == 32768);
  Pool pool(10);
  EXPECT_EQ(pool.width(), 10u);
  const std::uint32_t count = Pool::per_block + 40;
  for (std::uint32_t i = 0; i < count; ++i) {
    ASSERT_EQ(pool.make(), i);
    for (std::uint32_t k = 0; k < 10; ++k) (&pool[i])[k].word[7] = std::uint64_t{i} * 10 + k;
  }
  for (std::uint32_t i = 0; i < count; ++i)
    for (std::uint32_t k = 0; k < 10; ++k) ASSERT_EQ((&pool[i])[k].word[7], std::uint64_t{i} * 10 + k) << "index " << i;
}

// A compacting pool (the messages on their way, whose burst at t = 0 is many times what later
// flies): indices come from the lowest block with room, an emptied upper block leaves memory once
// the block below is at most half full, and is made again only when every block below is full.
TEST(BlockPool, ACompactingPoolGivesBackTheBlocksOfABurst) {
  struct Flight24 {
    std::uint64_t a, b, c;
  };
  using Pool = BlockPool<Flight24>;
  constexpr std::uint32_t per = Pool::per_block;
  Pool pool(1, false, true);
  std::vector<std::uint32_t> burst;
  for (std::uint32_t k = 0; k < 3 * per; ++k) burst.push_back(pool.make()), pool[burst.back()] = {k, 0, 0};
  EXPECT_EQ(pool.blocks_held(), 3u);
  // Most of the burst lands; what stays on its way keeps its place and value.
  const std::uint32_t stays = per / 4, late = 2 * per + 9;  // one in block 0, one in block 2
  for (std::uint32_t i : burst)
    if (i != stays && i != late && (i >= per / 2 || i % 2 == 0)) pool.give_back(i);
  EXPECT_EQ(pool.blocks_held(), 2u);  // block 1 emptied after block 0 was half full
  EXPECT_EQ(pool.in_use(), per / 4 + 2);  // the odd ones of block 0's first half, and the two
  EXPECT_EQ(pool[late].a, late);
  pool.give_back(late);
  EXPECT_EQ(pool.blocks_held(), 1u);
  EXPECT_EQ(pool[stays].a, stays);
  // New messages fill block 0, the last given back first, before any other block is made again.
  std::uint32_t highest = 0;
  const std::size_t room = per - pool.in_use();
  for (std::size_t k = 0; k < room; ++k) highest = std::max(highest, pool.make());
  EXPECT_LT(highest, per);
  EXPECT_EQ(pool.blocks_held(), 1u);
  EXPECT_EQ(pool.make(), per);  // block 1, made again from its start
  EXPECT_EQ(pool.blocks_held(), 2u);
  std::vector<std::uint32_t> visited;
  pool.for_each_made([&](std::uint32_t i) { visited.push_back(i); });
  ASSERT_EQ(visited.size(), per + 1);  // block 0 and what block 1 made since, not the gone block 2
  EXPECT_EQ(visited.back(), per);
}

// The event queue's lanes (util/fifo.hpp): a ring that wraps around while it drains and refills,
// and grows while wrapped, hands its elements back in the order pushed.
TEST(Fifo, KeepsOrderThroughWrapAndGrowth) {
  Fifo<int> q;
  std::vector<int> expected;  // what q holds, front first
  std::size_t taken = 0;
  int next = 0;
  for (int burst = 1; burst <= 40; ++burst) {
    for (int k = 0; k < burst; ++k) q.push_back(next), expected.push_back(next++);  // grows at 16, 32, 64
    for (int k = 0; k < burst / 2 + 1 && !q.empty(); ++k) {                           // and wraps as it drains
      ASSERT_EQ(q.front(), expected[taken]);
      q.pop_front(), ++taken;
    }
    ASSERT_EQ(q.size(), expected.size() - taken);
    for (std::size_t k = 0; k < q.size(); ++k) ASSERT_EQ(q[k], expected[taken + k]);
    if (!q.empty()) {
      ASSERT_EQ(q.back(), expected.back());
    }
  }
  while (!q.empty()) {
    ASSERT_EQ(q.front(), expected[taken++]);
    q.pop_front();
  }
  EXPECT_EQ(taken, expected.size());
}

// A ring that held a burst gives its room back as it drains (halving below a quarter full, not
// below `kept`), wrapped or not, and still hands its elements back in the order pushed.
TEST(Fifo, GivesBackTheRoomOfABurst) {
  Fifo<int> q;
  int next = 0, taken = 0;
  for (int k = 0; k < 100; ++k) q.push_back(next++), q.pop_front(), ++taken;  // the front far from slot 0
  for (int k = 0; k < 20000; ++k) q.push_back(next++);
  EXPECT_EQ(q.capacity(), 32768u);
  while (q.size() > 100) {
    ASSERT_EQ(q.front(), taken++);
    q.pop_front();
    if (taken % 1000 == 0) q.push_back(next++);  // pushes between the pops: wraps while it shrinks
  }
  EXPECT_EQ(q.capacity(), Fifo<int>::kept);
  while (!q.empty()) {
    ASSERT_EQ(q.front(), taken++);
    q.pop_front();
  }
  EXPECT_EQ(taken, next);
}

// The core's agenda (engine/core/agenda.hpp), which orders the toy engine's events and the SimGrid
// and MPI nodes' timers: the earliest first, at equal times in the order added, through a heap's
// reshuffles.
TEST(Agenda, EarliestFirstThenInTheOrderAdded) {
  Agenda<int> a;
  EXPECT_EQ(a.next_time(), std::numeric_limits<double>::infinity());
  std::vector<std::pair<double, int>> added;
  for (int k = 0; k < 200; ++k) {
    const double at = (k * 37) % 11;  // 11 times, each added many times, out of order
    a.add(at, k), added.emplace_back(at, k);
  }
  int visited = 0;
  a.for_each([&](int) { ++visited; });
  EXPECT_EQ(visited, 200);
  std::stable_sort(added.begin(), added.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [at, k] : added) {
    ASSERT_EQ(a.next_time(), at);
    ASSERT_EQ(a.next(), k);
    ASSERT_EQ(a.pop(), k);
  }
  EXPECT_TRUE(a.empty());
}

// The huge-page request after a large run's set-up (util/huge_pages.hpp): a mapping written
// throughout is asked for; one barely written (a sanitizer's shadow) is not, since a collapse would
// fill it.
TEST(HugePages, OnlyAMappingWrittenThroughoutIsCollapsed) {
#if defined(__linux__)
  constexpr std::size_t bytes = std::size_t{64} << 20;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto* b = static_cast<unsigned char*>(p);
  b[0] = 1;  // sparse
  const std::size_t sparse = collapse_to_huge_pages(bytes / 2);
  for (std::size_t k = 0; k < bytes; k += 4096) b[k] = 1;  // written throughout
  const std::size_t dense = collapse_to_huge_pages(bytes / 2);
  EXPECT_GE(dense, sparse + bytes - 2 * huge_page_bytes);  // its whole huge pages, now
  for (std::size_t k = 0; k < bytes; k += 4096) ASSERT_EQ(b[k], 1);  // the same contents
  munmap(p, bytes);
#else
  GTEST_SKIP() << "huge pages are asked for on Linux only";
#endif
}

#if defined(__linux__)
// The mapping of /proc/self/smaps that holds address `at`: its AnonHugePages in KiB, or -1 when
// no mapping holds it.
long huge_kib_at(const void* at) {
  const auto a = reinterpret_cast<std::uintptr_t>(at);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    const auto dash = line.find('-'), space = line.find(' ');
    if (dash != std::string::npos && space != std::string::npos && dash < space && line.find(':') > space) {
      inside = std::stoull(line.substr(0, dash), nullptr, 16) <= a && a < std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
    } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      return std::stol(line.substr(14));
    }
  }
  return -1;
}

// Whether the kernel grants transparent huge pages to a mapping that asks (`madvise` or `always`).
bool huge_pages_on_request() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(mode, text);
  return text.find("[never]") == std::string::npos && !text.empty();
}
#endif

// A store's block (util/huge_pages.hpp) is a fresh mapping of its own on a huge page boundary:
// zeros until written, on huge pages once written where the kernel grants them on request (memory
// the allocator hands out again may be on small pages for good), and gone once freed.
TEST(HugePages, ABlockIsAFreshMappingOfItsOwn) {
#if defined(__linux__)
  constexpr std::size_t count = 2 * huge_page_bytes / sizeof(std::uint64_t);
  HugeArray<std::uint64_t> block = huge_array<std::uint64_t>(count, true);
  const void* at = block.get();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(at) % huge_page_bytes, 0u);
  EXPECT_TRUE(std::all_of(block.get(), block.get() + count, [](std::uint64_t x) { return x == 0; }));
  for (std::size_t k = 0; k < count; ++k) block[k] = k;
  if (huge_pages_on_request()) {
    EXPECT_GT(huge_kib_at(at), 0) << "no huge page for a block written throughout";
  }
  EXPECT_EQ(block[count - 1], count - 1);
  block.reset();
  EXPECT_EQ(huge_kib_at(at), -1) << "the block is still mapped";
#else
  GTEST_SKIP() << "huge pages are asked for on Linux only";
#endif
}

// A store's links and free list (HugeVector) keep their values while they grow from the heap into
// a mapping of their own, on a huge page boundary from 4 MiB on.
TEST(HugePages, AGrowingVectorMovesToAMappingOfItsOwn) {
  HugeVector<std::uint32_t> links;
  const std::uint32_t count = 3 * huge_page_bytes / sizeof(std::uint32_t);
  for (std::uint32_t k = 0; k < count; ++k) links.push_back(k * 7);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(links.data()) % huge_page_bytes, 0u);
  for (std::uint32_t k = 0; k < count; ++k) ASSERT_EQ(links[k], k * 7) << k;
  links.resize(10);
  links.shrink_to_fit();  // from the heap again
  EXPECT_EQ(links.size(), 10u);
  EXPECT_EQ(links[9], 63u);
}

TEST(DesStore, EveryMessageWaitingInAMailboxIsRecounted) {
  const RunResult r = waiting_run({});
  EXPECT_NEAR(r.summary.final_total, 1600, 1600 * 1e-12);
  EXPECT_GT(std::stoull(r.engine_info.at("messages_held_peak")), 16u);
  EXPECT_GT(r.summary.load_moved, 0);
}

TEST(DesStore, TheRecountFindsADroppedAndADuplicatedMessage) {
  for (int fault = 0; fault < 2; ++fault) {
    FaultInjection f;
    (fault == 0 ? f.drop_every : f.duplicate_every) = 5;
    EXPECT_THROW(waiting_run(f), ConservationError) << (fault == 0 ? "dropped" : "duplicated");
  }
}

// A node's item in hand (engine/core/node_state.hpp) is made at its first execute: reading it
// sees an idle one and makes nothing, so a run without items keeps no Execution a node.
TEST(DesStore, ANodeMakesItsItemInHandOnlyWhenItExecutes) {
  NodeState node;
  const NodeState& seen = node;
  EXPECT_FALSE(seen.in_hand().item);
  EXPECT_EQ(seen.in_hand().busy, 0.0);
  EXPECT_EQ(node.execution, nullptr);
  node.add({7, 2.0});
  Execution& hand = node.hand();
  hand.begin(node, 7, 1, 0.0, 2.0, 0);
  ASSERT_NE(node.execution, nullptr);
  EXPECT_EQ(&node.hand(), &hand);  // made once
  EXPECT_EQ(&seen.in_hand(), &hand);
  EXPECT_TRUE(seen.in_hand().item);
  EXPECT_TRUE(node.items.empty());
}

// Ports derived from the graph and the platform (des::GraphPorts, a graph that does not change)
// and ports kept per node (des::NodePorts, used when nodes leave or join) give the same run: the
// same neighbour facts, wires and peer ports. A join listed after the run's end makes the run keep
// its ports per node without changing it. Heterogeneous speeds and links, a control lane of its
// own, items, and a matching policy that reads the edges' colours.
TEST(DesStore, PortsFromTheGraphRunAsPortsKeptPerNode) {
  const Topology t = make_topology("hypercube:4", 1);
  const EdgeColoring colors = edge_coloring_for(t);
  const auto slots = t.graph.num_slots();
  Platform platform{{}, {}, {}};
  for (NodeId i = 0; i < 16; ++i) platform.speed.push_back(1e9 * (1 + i % 3));
  for (Slot s = 0; s < slots; ++s)  // delays of the order of the balancing period
    platform.latency.push_back(1e-4 * static_cast<double>(1 + s % 5)), platform.bandwidth.push_back(1e6 * static_cast<double>(1 + s % 4));
  InitialState init{std::vector<double>(16, 0.0), std::vector<std::vector<Item>>(16)};
  for (NodeId i = 0; i < 16; ++i) init.load[i] = 100 + 37 * ((7 * i) % 16);
  for (ItemId k = 0; k < 20; ++k) init.items[9].push_back({k, 1 + 0.5 * static_cast<double>(k), 100});
  for (const std::string algorithm : {"bertsekas-tsitsiklis", "ade"}) {
    PolicySpec spec;
    spec.algorithm = algorithm;
    const BuiltPolicy built = make_policy(spec, t);
    const AsyncBalancer program(*built.policy, {.lb_period = 1e-3, .virtual_load = algorithm != "ade", .colors = colors.num_colors, .items = true});
    DesOptions o;
    o.time_limit = 0.5;
    o.stop_when_balanced = false;
    o.sample_period = 0.05;
    o.record_final_load = true;
    o.separate_control = true;
    o.record_load_history = true;
    const RunResult fixed = run_des(t, program, LoadMode::real, init, platform, o, &colors);
    const RunResult kept = run_des(t, program, LoadMode::real, init, platform, o, &colors, {{GraphChange::Kind::join, 1e9, 16, {0}}});
    EXPECT_GT(fixed.summary.load_moved, 0) << algorithm;
    EXPECT_EQ(fixed.summary.timing->events, kept.summary.timing->events) << algorithm;
    EXPECT_EQ(fixed.summary.timing->control_messages, kept.summary.timing->control_messages) << algorithm;
    EXPECT_EQ(fixed.summary.timing->data_messages, kept.summary.timing->data_messages) << algorithm;
    EXPECT_EQ(fixed.summary.load_moved, kept.summary.load_moved) << algorithm;
    EXPECT_EQ(fixed.final_load, kept.final_load) << algorithm;
    EXPECT_EQ(fixed.load_history.loads, kept.load_history.loads) << algorithm;
  }
}

// Node 0 sends to each neighbour a tag that the message's word holds itself, tags that need the
// item store (top bit set), with and without load, and one send_each; every receiver logs what
// it takes.
struct Taken {
  NodeId to, from;
  Port port;
  std::uint32_t tag;
  double load;
  auto operator<=>(const Taken&) const = default;
};
constexpr std::array<std::uint32_t, 3> probe_tags = {7, 0x80000005u, 0xfffffffeu};

class TagProbe : public Program {
  class Node : public Agent {
   public:
    explicit Node(std::vector<Taken>* log) : log_(log) {}
    void start(Context& ctx) override {
      if (ctx.self() != 0) return;
      for (Port p = 0; p < ctx.degree(); ++p)
        for (std::uint32_t tag : probe_tags) ctx.send(p, Channel::data, tag, {}, 8, {.load = tag == 7 ? 0.0 : 1.0});
      ctx.send_each(Channel::data, 0x80000009u, std::vector<std::array<double, 3>>(ctx.degree()), 8);
    }
    void arrived(Context& ctx, Channel c) override {
      for (const Message& m : ctx.take(c)) log_->push_back({ctx.self(), m.from, m.port, m.tag, m.load});
    }

   private:
    std::vector<Taken>* log_;
  };

 public:
  std::string name() const override { return "tag-probe"; }
  std::unique_ptr<Agent> make_agent(NodeId) const override { return std::make_unique<Node>(&log); }
  mutable std::vector<Taken> log;
};

TEST(DesStore, TagsWithTheTopBitSetTravelThroughTheItemStore) {
  const Topology t = make_topology("ring:5", 1);
  std::vector<double> w0(5, 10.0);
  DesOptions o;
  o.time_limit = 1;
  o.stop_when_balanced = false;
  std::vector<Taken> expected;
  for (Port p = 0; p < 2; ++p) {
    const NodeId to = t.graph.target(t.graph.first_slot(0) + p);
    const Port back = t.graph.target(t.graph.first_slot(to)) == 0 ? 0 : 1;
    for (std::uint32_t tag : probe_tags) expected.push_back({to, 0, back, tag, tag == 7 ? 0.0 : 1.0});
    expected.push_back({to, 0, back, 0x80000009u, 0.0});
  }
  std::sort(expected.begin(), expected.end());
  for (const bool dynamic : {false, true}) {  // the link as the receiver's port, or as the sender
    SCOPED_TRACE(dynamic);
    const TagProbe program;
    const std::vector<GraphChange> changes = dynamic ? std::vector<GraphChange>{{GraphChange::Kind::join, 1e9, 5, {0}}} : std::vector<GraphChange>{};
    const RunResult r = run_des(t, program, LoadMode::real, {w0, {}}, Platform{{1e9}, {5e-5}, {1.25e8}}, o, nullptr, changes);
    std::sort(program.log.begin(), program.log.end());
    EXPECT_EQ(program.log, expected);
    EXPECT_LE(r.summary.max_conservation_error, 1e-12);
  }
}

}  // namespace
}  // namespace nnlb
