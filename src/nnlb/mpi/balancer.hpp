#pragma once
// nnlb as an MPI library: an application balances its own work items between neighbouring ranks
// while it runs. Each rank registers its items (identity and weight: measured seconds, or an
// estimate), and calls balance() or progress() from its own loop; a balancing policy of this
// toolkit (best effort, Bertsekas-Tsitsiklis, FOS, ...) decides from the rank's local view which
// weight goes to which neighbour, and whole items leave and arrive with their data (pack /
// unpack, or a ready ItemStore). finish(), collective, ends the balancing with every item on
// exactly one rank and returns the run's record on every rank.
//
//   nnlb::mpi::Balancer lb(cartesian_comm);            // neighbours: one step in each dimension
//   nnlb::mpi::ItemStore<std::vector<double>> data;    // the items' data
//   lb.set_payloads(&data);
//   for (auto& [id, v] : my_work) { data.put(id, v); lb.add(id, cost(v)); }
//   while (!done) { compute_one_of(lb.items(), data); lb.balance(); }
//   nnlb::mpi::Record r = lb.finish();                 // collective
//
// examples/ has whole programs; docs/mpi.md is the guide.
//
// The balancer works on a duplicate of the communicator: it never receives the application's
// messages, nor they its. It needs MPI_THREAD_SINGLE or more (all calls from one thread, the
// thread that calls balance()). Open MPI 4.1 has no asynchronous progress: items move only while
// the application calls balance(), progress() or finish(); call one of them at least once per
// balancing period (every iteration of a loop of 1-100 ms is right). Each call does a bounded
// amount of work and never blocks. Only MPI calls that SimGrid's SMPI implements are used, so
// the same program runs on simulated platforms (smpicxx / smpirun).
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "nnlb/engine/core/result.hpp"
#include "nnlb/mpi/estimate.hpp"
#include "nnlb/mpi/locality.hpp"
#include "nnlb/node/payload.hpp"
#include "nnlb/programs/item_choice.hpp"
#include "nnlb/policy/policy.hpp"
#include "nnlb/protocol/tree_detection.hpp"
#include "nnlb/runtime/wire.hpp"

namespace nnlb {
class RankNode;
class AsyncBalancer;
}  // namespace nnlb

namespace nnlb::mpi {

class TraceLog;
class OwnerDirectory;

// What a rank throws when it receives a message on the balancer's communicator that nnlb's
// protocol cannot have sent (wire.hpp). End the job then with MPI_Abort from that rank.
using ProtocolError = wire::ProtocolError;

using Detection = nnlb::Detection;  // Options::detection: off, stop, continuous

struct Options {
  // The decision rule (policy/); null: best effort with leveling k = 1 (Couturier et al. sec. 4).
  std::shared_ptr<const Policy> policy;
  // Seconds between two balancing steps of a rank, taken while the application calls progress()
  // or balance(); 0: one step per call of balance() (a loosely-synchronous application).
  double period = 0;
  bool virtual_load = false;  // Couturier et al. sec. 6: count announced load before it arrives
  // Which items carry a transfer (e.g. those whose neighbours already live at the destination);
  // empty: the heaviest that fit (programs/item_choice.hpp).
  ItemChoice choose{};
  double band = 0.01;         // Record::summary.balanced: every rank within band x the mean
  bool moves = false;         // keep import / export lists for Balancer::moves()
  std::uint64_t seed = 1;     // the ranks' random streams (randomized policies)
  // Decentralized convergence detection on a spanning tree (Jeannot & Vernier sec. 3.3.2; a
  // tree built by flooding from rank 0, one report a step towards its root): Detection::stop ends
  // every rank's balancing at the same step once a whole step moved nothing anywhere (stopped();
  // for an application whose weights no longer change); Detection::continuous balances every
  // 2^level-th call of balance() instead, the level rising with each quiet phase (at most every
  // quiet_every_max-th call) and back to every call when items move again (quiet_level(); weights
  // that change). Exact with balance_and_wait(); with free-running balance() or a period, a step
  // may look quiet while items are still on their way.
  Detection detection = Detection::off;
  std::uint64_t quiet_every_max = 64;
  // Record and replay: a path where finish() has rank 0 write the run's load trace (every item's
  // weights over time and every balancing step, rank by rank), for `nnlb run --set engine=des
  // --set load.trace=PATH --set algorithm=...` to replay under any policy (docs/mpi.md). Empty:
  // nothing is recorded.
  std::string trace;
  // The weight model (docs/mpi.md): measured speeds (measured_speed) and measured item costs
  // (measure) are smoothed, a new sample weighing `smoothing` (the first 1 / smoothing samples
  // averaged); a measured speed is told to the neighbours once warm and then only when it leaves
  // a dead band of `speed_band` around the one in force. `threshold`: a step sends nothing to a
  // neighbour for less than threshold x this rank's load (a balanced load is left alone).
  double smoothing = 0.1;
  double speed_band = 0.1;
  double threshold = 0;
  // Several weights per item (issue 41: compute, memory, ...): one factor per criterion, each
  // item then added with add(id, weights) (as many weights as factors). The policies balance one
  // number per item, the sum of its weights each times its factor: with each factor 1 / the
  // criterion's total over all ranks, every criterion counts equally (Zoltan's multi-criteria
  // 1-norm). The weights travel with the item; loads() gives this rank's per criterion. Empty:
  // one weight per item.
  std::vector<double> criteria;
  // Locality (mpi/locality.hpp): an item's position (2-D or 3-D coordinates, the unused ones 0,
  // or a position on a space-filling curve as the first). With it, each rank tells its
  // neighbours the centre of its items at each step in which it changed, and the choice of items
  // (when `choose` is empty) sends those nearest the boundary facing the receiver, so that a
  // rank's items stay one compact region.
  std::function<Position(ItemId)> position;
  // The largest MPI message (bytes): an item's data beyond it travels in pieces (MPI counts are
  // ints). Tests lower it.
  std::size_t piece_bytes = std::size_t{1} << 30;
};

// The run's record, the same on every rank: the summary as every engine of nnlb writes it
// (docs/result-schema.md: imbalance at the start and end, weight moved, messages, time), each
// rank's weight at start() and at the end, and this rank's own moves.
struct Record {
  RunSummary summary;
  std::vector<double> initial_load, final_load;  // per rank
  std::uint64_t arrived = 0, departed = 0;       // items, this rank
  std::uint64_t late = 0;                        // of those arrived, in finish() (still on their way)
};

// Neighbours from the communicator's own topology: a Cartesian one (the ranks one step away in
// each dimension) or a graph or distributed graph. std::invalid_argument when it has none.
// (MPI_Topo_test, which SimGrid 3.32's SMPI lacks: under SMPI use cartesian_neighbours.)
std::vector<int> topology_neighbours(MPI_Comm comm);
// The ranks one step away in each dimension of a Cartesian communicator.
std::vector<int> cartesian_neighbours(MPI_Comm comm);

class Balancer {
 public:
  // Collective over `comm`. `neighbours`: ranks of `comm`, each listed once, symmetric (if r
  // lists s, s lists r; std::invalid_argument otherwise, on every rank).
  Balancer(MPI_Comm comm, std::vector<int> neighbours, Options options = {});
  // Neighbours from `comm`'s topology (topology_neighbours).
  explicit Balancer(MPI_Comm comm, Options options = {});
  ~Balancer();
  Balancer(const Balancer&) = delete;
  Balancer& operator=(const Balancer&) = delete;

  // --- the application's items on this rank ---
  void add(ItemId id, double weight);        // a new item here (ids unique over all ranks)
  void set_weight(ItemId id, double weight); // a new estimate or measurement of its cost
  // With Options::criteria: an item's weights, one per criterion. set_weight, measure and
  // measured then act on the first (the compute time).
  void add(ItemId id, const std::vector<double>& weights);
  void set_weights(ItemId id, const std::vector<double>& weights);
  std::vector<double> loads() const;         // this rank's items' weights per criterion
  // Scales this rank's weights so that they sum to `seconds` (its last iteration, measured).
  void measured(double seconds);
  // This rank's speed C_i (weight computed per second; 1 on every rank until set), for policies
  // that balance relative to speed: relative-speed diffusion (policy_named("mr"), Jeannot &
  // Vernier sec. 3.2) gives each rank a load in proportion to its speed, and an item keeps its
  // weight wherever it goes. Told to the neighbours at this rank's next step.
  void set_speed(double speed);
  // C_i measured: this rank's items (their weight, load()) took `seconds` to compute. The weights
  // stay (unlike measured()); a rank that holds nothing keeps its last speed. Smoothed, and told
  // only once warm and outside the dead band (Options::smoothing, speed_band).
  void measured_speed(double seconds);
  // Item `id` took `seconds` (or any cost) this time: its weight moves towards it by
  // Options::smoothing (w <- w + smoothing (seconds - w)).
  void measure(ItemId id, double seconds);
  double speed() const { return speed_; }
  void pin(ItemId id);                       // it stays on this rank (its weight still counts)
  void unpin(ItemId id);
  void remove(ItemId id);                    // done, or dropped by the application
  bool holds(ItemId id) const;
  std::vector<ItemId> items() const;         // held here now, pinned ones included
  double load() const;                       // their weight
  // The items' data: packed as an item leaves, unpacked where it arrives (or none: only the
  // identities move). Set before start(); the object must outlive the balancer.
  void set_payloads(ItemPayloads* payloads);
  // Called for every item that arrived here or left (after unpack / pack).
  std::function<void(ItemId)> on_arrival, on_departure;
  // With Options::moves: the items that arrived here (imported) and left (exported) since the
  // last call, in order; the lists are emptied by the call.
  struct Moves {
    std::vector<ItemId> imported, exported;
  };
  Moves moves();

  // --- running ---
  // Collective, once, after this rank's items are registered: the ranks exchange their loads
  // and the balancing starts. The first balance() or progress() calls it if nobody did.
  void start();
  // Receives and sends what is due without blocking, and with a period, balances when due.
  void progress();
  // progress(), and a balancing step now when the period is 0.
  void balance();
  // For a rank with nothing to compute: blocks until a message for the balancer arrives (items,
  // or a report), a balancing step is due, or the application's request `also` (if given)
  // completes; then progress(). Blocks in MPI_Waitany when no step is pending (period 0), so an
  // idle rank costs no processor (and no simulated work under SMPI).
  void wait(MPI_Request* also = nullptr);
  // Collective: balance(), then wait until every item any rank sent has arrived (and was
  // unpacked): a loosely-synchronous application's step, after which each rank's items are
  // settled until its next call. A rank that calls finish() (or balance_and_wait()) while
  // another calls the other ends both with std::logic_error naming the mismatch.
  void balance_and_wait();
  // Every item a neighbour sent before its own call of wait_arrivals() has arrived here (and was
  // unpacked) when this returns: each rank tells each neighbour "nothing more before this" (one
  // 8-byte message per edge and direction; MPI keeps the order of two messages between two
  // ranks) and waits for theirs. No collective: only the neighbours wait for each other. Every
  // rank calls it as often as its neighbours (like a halo exchange); balance() then
  // wait_arrivals() is balance_and_wait() at the cost of a message latency. A rank waiting for a
  // neighbour that called finish() instead throws std::logic_error naming it.
  void wait_arrivals();
  // Collective: the rank that holds each of `ids` now (-1, OwnerDirectory::nobody: none), for
  // addressing the application's messages about items after they moved (a halo exchange).
  // Items on their way arrive first, as in balance_and_wait(); then a distributed directory,
  // updated as items move, answers (mpi/owner_directory.hpp: two MPI_Alltoallv).
  std::vector<int> owners(std::span<const ItemId> ids);
  // Collective: no new decision; every item in flight arrives; the record, on every rank.
  // ConservationError when an item is lost, doubled or its weight changed on the way.
  Record finish();

  // Balancing steps this rank took (calls of balance() that decided), whether the detection
  // stopped them (Options::detection), and the quiet level in force (continuous detection).
  std::uint64_t steps() const;
  bool stopped() const;
  std::uint32_t quiet_level() const;

  // The balancer's own communicator (a duplicate of the one given).
  MPI_Comm communicator() const { return comm_; }

 private:
  class Payloads;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::vector<int> neighbours_;
  Options options_;
  std::shared_ptr<const Policy> policy_;
  std::unique_ptr<AsyncBalancer> program_;
  std::unique_ptr<Payloads> payloads_;
  std::unique_ptr<RankNode> node_;
  std::unordered_map<ItemId, double> pinned_;
  std::unordered_set<ItemId> here_;  // every item held here, pinned ones too
  std::unordered_map<ItemId, std::vector<double>> weights_;  // with Options::criteria: every item's here
  std::unique_ptr<OwnerDirectory> directory_;
  void insert(ItemId id, double weight);  // add(), with the weight the policies balance
  void assign(ItemId id, double weight);  // set_weight(), the same
  double combined(ItemId id, const std::vector<double>& weights) const;
  double registered_ = 0;  // weight added less weight removed, and changes of weight, here
  double magnitude_ = 0;   // the sum of the magnitudes of every term summed into registered_
  Estimate speed_estimate_;
  double speed_ = 1;       // C_i
  std::vector<double> record_start_;  // every rank's load at start()
  bool started_ = false, finished_ = false;
  std::uint64_t epoch_ = 0;  // calls of wait_arrivals()
  // Locality: the neighbours' centres as they told them (by port), and the one this rank told.
  std::vector<Position> centres_;
  Position centre_{NAN, NAN, NAN}, told_{NAN, NAN, NAN};
  void tell_centre(bool tell = true);
  std::unique_ptr<TraceLog> trace_;   // with Options::trace
  double started_at_ = 0;             // MPI_Wtime() at start(): the trace's zero
  double trace_time() const;
  void write_trace(double end);
};

// Ready-made data for items: a value per item of a trivially copyable type, or a std::vector of
// one, copied byte for byte.
template <class T>
class ItemStore final : public ItemPayloads {
 public:
  void put(ItemId id, T value) { values_[id] = std::move(value); }
  T& at(ItemId id) { return values_.at(id); }
  const T& at(ItemId id) const { return values_.at(id); }
  bool contains(ItemId id) const { return values_.contains(id); }
  std::size_t size() const { return values_.size(); }
  void erase(ItemId id) { values_.erase(id); }
  const std::unordered_map<ItemId, T>& all() const { return values_; }

  void pack(ItemId id, std::vector<std::byte>& out) override {
    const auto it = values_.find(id);
    if (it == values_.end()) throw std::logic_error("ItemStore: item " + std::to_string(id) + " has no data here");
    const std::span<const std::byte> bytes = as_bytes(it->second);
    out.insert(out.end(), bytes.begin(), bytes.end());
    values_.erase(it);
  }
  void unpack(ItemId id, std::span<const std::byte> bytes) override { values_[id] = from_bytes(bytes); }

 private:
  template <class U>
  static std::span<const std::byte> as_bytes(const U& v) {
    static_assert(std::is_trivially_copyable_v<U>, "ItemStore holds trivially copyable values or std::vector of them");
    return std::as_bytes(std::span<const U>(&v, 1));
  }
  template <class U>
  static std::span<const std::byte> as_bytes(const std::vector<U>& v) {
    static_assert(std::is_trivially_copyable_v<U>, "ItemStore holds trivially copyable values or std::vector of them");
    return std::as_bytes(std::span<const U>(v));
  }
  static T from_bytes(std::span<const std::byte> bytes) {
    T v{};
    if constexpr (requires { v.data(); v.resize(0); }) {
      using U = typename T::value_type;
      if (bytes.size() % sizeof(U) != 0) throw std::runtime_error("ItemStore: an item's data is not whole values");
      v.resize(bytes.size() / sizeof(U));
      std::memcpy(v.data(), bytes.data(), bytes.size());
    } else {
      if (bytes.size() != sizeof(T)) throw std::runtime_error("ItemStore: an item's data has the wrong size");
      std::memcpy(&v, bytes.data(), sizeof(T));
    }
    return v;
  }
  std::unordered_map<ItemId, T> values_;
};

}  // namespace nnlb::mpi
