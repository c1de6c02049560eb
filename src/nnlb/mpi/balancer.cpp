#include "nnlb/mpi/balancer.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "nnlb/engine/core/balance.hpp"
#include "nnlb/engine/core/summary.hpp"
#include "nnlb/mpi/gather.hpp"
#include "nnlb/mpi/owner_directory.hpp"
#include "nnlb/mpi/trace_log.hpp"
#include "nnlb/metrics/load_stats.hpp"
#include "nnlb/policy/best_effort.hpp"
#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/runtime/hosts.hpp"
#include "nnlb/runtime/rank_node.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb::mpi {

// Between the node program's transport and the application: counts the items that leave and
// arrive and tells the application, after its own codec (if any) packed or unpacked them.
class Balancer::Payloads final : public ItemPayloads {
 public:
  explicit Payloads(Balancer& b) : b_(b) {}
  void pack(ItemId item, std::vector<std::byte>& out) override {
    if (user != nullptr) user->pack(item, out);
    if (!b_.options_.criteria.empty()) {  // the item's weights follow its data
      const auto w = b_.weights_.extract(item);
      if (w.empty()) throw std::logic_error("nnlb::mpi: item " + std::to_string(item) + " leaves without its weights");
      const auto bytes = std::as_bytes(std::span<const double>(w.mapped()));
      out.insert(out.end(), bytes.begin(), bytes.end());
    }
    b_.here_.erase(item);
    ++departed;
    if (b_.options_.moves) lists.exported.push_back(item);
    if (b_.on_departure) b_.on_departure(item);
  }
  void unpack(ItemId item, std::span<const std::byte> bytes) override {
    if (!b_.here_.insert(item).second)
      throw std::invalid_argument("nnlb::mpi: item " + std::to_string(item) + " arrived at rank " + std::to_string(b_.rank_) +
                                  ", which holds an item " + std::to_string(item) +
                                  " already: the id was added on two ranks (ids must be unique over all ranks)");
    if (const std::size_t n = b_.options_.criteria.size(); n > 0) {
      if (bytes.size() < n * sizeof(double))
        throw ProtocolError("nnlb::mpi: item " + std::to_string(item) + " arrived without its " + std::to_string(n) + " weights");
      std::vector<double> w(n);
      std::memcpy(w.data(), bytes.data() + bytes.size() - n * sizeof(double), n * sizeof(double));
      b_.weights_[item] = std::move(w);
      bytes = bytes.first(bytes.size() - n * sizeof(double));
    }
    b_.directory_->came(item);
    if (user != nullptr) user->unpack(item, bytes);
    ++arrived;
    if (b_.options_.moves) lists.imported.push_back(item);
    if (b_.on_arrival) b_.on_arrival(item);
  }
  ItemPayloads* user = nullptr;
  std::uint64_t arrived = 0, departed = 0;
  Moves lists;

 private:
  Balancer& b_;
};

namespace {

// Each rank once, in order, and not `rank` itself (a periodic dimension of extent 1 or 2).
std::vector<int> distinct_others(std::vector<int> ranks, int rank) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::erase(ranks, rank);
  return ranks;
}

}  // namespace

std::vector<int> cartesian_neighbours(MPI_Comm comm) {
  int dims = 0, rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Cartdim_get(comm, &dims);
  std::vector<int> out;
  for (int d = 0; d < dims; ++d) {
    int below = MPI_PROC_NULL, above = MPI_PROC_NULL;
    MPI_Cart_shift(comm, d, 1, &below, &above);
    for (int q : {below, above})
      if (q != MPI_PROC_NULL) out.push_back(q);
  }
  return distinct_others(std::move(out), rank);
}

std::vector<int> topology_neighbours(MPI_Comm comm) {
  int kind = MPI_UNDEFINED, rank = 0;
  MPI_Topo_test(comm, &kind);
  MPI_Comm_rank(comm, &rank);
  std::vector<int> out;
  if (kind == MPI_CART) {
    return cartesian_neighbours(comm);
  } else if (kind == MPI_GRAPH) {
    int count = 0;
    MPI_Graph_neighbors_count(comm, rank, &count);
    out.resize(static_cast<std::size_t>(count));
    MPI_Graph_neighbors(comm, rank, count, out.data());
  } else if (kind == MPI_DIST_GRAPH) {
    int in = 0, outs = 0, weighted = 0;
    MPI_Dist_graph_neighbors_count(comm, &in, &outs, &weighted);
    std::vector<int> sources(static_cast<std::size_t>(in)), targets(static_cast<std::size_t>(outs));
    MPI_Dist_graph_neighbors(comm, in, sources.data(), MPI_UNWEIGHTED, outs, targets.data(), MPI_UNWEIGHTED);
    out = sources;
    out.insert(out.end(), targets.begin(), targets.end());
  } else {
    throw std::invalid_argument("nnlb::mpi: the communicator has no topology (Cartesian or graph): give the neighbours");
  }
  return distinct_others(std::move(out), rank);
}

namespace {

// The same check on every rank: each list names other ranks, once each, symmetrically.
void check_neighbours(MPI_Comm comm, const std::vector<int>& mine) {
  const auto [all, counts] = detail::all_lists(comm, mine);
  const int size = static_cast<int>(counts.size());
  std::set<std::pair<int, int>> edges;
  std::size_t at = 0;
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < counts[static_cast<std::size_t>(r)]; ++k) {
      const int s = all[at++];
      if (s < 0 || s >= size || s == r)
        throw std::invalid_argument("nnlb::mpi: rank " + std::to_string(r) + " lists " + std::to_string(s) + " as a neighbour");
      if (!edges.insert({r, s}).second)
        throw std::invalid_argument("nnlb::mpi: rank " + std::to_string(r) + " lists neighbour " + std::to_string(s) + " twice");
    }
  for (const auto& [r, s] : edges)
    if (!edges.contains({s, r}))
      throw std::invalid_argument("nnlb::mpi: rank " + std::to_string(r) + " lists rank " + std::to_string(s) +
                                  " as a neighbour, and rank " + std::to_string(s) + " does not list rank " + std::to_string(r));
}

}  // namespace

Balancer::Balancer(MPI_Comm comm, Options options) : Balancer(comm, topology_neighbours(comm), std::move(options)) {}

Balancer::Balancer(MPI_Comm comm, std::vector<int> neighbours, Options options)
    : neighbours_(std::move(neighbours)), options_(std::move(options)), speed_estimate_(options_.smoothing, options_.speed_band) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  try {
    check_neighbours(comm_, neighbours_);
    policy_ = options_.policy ? options_.policy : std::make_shared<BestEffort>(1.0);
    if (!(options_.period >= 0)) throw std::invalid_argument("nnlb::mpi: the balancing period must be >= 0 seconds");
    if (!(options_.smoothing > 0 && options_.smoothing <= 1))
      throw std::invalid_argument("nnlb::mpi: smoothing " + std::to_string(options_.smoothing) + " (must be in (0, 1])");
    if (!(options_.speed_band >= 0 && std::isfinite(options_.speed_band)))
      throw std::invalid_argument("nnlb::mpi: speed_band " + std::to_string(options_.speed_band) + " (must be >= 0)");
    if (!(options_.threshold >= 0 && options_.threshold < 1))
      throw std::invalid_argument("nnlb::mpi: threshold " + std::to_string(options_.threshold) + " (must be in [0, 1))");
    for (const double f : options_.criteria)
      if (!(f >= 0 && std::isfinite(f))) throw std::invalid_argument("nnlb::mpi: a criterion's factor of " + std::to_string(f) + " (must be >= 0)");
    if (options_.piece_bytes < 1024 || options_.piece_bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw std::invalid_argument("nnlb::mpi: piece_bytes " + std::to_string(options_.piece_bytes) + " (must be 1024 .. 2^31 - 1)");
    AsyncBalancerOptions a;
    a.lb_period = options_.period > 0 ? options_.period : std::numeric_limits<double>::infinity();
    a.virtual_load = options_.virtual_load;
    a.items = true;
    a.computing = false;
    // The threshold below which nothing moves, then the application's choice (or the default).
    a.choose = [this](const Departure& d, std::span<const Item> movable, std::vector<ItemId>& out) {
      if (d.amount < options_.threshold * load()) return;
      if (options_.choose) return options_.choose(d, movable, out);
      if (options_.position) {
        const auto p = static_cast<std::size_t>(std::find(neighbours_.begin(), neighbours_.end(), static_cast<int>(d.to)) - neighbours_.begin());
        if (p < centres_.size() && !std::isnan(centres_[p][0]) && !std::isnan(centre_[0]))
          return nearest_boundary(d.amount, centre_, centres_[p], movable, options_.position, out);
      }
      heaviest_fit(d.amount, movable, out);
    };
    a.detection = options_.detection;
    a.quiet_every_max = options_.quiet_every_max;
    try {
      program_ = std::make_unique<AsyncBalancer>(*policy_, a);
    } catch (const InputError& e) {
      throw std::invalid_argument("nnlb::mpi: " + std::string(e.what()));
    }
  } catch (...) {
    MPI_Comm_free(&comm_);
    throw;
  }
  // Each neighbour's degree, from every rank's count.
  std::vector<int> degree(static_cast<std::size_t>(size_));
  const int mine = static_cast<int>(neighbours_.size());
  MPI_Allgather(&mine, 1, MPI_INT, degree.data(), 1, MPI_INT, comm_);
  payloads_ = std::make_unique<Payloads>(*this);
  directory_ = std::make_unique<OwnerDirectory>(comm_);
  if (!options_.trace.empty()) trace_ = std::make_unique<TraceLog>();
  RankNodeSetup s;
  s.comm = comm_;
  for (int q : neighbours_) s.neighbors.push_back({static_cast<NodeId>(q), static_cast<std::uint32_t>(degree[static_cast<std::size_t>(q)])});
  s.program = program_.get();
  s.seed = options_.seed;
  s.speed = speed_;
  s.payloads = payloads_.get();
  s.piece_bytes = options_.piece_bytes;
  centres_.assign(neighbours_.size(), {NAN, NAN, NAN});
  s.heard = [this](Port p, std::span<const double> v) {
    if (v.size() == 3 && p < centres_.size()) centres_[p] = {v[0], v[1], v[2]};
  };
  s.shared_processor = oversubscribed(gather_hosts(comm_), rank_);
  node_ = std::make_unique<RankNode>(std::move(s));
}

Balancer::~Balancer() {
  node_.reset();  // its posted receive is cancelled first
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void Balancer::add(ItemId id, double weight) {
  if (!options_.criteria.empty())
    throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " added with one weight, and Options::criteria asks for " +
                                std::to_string(options_.criteria.size()) + " (add(id, weights))");
  insert(id, weight);
}

void Balancer::insert(ItemId id, double weight) {
  if (!(weight >= 0 && std::isfinite(weight))) throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " weighs " + std::to_string(weight));
  if (holds(id)) throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " is already here");
  node_->state().add({id, weight, 0});
  here_.insert(id);
  directory_->came(id);
  registered_ += weight;
  magnitude_ += weight;
  if (trace_) trace_->record(TraceLog::Kind::add, trace_time(), id, weight);
}

void Balancer::add(ItemId id, const std::vector<double>& weights) {
  insert(id, combined(id, weights));
  weights_[id] = weights;
}

void Balancer::set_weights(ItemId id, const std::vector<double>& weights) {
  const double w = combined(id, weights);
  assign(id, w);
  weights_[id] = weights;
}

std::vector<double> Balancer::loads() const {
  std::vector<double> out(options_.criteria.size());
  for (const auto& [id, w] : weights_)
    for (std::size_t k = 0; k < out.size(); ++k) out[k] += w[k];
  return out;
}

// The one number the policies balance: the weights, checked, each times its criterion's factor.
double Balancer::combined(ItemId id, const std::vector<double>& weights) const {
  if (options_.criteria.empty()) throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " has several weights and Options::criteria is empty");
  if (weights.size() != options_.criteria.size())
    throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " has " + std::to_string(weights.size()) + " weights, and Options::criteria " +
                                std::to_string(options_.criteria.size()));
  double sum = 0;
  for (std::size_t k = 0; k < weights.size(); ++k) {
    if (!(weights[k] >= 0 && std::isfinite(weights[k])))
      throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " weighs " + std::to_string(weights[k]) + " in criterion " + std::to_string(k));
    sum += options_.criteria[k] * weights[k];
  }
  return sum;
}

double Balancer::trace_time() const { return started_ ? MPI_Wtime() - started_at_ : 0.0; }

void Balancer::set_weight(ItemId id, double weight) {
  if (options_.criteria.empty()) return assign(id, weight);
  const auto it = weights_.find(id);
  if (it == weights_.end()) throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " is not here");
  std::vector<double> w = it->second;
  w[0] = weight;
  set_weights(id, w);
}

void Balancer::assign(ItemId id, double weight) {
  if (!(weight >= 0 && std::isfinite(weight))) throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " weighs " + std::to_string(weight));
  if (!holds(id)) throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " is not here");
  if (trace_) trace_->record(TraceLog::Kind::weight, trace_time(), id, weight);
  Holdings& h = node_->state();
  if (const auto p = pinned_.find(id); p != pinned_.end()) {
    h.load += weight - p->second;
    registered_ += weight - p->second;
    magnitude_ += weight + p->second;
    p->second = weight;
    return;
  }
  const std::size_t k = h.position(id);
  if (k == h.items.size()) throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " is not here");
  h.item_weight += weight - h.items[k].weight;
  registered_ += weight - h.items[k].weight;
  magnitude_ += weight + h.items[k].weight;
  h.items[k].weight = weight;
}

void Balancer::measured(double seconds) {
  if (!(seconds >= 0 && std::isfinite(seconds))) throw std::invalid_argument("nnlb::mpi: measured " + std::to_string(seconds) + " s");
  if (!options_.criteria.empty()) {  // the first criterion, the compute time
    const double first = loads()[0];
    if (first <= 0) return;
    for (auto& [id, w] : weights_) {
      std::vector<double> scaled = w;
      scaled[0] *= seconds / first;
      set_weights(id, scaled);
    }
    return;
  }
  const double total = load();
  if (total <= 0) return;
  const double factor = seconds / total;
  Holdings& h = node_->state();
  h.item_weight = 0;
  for (Item& it : h.items) it.weight *= factor, h.item_weight += it.weight;
  h.load = 0;
  for (auto& [id, w] : pinned_) w *= factor, h.load += w;
  registered_ += load() - total;
  magnitude_ += load() + total;
  if (trace_) {
    const double t = trace_time();
    for (const Item& it : h.items) trace_->record(TraceLog::Kind::weight, t, it.id, it.weight);
    for (const auto& [id, w] : pinned_) trace_->record(TraceLog::Kind::weight, t, id, w);
  }
}

void Balancer::set_speed(double speed) {
  if (!(speed > 0 && std::isfinite(speed))) throw std::invalid_argument("nnlb::mpi: a speed of " + std::to_string(speed) + " (must be > 0)");
  speed_ = speed;
  node_->set_speed(speed);
}

void Balancer::measured_speed(double seconds) {
  if (!(seconds > 0 && std::isfinite(seconds))) throw std::invalid_argument("nnlb::mpi: measured_speed of " + std::to_string(seconds) + " s (must be > 0)");
  if (load() > 0 && speed_estimate_.add(load() / seconds)) set_speed(speed_estimate_.in_force());
}

void Balancer::measure(ItemId id, double seconds) {
  if (!(seconds >= 0 && std::isfinite(seconds)))
    throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " measured at " + std::to_string(seconds) + " s");
  if (!holds(id)) throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " is not here");
  const auto p = pinned_.find(id);
  const Holdings& h = node_->state();
  const double w = !options_.criteria.empty() ? weights_.at(id)[0] : p != pinned_.end() ? p->second : h.items[h.position(id)].weight;
  set_weight(id, w + options_.smoothing * (seconds - w));
}

void Balancer::pin(ItemId id) {
  if (pinned_.contains(id)) return;
  const ItemId one[] = {id};
  if (node_->state().position(id) == node_->state().items.size())
    throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " is not here");
  const Item it = node_->state().extract(one).front();
  if (trace_) trace_->record(TraceLog::Kind::pin, trace_time(), id);
  pinned_[id] = it.weight;
  node_->state().load += it.weight;
}

void Balancer::unpin(ItemId id) {
  const auto p = pinned_.find(id);
  if (p == pinned_.end()) return;
  if (trace_) trace_->record(TraceLog::Kind::unpin, trace_time(), id);
  node_->state().load -= p->second;
  node_->state().add({id, p->second, 0});
  pinned_.erase(p);
}

void Balancer::remove(ItemId id) {
  if (!holds(id)) throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " is not here");
  if (trace_) trace_->record(TraceLog::Kind::remove, trace_time(), id);
  weights_.erase(id);
  directory_->removed(id);
  Holdings& h = node_->state();
  if (const auto p = pinned_.find(id); p != pinned_.end()) {
    h.load -= p->second;
    registered_ -= p->second;
    magnitude_ += p->second;
    pinned_.erase(p);
    here_.erase(id);
    return;
  }
  if (h.position(id) == h.items.size()) throw std::invalid_argument("nnlb::mpi: item " + std::to_string(id) + " is not here");
  const ItemId one[] = {id};
  const double w = h.extract(one).front().weight;
  registered_ -= w;
  magnitude_ += w;
  here_.erase(id);
}

bool Balancer::holds(ItemId id) const { return here_.contains(id); }

std::vector<ItemId> Balancer::items() const {
  std::vector<ItemId> out;
  for (const Item& it : node_->state().items) out.push_back(it.id);
  for (const auto& [id, w] : pinned_) out.push_back(id);
  return out;
}

double Balancer::load() const { return node_->state().held(); }

void Balancer::set_payloads(ItemPayloads* payloads) {
  if (started_) throw std::logic_error("nnlb::mpi: set_payloads after start()");
  payloads_->user = payloads;
}

Balancer::Moves Balancer::moves() {
  if (!options_.moves) throw std::logic_error("nnlb::mpi: moves() needs Options::moves");
  return std::exchange(payloads_->lists, {});
}

void Balancer::start() {
  if (started_) return;
  started_ = true;
  // Every rank's load, speed and centre (locality): the neighbours' are set-up knowledge, the
  // loads the record's start.
  tell_centre(false);
  const double mine[5] = {load(), speed_, centre_[0], centre_[1], centre_[2]};
  std::vector<double> all(5 * static_cast<std::size_t>(size_));
  MPI_Allgather(mine, 5, MPI_DOUBLE, all.data(), 5, MPI_DOUBLE, comm_);
  record_start_.resize(static_cast<std::size_t>(size_));
  for (std::size_t q = 0; q < record_start_.size(); ++q) record_start_[q] = all[5 * q];
  std::vector<double> loads, speeds;
  for (Port p = 0; p < neighbours_.size(); ++p) {
    const double* q = &all[5 * static_cast<std::size_t>(neighbours_[p])];
    loads.push_back(q[0]), speeds.push_back(q[1]), centres_[p] = {q[2], q[3], q[4]};
  }
  node_->know_initial(loads, speeds);
  MPI_Barrier(comm_);
  started_at_ = MPI_Wtime();
  node_->start(started_at_);
}

void Balancer::progress() {
  if (finished_) throw std::logic_error("nnlb::mpi: progress() after finish()");
  start();
  node_->progress(true);
}

void Balancer::wait(MPI_Request* also) {
  start();
  node_->wait(also);
  progress();
}

void Balancer::balance() {
  // The step's load for the trace: what this rank holds before it takes the arrivals of this
  // step, so that an item sent at a neighbour's step is not counted at both ends.
  if (trace_ && options_.period == 0) start(), trace_->record(TraceLog::Kind::step, trace_time(), 0, load());
  progress();
  tell_centre();
  if (options_.period > 0) return;
  node_->fire(AsyncBalancer::balance_timer);
}

// Locality: this rank's centre before a step, told to the neighbours when it changed (`tell`).
void Balancer::tell_centre(bool tell) {
  if (!options_.position) return;
  std::vector<Item> all(node_->state().items.begin(), node_->state().items.end());
  for (const auto& [id, w] : pinned_) all.push_back({id, w, 0});
  centre_ = centre_of(std::span<const Item>(all), options_.position);
  if (!tell) told_ = centre_;
  if (std::isnan(centre_[0]) || centre_ == told_) return;
  told_ = centre_;
  for (Port p = 0; p < neighbours_.size(); ++p) node_->tell(p, centre_);
}

std::uint64_t Balancer::steps() const { return node_->agent() ? AsyncBalancer::status(*node_->agent()).steps : 0; }
bool Balancer::stopped() const { return node_->agent() && AsyncBalancer::status(*node_->agent()).stopped; }
std::uint32_t Balancer::quiet_level() const { return node_->agent() ? AsyncBalancer::status(*node_->agent()).quiet_level : 0; }

void Balancer::balance_and_wait() {
  balance();
  node_->drain(1, "balance_and_wait()");
  node_->renotify();  // the program takes what came (its data channel), reports wait for its next step
}

std::vector<int> Balancer::owners(std::span<const ItemId> ids) {
  if (finished_) throw std::logic_error("nnlb::mpi: owners() after finish()");
  start();
  node_->drain(3, "owners()");
  node_->renotify();  // the program takes what came, as after balance_and_wait()
  return directory_->owners(ids, [this](ItemId id) { return holds(id); });
}

void Balancer::wait_arrivals() {
  if (finished_) throw std::logic_error("nnlb::mpi: wait_arrivals() after finish()");
  start();
  node_->flush(++epoch_);
  node_->wait_markers(epoch_, "wait_arrivals()");
  node_->renotify();  // the program takes what came, as after balance_and_wait()
}

Record Balancer::finish() {
  if (finished_) throw std::logic_error("nnlb::mpi: finish() called twice");
  start();
  finished_ = true;
  node_->mark_finishing();  // a neighbour waiting in wait_arrivals() hears of it
  const std::uint64_t arrived = payloads_->arrived;
  node_->drain(2, "finish()");
  node_->settle();  // what was on its way is here now
  Record rec;
  rec.initial_load = record_start_;
  rec.arrived = payloads_->arrived, rec.departed = payloads_->departed;
  rec.late = rec.arrived - arrived;
  // This rank's weight recounted from its items (not the running sums).
  double mine = 0;
  for (const Item& it : node_->state().items) mine += it.weight;
  for (const auto& [id, w] : pinned_) mine += w;
  rec.final_load.resize(static_cast<std::size_t>(size_));
  MPI_Allgather(&mine, 1, MPI_DOUBLE, rec.final_load.data(), 1, MPI_DOUBLE, comm_);
  const Tally& tally = node_->tally();
  double sums[6] = {registered_, tally.moved(), static_cast<double>(tally.messages(Channel::control)),
                    static_cast<double>(tally.messages(Channel::data)), magnitude_ + std::abs(mine), static_cast<double>(node_->handlers())};
  double all[6];
  MPI_Allreduce(sums, all, 6, MPI_DOUBLE, MPI_SUM, comm_);
  double time = node_->now(), longest = 0;
  MPI_Allreduce(&time, &longest, 1, MPI_DOUBLE, MPI_MAX, comm_);
  double detected = tally.detected_at().value_or(std::numeric_limits<double>::infinity());
  MPI_Allreduce(MPI_IN_PLACE, &detected, 1, MPI_DOUBLE, MPI_MIN, comm_);
  // Conservation, recounted: every item on exactly one rank, and the weight held everywhere is
  // the weight the application registered (less what it removed), within the rounding of the
  // running sums: a relative 1e-9, or 64 ulps of every magnitude summed (add(1e6) twenty times,
  // then measured(0.01), leaves a registered total of 0.01 give or take 2e7's rounding).
  if (const auto doubled = detail::twice(detail::all_ids(comm_, items())))
    throw ConservationError("nnlb::mpi: item " + std::to_string(*doubled) + " is on two ranks at the end");
  const double held = std::accumulate(rec.final_load.begin(), rec.final_load.end(), 0.0);
  const double error = std::abs(held - all[0]) / std::max(std::abs(all[0]), 1e-300);
  const double rounding = 64 * std::numeric_limits<double>::epsilon() * all[4];
  if (error > 1e-9 && std::abs(held - all[0]) > rounding)
    throw ConservationError("nnlb::mpi: the ranks hold a weight of " + std::to_string(held) + " and the application registered " +
                            std::to_string(all[0]));
  RunSummary& sum = rec.summary;
  const LoadStats first = load_stats<double>(rec.initial_load, {}), last = load_stats<double>(rec.final_load, {});
  open_summary(sum, first, first.total);
  double grain = 0;
  for (const Item& it : node_->state().items) grain = std::max(grain, it.weight);
  MPI_Allreduce(MPI_IN_PLACE, &grain, 1, MPI_DOUBLE, MPI_MAX, comm_);
  const BalanceRule rule{options_.band, grain};
  close_summary(sum, StopReason::finished, rule.all_within(rec.final_load, held, {}), last, rec.final_load, all[1]);
  sum.final_total = held;
  sum.max_conservation_error = error;
  TimeMetrics t;
  t.time = longest;
  t.control_messages = static_cast<std::uint64_t>(all[2]);
  t.data_messages = static_cast<std::uint64_t>(all[3]);
  t.events = static_cast<std::uint64_t>(all[5]);  // handlers run, as on every engine (docs/result-schema.md)
  t.data_transferred = held > 0 ? all[1] / held : 0;
  sum.timing = t;
  if (std::isfinite(detected)) sum.detected_at = detected;
  if (trace_) write_trace(longest);
  return rec;
}

// Collective: every rank's part of the trace to rank 0, which writes the file (in one piece:
// written beside it, then renamed).
void Balancer::write_trace(double end) {
  double until = trace_->full_at();
  MPI_Allreduce(MPI_IN_PLACE, &until, 1, MPI_DOUBLE, MPI_MIN, comm_);
  const std::string mine = trace_->lines(rank_, until);
  if (mine.size() > static_cast<std::size_t>(std::numeric_limits<int>::max() / 2))
    throw std::length_error("nnlb::mpi: the load trace of rank " + std::to_string(rank_) + " is over 1 GiB");
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_);
  long long total = 0;
  for (int q = 0; q < size_; ++q) offsets[static_cast<std::size_t>(q)] = static_cast<int>(std::min<long long>(total, std::numeric_limits<int>::max())), total += counts[static_cast<std::size_t>(q)];
  const auto [edges, degrees] = detail::all_lists(comm_, neighbours_);
  if (rank_ == 0 && total > std::numeric_limits<int>::max()) throw std::length_error("nnlb::mpi: the load trace is over 2 GiB");
  std::string all(rank_ == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR, 0, comm_);
  if (rank_ != 0) return;
  const std::string path = options_.trace, partial = path + ".partial";
  std::FILE* f = std::fopen(partial.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("nnlb::mpi: cannot write the load trace " + partial);
  std::fprintf(f, "nnlb-trace 1\nranks %d\nmeta policy %s\nmeta period %.9g\nmeta virtual_load %d\n", size_, policy_->name().c_str(),
               options_.period, options_.virtual_load ? 1 : 0);
  if (std::isfinite(until)) std::fprintf(f, "meta truncated_at %.9g\n", until);
  std::size_t at = 0;
  for (int r = 0; r < size_; ++r)
    for (int k = 0; k < degrees[static_cast<std::size_t>(r)]; ++k, ++at)
      if (r < edges[at]) std::fprintf(f, "edge %d %d\n", r, edges[at]);
  std::fwrite(all.data(), 1, all.size(), f);
  std::fprintf(f, "end %.9g\n", std::isfinite(until) ? std::min(until, end) : end);
  const bool written = std::ferror(f) == 0;
  if (std::fclose(f) != 0 || !written) {
    std::remove(partial.c_str());
    throw std::runtime_error("nnlb::mpi: cannot write the load trace " + path);
  }
  std::filesystem::rename(partial, path);
}

}  // namespace nnlb::mpi
