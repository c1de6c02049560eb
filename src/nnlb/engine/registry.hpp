#pragma once
// Engines by name: one run description (EngineRun) and one registry of what each engine provides
// and which engine-specific scenario keys it honours. An engine that runs node programs has a
// runner taking an EngineRun; the built-in engines are registered in engine/builtin_engines.cpp
// (one entry each), and a runtime attaches its runner when it can run (the MPI runtime when
// mpirun launched nnlb). The experiment layer drives sync's and p2p's own loops itself; their
// entries say what they honour.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nnlb/engine/core/faults.hpp"
#include "nnlb/engine/core/initial_state.hpp"
#include "nnlb/engine/core/load_trace.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/engine/core/run_rules.hpp"
#include "nnlb/model/churn.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/node/agent.hpp"
#include "nnlb/node/payload.hpp"

namespace nnlb {

// The SimGrid engine's own settings (src/nnlb/simgrid/, keys simgrid.*); its platform file is the
// Platform's (hosts_file).
struct SimgridSettings {
  // "serial": a link direction transmits one message at a time, latency pipelined (des's links);
  // "sharing": messages start at once and share bandwidth (SimGrid's max-min). Delivery is first in,
  // first out per link and channel under both.
  std::string network = "serial";
};

// A run of a node program on a program engine, whatever the engine.
struct EngineRun {
  const Topology& topology;
  const Program& program;
  LoadMode mode;
  const InitialState& initial;
  const Platform& platform;
  double time_limit = 1e4;          // seconds (simulated, or wall-clock on real ranks)
  std::uint64_t max_rounds = 10000;  // engines that count rounds
  double band = 0.01;               // balanced: every node within band x its share (core/balance.hpp)
  bool stop_when_balanced = false;  // stop once every node is in the band (static load only)
  double stall = 0;                 // with stop_when_balanced: "stalled" after this many seconds without movement; 0: never
  std::optional<double> spread{};   // stop when max - min <= spread (at a sample)
  bool stop_on_detection = false;   // stop when a node reports detected termination
  double sample_period = 0;         // the series every this many seconds; 0: the engine's default
  std::uint64_t series_every = 1;   // a row every k rounds (rounds); any k > 0 keeps every sample (timed engines); 0: first and last only
  bool record_load_history = false;
  std::uint64_t series_max_rows = default_series_max_rows;  // rows of the series and load history (core/recorder.hpp; 0: no bound)
  bool record_final_load = false;
  bool separate_control = false;    // control messages on a lane of their own (des)
  double work_scale = 1;            // real seconds per second of an item's work (Context::execute, real ranks)
  std::uint64_t seed = 1;
  FaultInjection faults{};          // tests: lose, double or alter load-carrying messages
  const EdgeColoring* coloring = nullptr;  // dimension exchange pairs by it (NeighborInfo::color)
  Churn* churn = nullptr;                  // hosts leave and enter (a step each time unit); balance then ends no run
  ItemPayloads* payloads = nullptr;        // real ranks: the application's data behind its items (node/payload.hpp)
  std::string nodes_key = "topology";     // the key that sets the number of nodes (for messages)
  SimgridSettings simgrid{};              // engine = "simgrid"
  // An application's load trace to replay (des), and the timer tag of the program's balancing step.
  const LoadTrace* trace = nullptr;
  std::uint32_t trace_step_tag = 0;
};

// What the run stops on, samples and records (the driver's part of it); `default_period`: the
// sample period of a timed engine when the scenario sets none (0 for round engines).
inline RunRules run_rules(const EngineRun& r, double default_period) {
  RunRules o;
  o.band = r.band;
  o.stop.when_balanced = r.stop_when_balanced;
  o.stop.graph_changes = r.churn != nullptr;
  o.stop.spread = r.spread;
  o.stop.stall = r.stall;
  o.stop.on_detection = r.stop_on_detection;
  o.stop.time_limit = r.time_limit;
  o.stop.max_rounds = r.max_rounds;
  o.sample_period = r.sample_period > 0 ? r.sample_period : default_period;
  o.series_every = r.series_every;
  o.load_history = r.record_load_history;
  o.series_max_rows = r.series_max_rows;
  o.final_load = r.record_final_load;
  o.faults = r.faults;
  return o;
}

// How an engine counts time.
enum class TimeModel { rounds, simulated_seconds, wall_seconds, time_units };

// The Context operations an engine provides to node programs; the conformance tests
// (tests/conformance.cpp) check each one on every engine that declares it.
enum Capability : std::uint32_t {
  messages = 1u << 0,   // send with load as cargo, take, per-link first-in-first-out order, send_each
  items = 1u << 1,      // items with identities carried by messages
  execute = 1u << 2,    // Context::execute: an item's work at the node's speed, completed once
  timers = 1u << 3,     // set_timer, in order of time
  add_load = 1u << 4,   // the nodes' own work creates and consumes load
  notes = 1u << 5,      // Context::note in the record
  detection = 1u << 6,  // detected_termination and finished in the record
};
inline constexpr std::uint32_t program_capabilities = messages | items | execute | timers | add_load | notes | detection;

// Every member has a default, so that an entry written with designated initializers names only
// what it sets.
struct EngineEntry {
  std::string name{};
  std::string summary{};
  TimeModel time = TimeModel::simulated_seconds;
  bool runs_programs = true;  // node programs through a Context (else its own loop over policies)
  std::string programs_on{};  // an engine of its own loop: the program engine that runs node programs for it
  std::string default_program{};  // the node program of agent = "auto" (an engine of its own loop: the one it runs)
  bool items = false;         // items with identities, Context::execute
  std::uint32_t provides = 0; // Capability bits: what its Context offers node programs
  double default_time_limit = 1e4;
  double default_stall = 0;   // stop.stall when the scenario sets none (s; 0: off)
  // Bytes it holds per node and per slot (directed edge) besides the graph, for the memory
  // estimate made before a run (experiment/run_memory.cpp): loads, flows, colours and the
  // policy's state on sync; agents, their knowledge and mailboxes on the program engines. Peaks
  // measured with GNU time stay below the estimates or near them, e.g. ade on hypercube:20 (sync)
  // 0.66 GB of 0.72; on des the estimate follows bench/scale.sh's peaks (builtin_engines.cpp).
  struct Cost {
    double per_node = 0, per_slot = 0;
    // Per ordered pair of nodes, on the engine's own platform (no platform.file): a routing table
    // over every pair of hosts (SimGrid's zones are quadratic in their hosts).
    double per_pair = 0;
    // Per host a platform file declares (platform.file): the engine loads every one of them,
    // whatever the run uses.
    double per_file_host = 0;
    // A message on its way or waiting to be taken, on engines in simulated seconds.
    double per_message = 64;
    // Once a run, whatever its size: the process's libraries and allocator.
    double per_run = 0;
  } memory{};
  // The most messages one node may keep on their way (0: any), for engines whose cost per message
  // grows with them: refused before the run from the programs' balancing period and the links'
  // latency (experiment/run_memory.cpp, check_in_flight).
  double in_flight_limit = 0;
  std::string platform_format{};  // the extension of the platform files it reads itself ("xml"), or none
  // Engine-specific scenario keys it honours: a key name, or a family ending in '.' ("des.").
  std::vector<std::string> honours{};
  // Keys of an honoured family it does not honour.
  std::vector<std::string> except{};
  // Keys every engine could read that this one never does (links in an engine whose rounds take
  // no time): set, they are refused with one line.
  std::vector<std::string> ignores{};
  std::function<RunResult(const EngineRun&)> run{};  // null: driven by the experiment layer, or not available here
  std::string unavailable{};  // with no runner: why (one line), for an engine that runs programs

  bool honours_key(std::string_view key) const;
  bool ignores_key(std::string_view key) const;
};

// A platform file in an engine's own format (a SimGrid XML platform for "simgrid") and how the
// nodes map onto its hosts.
struct PlatformFile {
  std::string path;
  std::string mapping = "order";  // order | random | file:PATH
  std::uint64_t seed = 1;         // of a random mapping
  std::string base_dir;           // a relative mapping file is read from here
};
// Reads one: the host each node runs on, its speed, and each slot's route (latency, narrowest
// bandwidth). InputError naming the file or the mapping when it cannot be used.
using PlatformReader = std::function<Platform(const PlatformFile&, const Graph&)>;
// The hosts a platform file declares, counted from its text for the memory estimate (0 when it
// cannot tell: the reader then names what is wrong).
using PlatformHosts = std::function<double(const std::string& path)>;

void register_engine(EngineEntry entry);
// Gives a registered engine its runner (a runtime that can run here).
void attach_runner(std::string_view name, std::function<RunResult(const EngineRun&)> run);
// Gives a registered engine its platform reader and host count (where it can run).
void attach_platform_reader(std::string_view name, PlatformReader read, PlatformHosts hosts);
// The reader of the engine `name`, or null; its host count, or null.
const PlatformReader* platform_reader(std::string_view name);
const PlatformHosts* platform_hosts(std::string_view name);
const EngineEntry* find_engine(std::string_view name);
const std::vector<EngineEntry>& engines();  // in registration order
// Whether some engine names `key` as engine-specific.
bool engine_specific(std::string_view key);

}  // namespace nnlb
