#pragma once
// engine = "simgrid" (issue 28): node programs on SimGrid 3.32's S4U, unchanged. Each node is an
// actor on a host of a platform: the logical platform of the topology (a link per slot, the des
// model) or a SimGrid XML file. The engine supplies SimGrid's clock, transport, timers and
// execution; everything a record says comes from the engine core (engine/core/).
//
// Transport: a mailbox per link direction and channel, each with its receiver as permanent
// receiver, so a message starts flowing when it is sent; a get is posted on each, and a mailbox
// hands out its messages in the order they were put, so delivery is first in, first out per link
// and channel even where a small message arrives before a large one sent earlier (it waits for
// it). Under simgrid.network = "serial" the engine also queues each link direction: a message
// starts when the previous one has been transmitted (latency pipelined), des's link model;
// "sharing" starts every message at once and lets SimGrid share the bandwidth.
//
// Handlers run atomically, as on des: a handler's sends, its execution and the gets that follow
// an arrival are issued to SimGrid once it has returned and the stop rules were checked, since
// every SimGrid call lets the other actors run.
#include <string>

#include "nnlb/engine/plugin.hpp"
#include "nnlb/engine/registry.hpp"

namespace nnlb {

// The engine's entry points (engine/plugin.hpp), which nnlb-simgrid.so exports and the tests
// attach with attach_engine(): each run and each platform reading in a process of its own, since
// SimGrid allows one simulation per process (a second s4u::Engine in the same process runs, but
// its clock carries on from the first).
const EnginePlugin& simgrid_engine_plugin();

// Runs `run` in this process: once per process (std::logic_error the second time).
RunResult run_simgrid_here(const EngineRun& run);

// The version of the SimGrid library linked, e.g. "3.32.0".
std::string simgrid_version();

}  // namespace nnlb
