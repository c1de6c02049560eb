#include "nnlb/simgrid/configured_engine.hpp"

#ifdef NNLB_SIMGRID_THREAD_CONTEXTS
#include <sched.h>
#endif

namespace nnlb {

namespace {

#ifdef NNLB_SIMGRID_THREAD_CONTEXTS
// Thread contexts hand the one running actor over through futexes: twice per simcall. Kept on the
// CPU this thread runs on (every context thread inherits it), a hand-over needs no cross-CPU
// wake-up; measured on a 16-node best-effort run under ASan: 3.0 -> 1.6 CPU-s, wall 2-3x less.
// Results do not change: exactly one context runs at a time either way.
void keep_contexts_on_one_cpu() {
  const int cpu = ::sched_getcpu();
  if (cpu < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ::sched_setaffinity(0, sizeof one, &one);  // best effort: a refusal only costs speed
}
#endif

std::vector<std::string> engine_args() {
  std::vector<std::string> args = {"nnlb", "--log=root.thres:critical"};
#ifdef NNLB_SIMGRID_THREAD_CONTEXTS
  // AddressSanitizer reports false positives on SimGrid's own stack switching (raw, ucontext).
  args.emplace_back("--cfg=contexts/factory:thread");
  keep_contexts_on_one_cpu();
#endif
  for (const std::string& s : network_settings()) args.push_back("--cfg=" + s);
  return args;
}

std::vector<char*> pointers(std::vector<std::string>& args) {
  std::vector<char*> out;
  for (std::string& a : args) out.push_back(a.data());
  return out;
}

}  // namespace

const std::vector<std::string>& network_settings() {
  static const std::vector<std::string> settings = {"network/model:CM02",       "network/latency-factor:1", "network/bandwidth-factor:1",
                                                    "network/weight-S:0",       "network/crosstraffic:0",   "network/TCP-gamma:1e30"};
  return settings;
}

ConfiguredEngine::ConfiguredEngine()
    : args_(engine_args()), argv_(pointers(args_)), argc_(static_cast<int>(argv_.size())), engine_(&argc_, argv_.data()) {}

}  // namespace nnlb
