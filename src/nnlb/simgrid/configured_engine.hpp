#pragma once
// The s4u::Engine every simgrid run and platform reading starts: quiet (errors are nnlb's one
// line), thread contexts in the sanitizer build, and the network model under which a transfer of
// s bytes alone on a link costs latency + s / bandwidth.
#include <string>
#include <vector>

#include <simgrid/s4u/Engine.hpp>

namespace nnlb {

// The network settings, as SimGrid's --cfg takes them: CM02 with its latency and bandwidth
// factors at 1 and weight-S 0, no cross traffic, no TCP window bound.
const std::vector<std::string>& network_settings();

class ConfiguredEngine {
 public:
  ConfiguredEngine();
  simgrid::s4u::Engine& get() { return engine_; }

 private:
  std::vector<std::string> args_;
  std::vector<char*> argv_;
  int argc_;
  simgrid::s4u::Engine engine_;
};

}  // namespace nnlb
