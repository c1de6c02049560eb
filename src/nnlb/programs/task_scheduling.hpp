#pragma once
// Scheduling of independent tasks (Filipović & Krstajić 2016) as node programs: every node is a
// core, tasks are items (Context::execute runs one), and everything the algorithms say to each
// other is a message, so the same programs run simulated (des) and on real ranks.
//
//  dd  domain decomposition (sec. 2): each core executes the tasks it was given, in order.
//  ms  master-slave (sec. 2): the coordinator (core 0) holds every task and executes none; a
//      worker asks for `batch` tasks, executes them, asks again. The master answers the requests
//      that arrive at one moment in core order, so with no latency and batch 1 MS is list
//      scheduling in file order (ties: the lowest core); with a service time it answers one
//      request per service time, in order of arrival (a master that is a bottleneck).
//  ca  the combined algorithm (sec. 3). Phase 1: DD until a core has finished its list (T_min);
//      it signals every other core, which finishes the task in hand and stops. Phase 2: every
//      core reports to the coordinator (tasks done, their durations, and its unfinished tasks);
//      the coordinator picks DD or MS by the rules DD1-DD3 / MS1-MS4 (choose_phase3) and
//      reschedules. Phase 3: the choice runs on the unfinished tasks; DD gives each core a share
//      in proportion to the tasks it finished in phase 1.
// Notes for the record (Context::note): ca_choice (0 dd, 1 ms), ca_signal (T_min),
// ca_reports (when the coordinator had every report), ca_unfinished.
#include <cstdint>
#include <string>

#include "nnlb/node/agent.hpp"

namespace nnlb {

enum class TaskAlgorithm { dd, ms, ca };

// CA's phase-2 rules (sec. 3). A quantity is "similar" across cores when (max - min) / mean is at
// most its threshold.
struct CaRules {
  std::uint32_t cores = 32;       // MS1: more cores than this; DD1: fewer
  double similar_count = 0.1;     // DD2 / MS4: tasks finished per core in phase 1
  double similar_duration = 0.1;  // DD2 / MS3: the cores' mean task duration in phase 1
  double similar_speed = 0.1;     // MS2: the cores' speeds (a heterogeneous cluster)
  bool ms1_first = false;         // MS1 checked before DD3 (the paper gives no order)
};

// What the coordinator knows at phase 2, per core.
struct CoreReport {
  double done = 0;           // tasks finished in phase 1
  double busy = 0;           // their total duration (s)
  double speed = 1;          // the core's speed
};

enum class Phase3 { dd, ms };
// DD3 first (no more unfinished tasks than cores: DD; after MS1 with rules.ms1_first); then MS1
// (more than rules.cores cores),
// MS2 (speeds differ), MS3 (mean durations differ), MS4 (counts differ): MS; otherwise DD (DD1,
// DD2).
Phase3 choose_phase3(const std::vector<CoreReport>& reports, std::uint64_t unfinished, const CaRules& rules);

struct TaskSchedulingOptions {
  TaskAlgorithm algorithm = TaskAlgorithm::dd;
  std::uint32_t batch = 1;  // MS (and CA's MS phase): tasks per request
  double service = 0;       // seconds the master spends on one request (0: it answers at once)
  CaRules rules;
};

class TaskScheduling final : public Program {
 public:
  explicit TaskScheduling(TaskSchedulingOptions options) : opt_(options) {}
  std::string name() const override;
  std::unique_ptr<Agent> make_agent(NodeId node) const override;
  ProgramNeeds needs() const override { return {.items = true}; }

 private:
  TaskSchedulingOptions opt_;
};

}  // namespace nnlb
