// An engine plugin that says it comes from another build of nnlb (tests/test_engine_plugin.cpp).
#include "nnlb/engine/plugin.hpp"

extern "C" __attribute__((visibility("default"))) const nnlb::EnginePlugin* nnlb_engine_plugin() {
  static const nnlb::EnginePlugin plugin{.code_version = "0.0.0-other"};
  return &plugin;
}
