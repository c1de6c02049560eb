#include "nnlb/experiment/scenario.hpp"

#include "nnlb/engine/registry.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/programs.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/input_file.hpp"

namespace nnlb {

namespace {

using Type = KeyInfo::Type;
using nlohmann::json;

// The policies' keys come from the policy catalog, after `algorithm`.
std::vector<KeyInfo> policy_keys() {
  std::vector<KeyInfo> out;
  for (const PolicyKey& k : policy_catalog().keys()) {
    switch (k.type) {
      case PolicyKey::Type::number:
        out.push_back({k.name, Type::number, k.default_value.empty() ? json(nullptr) : json(std::stod(k.default_value)), k.doc, {}});
        break;
      case PolicyKey::Type::boolean:
        out.push_back({k.name, Type::boolean, k.default_value.empty() ? json(nullptr) : json(k.default_value == "true"), k.doc, {}});
        break;
      case PolicyKey::Type::text_or_number:
        out.push_back({k.name, Type::text_or_number, k.default_value.empty() ? json(nullptr) : json(k.default_value), k.doc, {}});
        break;
    }
  }
  return out;
}

std::vector<std::string> engine_names() {
  std::vector<std::string> names;
  for (const EngineEntry& e : engines()) names.push_back(e.name);
  return names;
}

// "auto" and every node program `agent` can name (programs.hpp), registered ones included.
std::vector<std::string> agent_choices() {
  std::vector<std::string> names{"auto"};
  for (const ProgramEntry& p : programs())
    if (p.by_agent) names.push_back(p.name);
  return names;
}

std::vector<KeyInfo> make_keys() {
  std::vector<KeyInfo> keys = {
      {"name", Type::string, "", "free label of the scenario", {}},
      {"description", Type::string, "", "free text", {}},
      {"engine", Type::string, "sync",
       "engine that runs the policy: synchronous rounds, discrete events, real processes (mpi: under mpirun -np P, one rank per "
       "node), or loosely-synchronous jobs on a changing P2P network in time units (p2p: algorithm = en | dasud | pm | sid | push | pull); "
       "rounds: node programs in lock-step rounds (see `nnlb list`)",
       engine_names()},
      {"mpi.drop_every", Type::integer, std::int64_t{0},
       "mpi, fault injection: lose every k-th message carrying load or items (the conservation check must then fail); 0: none", {}},
      {"mpi.work_scale", Type::number, 1.0, "mpi: real seconds of the compute kernel per second of an item's work (Context::execute)", {}},
      {"guest.graph", Type::string, "mesh:8x8", "p2p (and des/mpi with a job strategy): the guest graph G, jobs joined by synchronization edges (any topology spec or graph file)", {}},
      {"guest.mapping", Type::string, "single",
       "p2p (and des/mpi with a job strategy): where the jobs start: single (all on host 0) | block (consecutive jobs together) | random | "
       "file:PATH (a host id per line, job by job)", {}},
      {"p2p.iteration", Type::number, 10.0, "p2p: time units of a job's iteration on a dedicated host (Douglas & Harwood: 10)", {}},
      {"p2p.iterations", Type::integer, std::int64_t{0}, "p2p: iterations of the application: the run ends when every job has done them (0: it runs to stop.time)", {}},
      {"p2p.migration_cost", Type::number, 0.0, "p2p: time units a migrating job does no work", {}},
      {"p2p.gamma", Type::number, 0.0, "p2p: synchronization time per hop between the hosts of neighbouring jobs (sec. 4.5); 0: free", {}},
      {"guest.selection", Type::string, "none",
       "p2p (and des/mpi with a job strategy): which jobs migrate (Douglas & Harwood sec. 4.5): any (none; p2p draws them at random, a node "
       "program sends those it received last), the largest cut in hops to their neighbours' hosts (distance), the smallest edge cut "
       "(edge-cut); a node program knows only its own jobs and where it sent jobs",
       {"none", "distance", "edge-cut"}, {"p2p.selection"}},
      {"p2p.sample_every", Type::integer, std::int64_t{1}, "p2p: time units between samples of the series", {}},
      {"p2p.balance_every", Type::integer, std::int64_t{1},
       "p2p: time units between two balancing rounds of every host (the paper does not say; 1: every time unit, "
       "p2p.iteration = 10: once an iteration)", {}},
      {"churn.half_life", Type::number, nullptr, "p2p, des: half-life tau of the hosts (each leaves with probability 1 - 2^(-1/tau) a time unit, a second on des, and a new one enters); unset: no churn", {}},
      {"churn.repair", Type::boolean, false,
       "p2p: overlay repair; a part of H cut off by churn links to the largest part again (its lowest host rejoins by the "
       "entering rule); the paper assumes H stays connected, which its rule does not ensure", {}},
      {"churn.events", Type::string, "", "p2p, des: scripted events, comma-separated: leave@T (a random host leaves), leave:HOST@T, enter@T (by the join rule)", {}},
      {"agent", Type::string, "auto",
       "node program that runs the policy (nnlb list: node programs): rounds (synchronous steps by messages, Xu et al.), "
       "async (Couturier et al.'s processes), iterative (Jeannot & Vernier's application with balancing steps, algorithm = "
       "\"mr\"); auto: the engine's default (rounds on sync and rounds, async on des, simgrid and mpi)",
       agent_choices()},
      {"topology", Type::string, "torus:8x8", "graph spec (see `nnlb list`)", {}},
      {"algorithm", Type::string, "fos", "balancing policy (see `nnlb list`)", {}},
      {"port", Type::string, "all", "communication model: all-port or one-port step accounting", {"all", "one"}},
      {"de.sweep_cost", Type::string, "colours",
       "dimension exchange: each colour class costs a step, or a whole sweep costs one step", {"colours", "one"}},
      {"invocation", Type::string, "synchronous", "which nodes balance: every node every step, or out-of-band nodes",
       {"synchronous", "threshold"}},
      {"threshold.low", Type::number, 200.0, "threshold invocation: balance when load < low", {}},
      {"threshold.high", Type::number, 800.0, "threshold invocation: balance when load > high", {}},
      {"load.mode", Type::string, "real", "real (divisible) or integer (indivisible units, transfers rounded down)",
       {"real", "integer"}},
      {"load.init", Type::string, "uniform:0,1000", "uniform:LO,HI | single:NODE,TOTAL | random-total:TOTAL | stairs:TOTAL (share of node i ~ N - i) | file:PATH | NUMBER (TOTAL: a number or X*N)", {}},
      {"load.trace", Type::string, nullptr,
       "des: replay an application's load trace (nnlb::mpi::Options::trace): its ranks, neighbours and items are the run's, its "
       "recorded weight changes and balancing steps happen at their recorded times, under the chosen algorithm (docs/mpi.md)", {}},
      {"load.trace_choice", Type::string, "heaviest-fit",
       "des with load.trace: which items carry a transfer: the heaviest that fit, or line-blocks (a 1-D decomposition: the edge facing "
       "the receiver, one direction per step, as the stencil example chooses)", {"heaviest-fit", "line-blocks"}},
      {"load.trace_steps", Type::string, "lockstep",
       "des with load.trace: when the recorded balancing steps fire: at their recorded times, or each rank's k-th step at the time of "
       "the last rank's k-th (a loosely-synchronous application: every rank decides on its neighbours' reports of the step before)",
       {"lockstep", "recorded"}},
      {"workload.kind", Type::string, "static", "static load, or dynamic generation/consumption each step (sync) or each iteration (agent = iterative)", {"static", "dynamic"}},
      {"workload.generation_mean", Type::number, 100.0, "dynamic: mean load generated per node per step", {}},
      {"workload.generation_variance", Type::number, 30.0, "dynamic: variance of the generation (normal)", {}},
      {"workload.consumption", Type::number, 100.0, "dynamic: load consumed per node per step (at most what it holds)", {}},
      {"platform.speed", Type::string, "1e9", "node speeds in flop/s: NUMBER | uniform:LO,HI | file:PATH", {}},
      {"platform.preset", Type::string, "none",
       "network of Jeannot & Vernier sec. 4.2: lan (100 Mb/s, 0.15 ms), dsl (1 Mb/s, 40 ms), two-cluster (Fig. 6: two halves at "
       "3000 / 2000 Mflop/s, 1 Gb/s and 0.15 ms inside, a 15 ms backbone); none: the platform.* keys",
       {"none", "lan", "dsl", "two-cluster"}},
      {"platform.file", Type::string, nullptr, "platform file: per-node speeds and per-link latency and bandwidth, applied last (docs/platform-files.md); on engine = simgrid a "
       "SimGrid XML platform (a name ending in .xml: its hosts, speeds and routes; docs/simgrid.md)", {}},
      {"platform.latency", Type::number, 5e-5, "link latency in seconds (time-based engines)", {}},
      {"platform.bandwidth", Type::number, 1.25e8, "link bandwidth in bytes/s (time-based engines)", {}},
      // The asynchronous programs' processes (Couturier et al. sec. 6.1) and the sizes of all
      // programs' messages, on every engine with time (des, mpi, simgrid). Their des.* names of earlier
      // versions are aliases.
      {"async.virtual_load", Type::boolean, false, "async: announce transfers in control messages; receivers count announced load (Couturier et al. sec. 6)", {}, {"des.virtual_load"}},
      {"async.flops_per_unit", Type::number, 1e5, "async: computation per load unit and iteration (flop)", {}, {"des.flops_per_unit"}},
      {"async.comp_comm_ratio", Type::number, nullptr, "async: set async.flops_per_unit so that computing a unit takes this many times as long as sending it", {}, {"des.comp_comm_ratio"}},
      {"async.lb_period", Type::number, 1e-3, "async and job strategies: minimum period of the balancing process (s)", {}, {"des.lb_period"}},
      {"async.comp_min_period", Type::number, 1e-4, "async: minimum period of the computing process (s)", {}, {"des.comp_min_period"}},
      {"async.compute_first", Type::boolean, false, "async: at t = 0 each node computes before it first balances", {}, {"des.compute_first"}},
      {"async.stagger", Type::boolean, false, "async: balancing processes start at a random offset in [0, lb_period) instead of in lock step", {}, {"des.stagger"}},
      {"async.initial_knowledge", Type::boolean, true, "async: nodes start knowing their neighbours' initial loads (else 0 until the first reports)", {}, {"des.initial_knowledge"}},
      {"async.compute_chunk", Type::number, 0.0, "async: compute in slices of at most this many seconds and ship decided load between them (0: an iteration is atomic)", {}, {"des.compute_chunk"}},
      {"async.detection", Type::string, "off",
       "async: Jeannot & Vernier's spanning-tree convergence detection over the balancing steps (sec. 3.3.2): stop (no decision after the step "
       "the tree agrees on once a step was quiet everywhere), continuous (2^level runs of the balancing process between two steps, the level "
       "rising with each quiet phase and back to 0 when load moves)",
       {"off", "stop", "continuous"}},
      {"async.quiet_every_max", Type::integer, std::int64_t{64}, "async.detection = continuous: at most this many runs of the balancing process between two steps", {}},
      {"message.bytes_per_unit", Type::number, 1250.0, "des, mpi, simgrid: data message bytes per load unit", {}, {"des.bytes_per_unit"}},
      {"message.control_bytes", Type::number, 64.0, "des, mpi, simgrid: size of a control message (bytes)", {}, {"des.control_bytes"}},
      {"des.separate_control", Type::boolean, false, "des: control messages get a lane of their own instead of queueing behind data", {}},
      // engine = "simgrid" (docs/simgrid.md).
      {"simgrid.network", Type::string, "serial",
       "simgrid: serial = a link direction transmits one message at a time, latency pipelined (des's links); sharing = messages start at "
       "once and share bandwidth (SimGrid's max-min); first in, first out per link either way",
       {"serial", "sharing"}},
      {"simgrid.mapping", Type::string, "order",
       "simgrid: nodes onto the hosts of a SimGrid platform.file (.xml): order (node i on the i-th host, names in natural order), "
       "random (seeded), or file:PATH (one host name per line, node i on line i)",
       {}},
      {"output.sample_period", Type::number, 0.0, "des, mpi, simgrid: series sampling period (seconds, simulated or wall-clock); 0: 10 balancing periods", {}, {"des.sample_period"}},
      {"app.iterations", Type::integer, std::int64_t{1000}, "iterative: iterations of the application", {}},
      {"app.lb_every", Type::integer, std::int64_t{1}, "iterative: a balancing step every this many iterations (from the first)", {}},
      {"app.work_per_unit", Type::number, 1e6, "iterative: computation per load unit and iteration (flop)", {}},
      {"app.pre_cost", Type::number, 0.0, "iterative: PreExcCost, seconds per load unit sent", {}},
      {"app.post_cost", Type::number, 0.0, "iterative: PostExcCost, seconds per load unit received", {}},
      {"app.cost_benefit", Type::string, "off", "iterative: exchange only when cost < k * benefit; k constant, k - 1 per step, or also halved when an iteration slows (Jeannot & Vernier secs. 3.1, 4.2.2)",
       {"off", "constant", "decreasing", "adaptive"}},
      {"app.k", Type::number, 1000.0, "iterative: k(0) of the cost/benefit filter", {}},
      {"app.detection", Type::boolean, false,
       "iterative: spanning-tree convergence detection (sec. 3.3.2): stops balancing under static load; under a dynamic workload "
       "(workload.kind) balances half as often after each quiet phase and at the base rate again when load moves",
       {}},
      {"app.lb_every_max", Type::integer, std::int64_t{64}, "iterative, dynamic workload with detection: the longest interval between balancing steps (iterations)", {}},
      {"tasks.init", Type::string, "cq:3072",
       "dd/ms/ca: the tasks, work in seconds on a core of the default speed: file:PATH (one per line) | cq:N (like Filipović & "
       "Krstajić's switch simulations) | cq-structured:N (the same in the paper's order: 8 algorithms x 12 buffer sizes x 32 "
       "traffic files; the per-algorithm and per-buffer factors are our guess, held only to Fig. 4's statistics) | uniform:N,LO,HI",
       {}},
      {"tasks.cores", Type::integer, std::int64_t{16}, "dd/ms/ca: cores (the nodes of complete:P; core 0 is MS's master and CA's coordinator)", {}},
      {"tasks.latency", Type::number, 0.0, "dd/ms/ca: seconds a request (or any message and its answer) costs, 0 to 1e6", {}},
      {"tasks.background", Type::string, "none",
       "dd/ms/ca: background load, the fraction of each core's speed left: none | random:LO,HI,PERIOD (at most 1e9 changes over the run on all cores) | file:PATH (lines NODE TIME FRACTION)", {}},
      {"stop.band", Type::number, 0.01,
       "balanced when every node is within this fraction of its share of the total (or less than one unit or item from it)", {}},
      {"stop.time", Type::number, 1e4, "time limit in seconds: simulated on des, wall-clock on mpi (where the default is 600)", {}},
      {"stop.stall", Type::number, nullptr,
       "stalled: a balancer out of the band with no load or item moving for this many seconds stops (des: simulated, off by "
       "default, 1000 balancing periods for a job strategy; mpi: wall-clock, default 10)",
       {}},
      {"stop.steps", Type::integer, std::int64_t{10000}, "stop after this many communication steps", {}},
      {"stop.imbalance", Type::number, nullptr, "stop when the imbalance factor nu <= this", {}},
      {"stop.spread", Type::number, nullptr, "stop when max - min load <= this (des: checked at every sample)", {}},
      {"stop.quiescent", Type::boolean, false, "stop when a whole sweep moves no load", {}},
      {"seed", Type::integer, std::int64_t{1}, "master seed of all random choices", {}},
      {"output.series_every", Type::integer, std::int64_t{1}, "record the series every k rounds (0: first and last only; des: any k > 0 keeps every sample)", {}},
      {"output.series_max_rows", Type::integer, static_cast<std::int64_t>(default_series_max_rows),
       "at most this many rows in the series and in the load history, on every engine: when full, every other row goes and the "
       "sampling period doubles (first and last rows kept); 0: no bound",
       {}},
      {"output.final_load", Type::boolean, false, "include every node's final load in the record", {}},
      {"output.load_history", Type::integer, std::int64_t{0}, "record every node's load every k rounds, for heat maps (0: off)", {}},
  };
  const auto algorithm = std::find_if(keys.begin(), keys.end(), [](const KeyInfo& k) { return k.name == "algorithm"; });
  const std::vector<KeyInfo> policy = policy_keys();
  keys.insert(algorithm + 1, policy.begin(), policy.end());
  return keys;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

const KeyInfo& key_info(const std::string& key, const std::string& source) {
  const auto& keys = scenario_keys();
  const auto it = std::find_if(keys.begin(), keys.end(), [&](const KeyInfo& k) {
    return k.name == key || std::find(k.aliases.begin(), k.aliases.end(), key) != k.aliases.end();
  });
  if (it != keys.end()) return *it;
  std::string best;
  std::size_t best_d = 3;
  for (const auto& k : keys)
    if (auto d = edit_distance(key, k.name); d < best_d) best_d = d, best = k.name;
  throw InputError(source, key, "unknown key" + (best.empty() ? std::string(" (see `nnlb list`)") : " (did you mean '" + best + "'?)"));
}

std::string number_text(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

void flatten(const toml::table& table, const std::string& prefix, json& out, const std::string& source);

// A TOML value as JSON: scalars and (nested) arrays of them; arrays of arrays are the rows of
// zipped sweep axes, tables in arrays (flattened to dotted keys) the entries of [sweep] exclude.
json value_of(const toml::node& node, const std::string& key, const std::string& source) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return i->get();
  if (const auto* f = node.as_floating_point()) return f->get();
  if (const auto* b = node.as_boolean()) return b->get();
  if (const auto* a = node.as_array()) {
    json arr = json::array();
    for (const auto& el : *a) {
      if (const auto* t = el.as_table()) {
        json entry = json::object();
        flatten(*t, "", entry, source);
        arr.push_back(std::move(entry));
      } else {
        arr.push_back(value_of(el, key, source));
      }
    }
    return arr;
  }
  throw InputError(source, key, "unsupported value type (dates and times are not scenario values)");
}

void flatten(const toml::table& table, const std::string& prefix, json& out, const std::string& source) {
  for (const auto& [k, node] : table) {
    const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* t = node.as_table()) flatten(*t, key, out, source);
    else out[key] = value_of(node, key, source);
  }
}

}  // namespace

const std::vector<KeyInfo>& scenario_keys() {
  static const std::vector<KeyInfo> keys = make_keys();
  return keys;
}

const std::string& canonical_key(const std::string& key) {
  const auto& keys = scenario_keys();
  for (const KeyInfo& k : keys)
    if (std::find(k.aliases.begin(), k.aliases.end(), key) != k.aliases.end()) return k.name;
  return key;
}

json flatten_toml(const std::string& text, const std::string& source) {
  toml::table table;
  try {
    table = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw InputError(source + ":" + std::to_string(where.line), {}, "malformed TOML: " + std::string(e.description()));
  }
  json out = json::object();
  flatten(table, "", out, source);
  return out;
}

Scenario::Scenario() {
  for (const auto& k : scenario_keys()) values_[k.name] = k.default_value;
}

Scenario Scenario::from_toml(const std::string& text, const std::string& source) {
  Scenario s;
  s.source_ = source;
  const json flat = flatten_toml(text, source);
  std::map<std::string, std::string> written;  // current name -> the name the file used
  for (const auto& [key, value] : flat.items()) {
    const auto [at, fresh] = written.emplace(canonical_key(key), key);
    if (!fresh) throw InputError(source, key, "is set twice, also as '" + at->second + "' (one is an alias of the other)");
    s.set(key, value, source);
  }
  return s;
}

Scenario Scenario::from_file(const std::string& path) {
  std::ifstream in = open_input(path, "scenario file");
  std::stringstream buf;
  buf << in.rdbuf();
  Scenario s = from_toml(buf.str(), path);
  s.base_dir_ = std::filesystem::absolute(path).parent_path().string();
  return s;
}

void Scenario::set(const std::string& key, const json& value, const std::string& source) {
  const KeyInfo& info = key_info(key, source);
  auto type_error = [&](const char* want) {
    const bool finite = !value.is_number() || std::isfinite(value.get<double>());
    throw InputError(source, key, std::string("expected ") + want + ", got " + (finite ? value.dump() : number_text(value.get<double>())));
  };
  json v = value;
  if (info.default_value.is_null() && v == "") v = nullptr;  // "" unsets an optional key
  // (A string key takes "nan" or "inf" as text, and names it among its choices.)
  if (v.is_number() && !std::isfinite(v.get<double>()) && info.type != Type::string) type_error("a finite number");
  if (!v.is_null() || !info.default_value.is_null()) switch (info.type) {
    case Type::string:
      if (!v.is_string()) {
        if (v.is_number()) v = number_text(v.get<double>());  // e.g. platform.speed = 2
        else if (v.is_boolean()) type_error(R"(a string (quote it: --set 'KEY="true"', or KEY = "true" in a file))");
        else type_error("a string");
      }
      if (!info.choices.empty() && std::find(info.choices.begin(), info.choices.end(), v.get<std::string>()) == info.choices.end()) {
        std::string list;
        for (const auto& c : info.choices) list += (list.empty() ? "" : ", ") + c;
        throw InputError(source, key, "'" + v.get<std::string>() + "' is not one of: " + list);
      }
      break;
    case Type::number:
      if (!v.is_number()) type_error("a number");
      v = v.get<double>();
      break;
    case Type::integer:
      if (v.is_number_float() && std::fabs(v.get<double>()) < 0x1p63 &&
          v.get<double>() == static_cast<double>(static_cast<std::int64_t>(v.get<double>())))
        v = static_cast<std::int64_t>(v.get<double>());
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0) type_error("a non-negative integer");
      break;
    case Type::boolean:
      if (!v.is_boolean()) type_error("true or false");
      break;
    case Type::text_or_number:
      if (!v.is_string() && !v.is_number()) type_error("a name or a number");
      break;
  }
  values_[info.name] = v;
  origin_[info.name] = source;
}

void Scenario::set_from_text(const std::string& assignment, const std::string& source) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError(source, {}, "expected KEY=VALUE, got '" + assignment + "'");
  const std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  json parsed = value;
  try {
    const auto flat = flatten_toml("v = " + value, source);
    if (flat.contains("v")) parsed = flat["v"];
  } catch (const InputError&) {
    // Not a TOML value: take the text as a string (mesh:4x4, uniform:0,1000, ...).
  }
  set(key, parsed, source);
}

const json& Scenario::get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) it = values_.find(canonical_key(key));  // an alias
  if (it == values_.end()) throw std::logic_error("scenario key not registered: " + key);
  return it->second;
}

std::string Scenario::text(const std::string& key) const {
  const json& v = get(key);
  if (v.is_null()) return {};
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return number_text(v.get<double>());
  return v.dump();
}

bool Scenario::is_default(const std::string& key) const { return get(key) == key_info(key, source_).default_value; }

double Scenario::number(const std::string& key) const { return get(key).get<double>(); }
std::int64_t Scenario::integer(const std::string& key) const { return get(key).get<std::int64_t>(); }
bool Scenario::boolean(const std::string& key) const { return get(key).get<bool>(); }
std::optional<double> Scenario::optional_number(const std::string& key) const {
  const json& v = get(key);
  return v.is_null() ? std::nullopt : std::optional<double>(v.get<double>());
}

void set_given(Scenario& scenario, const std::string& assignment) {
  const std::string key = assignment.substr(0, assignment.find('='));
  scenario.set_from_text(assignment, "--set " + key);
  const std::string value = scenario.text(key);
  const std::string& name = canonical_key(key);
  const bool path_key = name == "platform.file" || name == "load.trace";
  const std::string prefix = path_key ? "" : "file:";
  if (value.empty() || !value.starts_with(prefix)) return;
  const std::filesystem::path path = value.substr(prefix.size());
  if (path.is_relative()) scenario.set(key, prefix + std::filesystem::absolute(path).string(), "--set " + key);
}

json Scenario::to_json() const {
  json out = json::object();
  for (const auto& [k, v] : values_) out[k] = v;
  return out;
}

}  // namespace nnlb
