// The built-in engines, one entry each: what they provide, the engine-specific keys they honour,
// and for the program engines the runner that takes the one run description.
#include <vector>

#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/engine/sync/rounds_engine.hpp"

namespace nnlb {

namespace {

RunResult run_des_engine(const EngineRun& r) {
  DesOptions o;
  o.band = r.band;
  o.time_limit = r.time_limit;
  if (r.sample_period > 0) o.sample_period = r.sample_period;
  o.stop_when_balanced = r.stop_when_balanced;
  o.stall = r.stall;
  o.spread = r.spread;
  o.stop_on_detection = r.stop_on_detection;
  o.record_series = r.series_every > 0;
  o.record_load_history = r.record_load_history;
  o.series_max_rows = r.series_max_rows;
  o.record_final_load = r.record_final_load;
  o.seed = r.seed;
  o.separate_control = r.separate_control;
  o.faults = r.faults;
  o.churn = r.churn;
  o.trace = r.trace;
  o.trace_step_tag = r.trace_step_tag;
  return run_des(r.topology, r.program, r.mode, r.initial, r.platform, o, r.coloring);
}

RunResult run_rounds_engine(const EngineRun& r) {
  RoundsOptions o;
  o.max_rounds = r.max_rounds;
  o.stop_when_balanced = r.stop_when_balanced;
  o.band = r.band;
  o.stop_on_detection = r.stop_on_detection;
  o.seed = r.seed;
  o.series_every = r.series_every;
  o.series_max_rows = r.series_max_rows;
  o.record_final_load = r.record_final_load;
  o.faults = r.faults;
  return run_rounds(r.topology, r.program, r.mode, r.initial, r.platform, o, r.coloring);
}

}  // namespace

void register_builtin_engines(std::vector<EngineEntry>& registry) {
  registry.push_back({.name = "sync",
                      .summary = "synchronous rounds, one-port/all-port step accounting, fused kernels (Xu et al. 1995)",
                      .time = TimeModel::rounds,
                      .runs_programs = false,
                      .programs_on = "rounds",
                      .default_program = "rounds",
                      .default_time_limit = 0,
                      .memory = {32, 16},
                      .honours = {"port", "de.sweep_cost", "invocation", "threshold.", "workload.", "stop.steps", "stop.band", "stop.imbalance",
                                  "stop.quiescent", "stop.spread", "output.load_history", "output.series_every"},
                      .ignores = {"platform.latency", "platform.bandwidth"}});
  registry.push_back({.name = "rounds",
                      .summary = "node programs in lock-step rounds, a message read one round later",
                      .time = TimeModel::rounds,
                      .default_program = "rounds",
                      .items = true,
                      .provides = program_capabilities,
                      .default_time_limit = 0,
                      .memory = {512, 512},
                      .honours = {"stop.steps", "stop.band", "output.series_every"},
                      .ignores = {"platform.latency", "platform.bandwidth"},
                      .run = run_rounds_engine});
  registry.push_back({.name = "des",
                      .summary = "discrete events in simulated seconds, links with latency and bandwidth (the built-in simulator)",
                      .time = TimeModel::simulated_seconds,
                      .default_program = "async",
                      .items = true,
                      .provides = program_capabilities,
                      // Measured on bench/scale.sh's runs of dc0bc80 (docs/benchmarks.md): 18.6, 217, 891
                      // and 3,955 MiB peak at hypercube:12, :16, :18 and :20 against estimates of 17.8, 211,
                      // 915 and 4,004 MiB (a message in a mailbox 36 bytes on the control channel, 12 on the
                      // data channel, 24 on its way; issue 37); 136 bytes less a node since the balancer's
                      // agent and the driver's node keep their rarely used parts behind a pointer, and 16
                      // less a slot since the mailboxes' chunks are sized for what they hold.
                      .memory = {.per_node = 120, .per_slot = 104, .per_message = 24, .per_run = 8 << 20},
                      .honours = {"des.", "async.", "message.", "stop.band", "stop.time", "stop.stall", "stop.spread", "output.load_history",
                                  "output.series_every", "output.sample_period", "tasks.latency", "tasks.background", "churn.",
                                  "load.trace", "load.trace_choice", "load.trace_steps"},
                      .except = {"churn.repair"},
                      .run = run_des_engine});
  registry.push_back({.name = "p2p",
                      .summary = "loosely-synchronous jobs on a changing P2P host network, in time units (Douglas & Harwood)",
                      .time = TimeModel::time_units,
                      .runs_programs = false,
                      .default_program = "jobs",
                      .items = true,
                      .honours = {"p2p.", "churn.", "guest.", "stop.time", "stop.band"},
                      .ignores = {"platform.speed", "platform.preset", "platform.latency", "platform.bandwidth", "platform.file"}});
  // Real ranks under mpirun: the runtime attaches its runner when it can run (src/cli/main.cpp).
  registry.push_back({.name = "mpi",
                      .summary = "real ranks under mpirun -np P, one rank per node, wall-clock seconds",
                      .time = TimeModel::wall_seconds,
                      .default_program = "async",
                      .items = true,
                      .provides = program_capabilities,
                      .default_time_limit = 600,
                      .default_stall = 10,
                      .memory = {512, 512},
                      .honours = {"async.", "message.", "output.sample_period", "stop.band", "stop.time", "stop.stall", "mpi."},
                      .unavailable = "engine = \"mpi\" runs under mpirun (mpirun -np P nnlb run ...): this process was not started by "
                                     "mpirun, or nnlb was built without MPI"});
  // SimGrid (src/nnlb/simgrid/): its runner is attached where nnlb was built with it (src/cli/main.cpp).
  registry.push_back({.name = "simgrid",
                      .summary = "SimGrid 3.32 (S4U): an actor per node on a platform's hosts, flow-level network with contention",
                      .time = TimeModel::simulated_seconds,
                      .default_program = "async",
                      .items = true,
                      .provides = program_capabilities,
                      // an actor per node (its context, the pages of its stack it touches) and per slot two
                      // mailboxes with a get posted on each; hypercube:10 measured 48 MB over the process's base.
                      // The logical platform's zone routes every pair of hosts: 8 bytes a pair (ring:1000,
                      // 4000, 8000 peak at 38, 218, 676 MB; a Dijkstra zone with its cache is as large)
                      // A platform file's hosts are all loaded: a cluster of 10^5 / 10^6 hosts (a host and
                      // its two links each) peaks at 294 MB / 2.92 GB with ring:4 (issue 39, reproducer 6).
                      .memory = {.per_node = 16384, .per_slot = 4096, .per_pair = 8, .per_file_host = 2900},
                      // SimGrid 3.32 keeps an actor's comms in a std::list it walks at every comm's end: a
                      // message costs time in proportion to those its sender and receiver keep on their way
                      // (torus:8x8, best effort, 1 ms period; 44 / 124 / 204 / 244 a node: 1.4 / 4.3 / 28 /
                      // 41 processor seconds; des 0.1 s). Issue 39, reproducer 5.
                      .in_flight_limit = 128,
                      .platform_format = "xml",
                      .honours = {"simgrid.", "async.", "message.", "stop.band", "stop.time", "stop.stall", "stop.spread", "output.load_history",
                                  "output.series_every", "output.sample_period", "tasks.latency"},
                      .unavailable = "engine = \"simgrid\" is not available: nnlb was built without SimGrid (libsimgrid-dev; scripts/deps "
                                     "installs it), or its plugin nnlb-simgrid.so is missing (engine/plugin.hpp)"});
}

}  // namespace nnlb
