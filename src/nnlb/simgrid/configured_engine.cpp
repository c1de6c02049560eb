#include "nnlb/simgrid/configured_engine.hpp"

namespace nnlb {

namespace {

std::vector<std::string> engine_args() {
  std::vector<std::string> args = {"nnlb", "--log=root.thres:critical"};
#ifdef NNLB_SIMGRID_THREAD_CONTEXTS
  // AddressSanitizer reports false positives on SimGrid's own stack switching (raw, ucontext).
  args.emplace_back("--cfg=contexts/factory:thread");
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
