#pragma once
// Conservation of load and items, shared by the engines. The ledger remembers what the run
// started with; a check is handed a fresh recount (every node's holdings plus every message really
// on a wire) and compares: integer loads exactly, real loads to 1e-9 relative, item identities as
// a multiset (each initial identity held or in flight exactly once).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "nnlb/node/agent.hpp"
#include "nnlb/engine/core/execution.hpp"
#include "nnlb/engine/core/holdings.hpp"
#include "nnlb/engine/core/initial_state.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/exact_sum.hpp"

namespace nnlb {

class Ledger {
 public:
  static constexpr double real_tolerance = 1e-9;

  // A recount, built from what is really there: every node's holdings and item in hand, every
  // message on a wire or not yet taken, every item completed. Its sums are exact (ExactSum), so
  // they do not depend on the order an engine visits what it holds in.
  struct Count {
    std::vector<std::uint64_t> items;  // identities, completed included, any order

    void node(const Holdings& h, const Execution& e) {
      load_.add(h.load);
      for (const Item& it : h.items) items.push_back(it.id), weight_.add(it.weight);
      if (e.item) items.push_back(e.item->id), weight_.add(e.item->weight);
    }
    void in_flight(double carried, std::span<const Item> carried_items) {
      load_.add(carried);
      for (const Item& it : carried_items) items.push_back(it.id), weight_.add(it.weight);
    }
    void completed(const Completions& c) { items.insert(items.end(), c.ids.begin(), c.ids.end()); }
    // Another recount's sums (a rank's, in the MPI engine).
    void add(double load, double item_weight) { load_.add(load), weight_.add(item_weight); }

    double load() const { return load_.value(); }            // divisible load
    // Its divisible load less `booked`, exactly, then rounded.
    double load_beyond(const ExactSum& booked) const {
      ExactSum drift = load_;
      drift.subtract(booked);
      return drift.value();
    }
    double item_weight() const { return weight_.value(); }  // items held, in hand or in flight (not completed)
    // What the run holds now: divisible load and the weight of the items not yet completed.
    double total() const {
      ExactSum all = load_;
      all.add(weight_);
      return all.value();
    }

   private:
    ExactSum load_, weight_;
  };

  void add(double load) { total_ += load, exact_total_.add(load), abs_total_ += std::abs(load); }
  // Gives node i its initial holdings and books them.
  void open(Holdings& h, const InitialState& initial, std::size_t i) {
    h.load = initial.load[i];
    if (!initial.items.empty())
      for (const Item& it : initial.items[i]) h.add(it), add_item(it);
    add(h.load);
  }
  void add_item(const Item& it) { items_.push_back(it.id), item_weight_ += it.weight, sorted_ = false; }
  // Items changed weight by `delta` in all (an application's new estimates, replayed from a trace).
  void reweigh(double delta) { item_weight_ += delta; }
  // Divisible load: what the run started with plus what the nodes' work added.
  double total() const { return total_; }
  // The weight of every item the run started with.
  double item_weight() const { return item_weight_; }
  // The run's load now: divisible load and the items not yet completed (`completed`: their weight).
  double current_total(double completed) const { return total_ + item_weight_ - completed; }

  // Throws ConservationError naming `where` if the recount differs; returns the relative error
  // of the load (0 in integer mode): the recount's exact total less the booked one, exactly, so
  // the model's own drift, however far below an ulp of the total.
  double check(Count count, bool integer, const std::string& where) {
    double err = 0;
    const double drift = count.load_beyond(exact_total_);
    if (integer) {
      if (drift != 0)
        throw ConservationError("integer load not conserved at " + where + ": " + whole(count.load()) + " held or in flight, " +
                                whole(exact_total_.value()) + " at the start");
    } else {
      err = std::abs(drift) / std::max(abs_total_, 1e-300);
      if (!(err <= real_tolerance))
        throw ConservationError("load not conserved at " + where + ": relative error " + std::to_string(err));
    }
    if (!items_.empty() || !count.items.empty()) check_items(std::move(count.items), where);
    return err;
  }

 private:
  static std::string whole(double x) { return std::to_string(static_cast<long long>(x)); }

  void check_items(std::vector<std::uint64_t> found, const std::string& where) {
    if (!sorted_) std::sort(items_.begin(), items_.end()), sorted_ = true;
    std::sort(found.begin(), found.end());
    if (found == items_) return;
    const auto dup = std::adjacent_find(found.begin(), found.end());
    if (dup != found.end())
      throw ConservationError("item " + std::to_string(*dup) + " held or in flight twice at " + where);
    std::vector<std::uint64_t> diff;
    std::set_symmetric_difference(items_.begin(), items_.end(), found.begin(), found.end(), std::back_inserter(diff));
    throw ConservationError("item " + std::to_string(diff.front()) +
                            (std::binary_search(items_.begin(), items_.end(), diff.front()) ? " lost" : " appeared") + " at " + where);
  }

  double total_ = 0, abs_total_ = 0, item_weight_ = 0;  // total_: summed in the order booked, as the run reports it
  ExactSum exact_total_;                                // the same exactly, what a recount is checked against
  std::vector<std::uint64_t> items_;
  bool sorted_ = true;
};

// Checks a node program's Context::add_load(delta) against what node `node` holds (`load`).
inline void check_add_load(double delta, double load, bool integer, NodeId node) {
  if (!std::isfinite(delta) || delta < -load || (integer && delta != std::floor(delta)))
    throw std::logic_error("node " + std::to_string(node) + ": add_load(" + std::to_string(delta) + ") with " + std::to_string(load) +
                           " held" + (integer ? " (integer mode: whole units)" : ""));
}

// Whether `coloring` colours every slot of a graph with `slots` slots; throws InputError when the
// program needs a colouring and has none.
inline bool usable_coloring(const Program& program, const EdgeColoring* coloring, std::uint64_t slots) {
  const bool colored = coloring != nullptr && coloring->slot_color.size() == slots;
  if (program.needs().edge_coloring && !colored)
    throw InputError({}, "algorithm", "program '" + program.name() + "' needs an edge colouring");
  return colored;
}

}  // namespace nnlb
