#pragma once
// A load trace: what an application did with its work items while it ran, rank by rank, on the
// clock of the run (seconds since the balancing started). The MPI library records one
// (nnlb::mpi::Options::trace); engine = "des" with load.trace = FILE replays it under any policy,
// so a user compares policies in simulation on their own application's behaviour.
//
// The file is text, a record per line (docs/mpi.md, "Record and replay"):
//   nnlb-trace 1
//   ranks R
//   meta KEY VALUE            the recording run: policy, period, wall time (free text)
//   edge A B                  the neighbour graph, each edge once
//   add T RANK ID WEIGHT      an item registered on RANK (T = 0: before the balancing started)
//   weight T RANK ID WEIGHT   its new weight (a re-estimate or measurement)
//   remove T RANK ID / pin T RANK ID / unpin T RANK ID
//   step T RANK LOAD          a balancing step of RANK; LOAD: the weight it held then
//   end T                     the run's end (the longest rank's time)
// and lines starting with '#' are comments.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/node/message.hpp"

namespace nnlb {

// One rank's balancing step in the trace: when, and the weight it held then.
struct StepSnapshot {
  double time = 0;
  double load = 0;
};

// What the replay does at one moment on one rank. Weight changes of a rank between two of its
// steps form one action, at the time of the last of them (one pass over the items per action).
struct TraceAction {
  enum class Kind { weights, add, step } kind = Kind::weights;
  double time = 0;
  NodeId rank = 0;
  std::vector<Item> items;  // weights: identities and new weights; add: the new items
};

struct LoadTrace {
  NodeId ranks = 0;
  std::vector<std::pair<NodeId, NodeId>> edges;
  std::map<std::string, std::string> meta;
  std::vector<std::vector<Item>> initial;         // per rank: the items registered before the start
  std::vector<TraceAction> actions;               // in time order (ties: file order)
  std::vector<std::vector<StepSnapshot>> steps;   // per rank, in order: the recorded run's steps
  double end = 0;
  double heaviest = 0;                            // the heaviest weight an item ever had
};

// Lock-step replay of a loosely-synchronous application: every rank's k-th step moves to the time
// of the last rank's k-th step, so that at each step every rank decides on what its neighbours
// reported at the step before (as when they call balance_and_wait() together), whatever order
// the ranks happened to reach the step in during the recorded run.
void lock_steps(LoadTrace& trace);

// What reading a trace of `file_bytes` bytes may hold in memory, at most (an item and its index
// per line of about 12 bytes): for the memory check before reading.
inline double load_trace_memory_bytes(double file_bytes) { return 8 * file_bytes; }

// Reads a trace for replay; InputError naming the file and line when it is malformed, or when it
// holds what the replay cannot model (remove, pin: items that leave the balancing).
LoadTrace read_load_trace(const std::string& path);

}  // namespace nnlb
