#pragma once
// Parameter sweeps: the Cartesian product of value lists over scenario keys, each point run
// `repeat` times with seeds master, master+1, ... (the same seeds at every point: common random
// numbers, so algorithms are compared on the same initial loads). Points run on a thread pool;
// records come back in (point, repeat) order whatever the thread count.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nnlb/experiment/scenario.hpp"
#include "nnlb/experiment/store.hpp"

namespace nnlb {

// One axis of a sweep. A key joining several keys with '+' ("algorithm+leveling") is a zipped
// axis: each value is a list giving those keys together (["best-effort", 2]).
struct SweepAxis {
  std::string key;
  std::vector<nlohmann::json> values;
};

// Sets one axis value on a scenario (several keys for a zipped axis); InputError if malformed.
void apply_axis(Scenario& scenario, const std::string& key, const nlohmann::json& value, const std::string& source);
// The scenario keys an axis sets: "algorithm+leveling" -> {"algorithm", "leveling"}.
std::vector<std::string> axis_keys(const std::string& key);

// Bounds of a sweep: repeats per point, and runs in all (points x repeat).
inline constexpr std::uint64_t max_repeat = 100'000;
inline constexpr std::uint64_t max_runs = 1'000'000;

// Combinations left out of a sweep: a point is left out when it has every key = value of an
// entry ([sweep] exclude = [{algorithm = "ode", topology = "line:16"}]). Values as the scenario
// holds them (Scenario::get).
using SweepExclusion = std::vector<std::pair<std::string, nlohmann::json>>;

struct SweepSpec {
  Scenario base;
  std::vector<SweepAxis> axes;
  std::vector<SweepExclusion> exclude;
  std::uint64_t repeat = 1;
  std::uint64_t master_seed = 1;
  bool keep_series = false;  // keep every run's series (else dropped to save memory)
};

// Point p's key values, in axis order; the last axis varies fastest. Excluded points are left out.
std::vector<std::vector<std::pair<std::string, nlohmann::json>>> sweep_points(const SweepSpec& spec);

// Reports progress: runs finished so far (including those found in the store) and the total.
using SweepProgress = std::function<void(std::size_t done, std::size_t total)>;

// Identity of one run: a hash of the scenario's meaning (every key but the free texts `name`
// and `description`) and its seed. Records in a store with the same key are the same run; the
// code version is not part of the key (a store made by other code is reused, with a warning).
std::string run_key(const nlohmann::json& scenario, std::uint64_t seed);

struct SweepRun {
  int threads = 0;                // 0: all cores
  ResultStore* store = nullptr;   // finished runs are taken from it and new ones appended to it
  int rank = 0, ranks = 1;        // with several processes (MPI), this one runs jobs j % ranks == rank
  SweepProgress progress;
  std::function<void(const std::string&)> note;  // says what the sweep does beyond the plan (reruns)
};

// Runs every point and repeat; each record gets "key", "point" ({key: value}) and "repeat".
// A stored record is reused unless it lacks what the sweep keeps (its series, with keep_series):
// then the run is done again and its new record appended.
// Before anything runs, every point with a run still to do (by any process) is built as a run
// would build it (keys, topology, load, policy), so a bad point stops the sweep with nothing
// written; the first run that fails stops the sweep and its error is rethrown. Returns the records of this process's
// jobs in (point, repeat) order, whatever the thread count.
std::vector<nlohmann::json> run_sweep(const SweepSpec& spec, const SweepRun& how = {});

}  // namespace nnlb
