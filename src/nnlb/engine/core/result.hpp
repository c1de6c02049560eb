#pragma once
// What every engine returns: a per-step (or per-sample) series and a summary. The experiment
// layer turns it into the JSON result record (docs/result-schema.md).
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "nnlb/engine/core/stop_reason.hpp"

namespace nnlb {

struct StepRecord {
  std::uint64_t round = 0;  // engine iterations (one colour class for dimension exchange)
  std::uint64_t steps = 0;  // communication steps, counted as Xu et al. do for the port model
  double time = 0;          // simulated seconds (time-based engines), 0 for the synchronous engine
  double imbalance = 0;     // nu
  double stddev = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double moved = 0;         // load transferred since the previous row
};

// Time-based engines: the metrics of Couturier, Giersch & Hakem sec. 7.2.
struct TimeMetrics {
  double time = 0;                  // simulated seconds at the stop
  double avg_idle_time = 0;         // mean over nodes of the time spent holding no load
  double avg_convergence_time = 0;  // mean over nodes of their last entry into the band
  double max_convergence_time = 0;  // the last node's
  double data_transferred = 0;      // load carried by data messages / total load
  std::uint64_t control_messages = 0, data_messages = 0, events = 0;
};

// Node programs that execute items (Context::execute): tasks completed, when the last one was,
// and each node's time spent executing.
struct WorkMetrics {
  std::uint64_t completed = 0;
  double last_completion = 0;
  std::vector<double> busy;  // per node
};

struct RunSummary {
  StopReason stop_reason = StopReason::steps;  // stop_reason.hpp
  bool balanced = false;                       // the final state is balanced (BalanceRule), or the imbalance/spread target was reached
  std::optional<std::uint64_t> steps_to_balance;
  std::uint64_t rounds = 0;
  std::uint64_t steps = 0;
  double initial_imbalance = 0;
  double final_imbalance = 0;
  double final_stddev = 0;
  double final_spread = 0;                     // max - min
  double load_moved = 0;                       // divisible load and item weight sent over links
  double initial_total = 0;                    // divisible load plus item weights, held or in flight
  double final_total = 0;                      // the same at the stop (completed items no longer count)
  double max_conservation_error = 0;           // relative, worst over the run (0 in integer mode)
  std::optional<TimeMetrics> timing;           // time-based engines only
  // When a node of a detection protocol reported global termination (seconds, or rounds in the
  // synchronous engine); the oracle's figures above are the simulator's global view.
  std::optional<double> detected_at;
  // When the last node's program finished (Context::finished), if every node did.
  std::optional<double> finished_at;
  std::uint64_t nodes_with_load = 0;           // nodes holding load at the end ("processors used")
  std::optional<WorkMetrics> work;             // when items were executed
  std::map<std::string, double> notes;         // Context::note
};

// Every node's load at sampled moments, for heat maps of load over nodes and time.
struct LoadHistory {
  std::vector<double> steps;               // communication steps (sync) or seconds (time-based engines)
  std::vector<std::vector<double>> loads;  // loads[k][i]: node i at sample k
};

struct RunResult {
  // False on the processes of a distributed engine that do not report (MPI ranks other than 0):
  // the run happened, its result is on rank 0.
  bool reported = true;
  std::vector<StepRecord> series;
  // Columns an engine adds to the series, one value per row (the loosely-synchronous engine's
  // progress, migrations, ...).
  std::map<std::string, std::vector<double>> columns;
  RunSummary summary;
  std::vector<double> final_load;  // filled when asked for
  LoadHistory load_history;        // filled when asked for
  // What the engine ran on, for the record (the simulator's version, its network settings).
  std::map<std::string, std::string> engine_info;
};

// Thrown when an engine finds that load was created or destroyed.
struct ConservationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace nnlb
