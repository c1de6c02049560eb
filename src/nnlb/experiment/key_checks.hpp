#pragma once
// The scenario's keys against what actually runs: a key that the engine or the node program that
// runs would ignore, a key that needs another key's value, a period that could not end, is an
// input error naming the key.
#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/programs.hpp"
#include "nnlb/experiment/scenario.hpp"

namespace nnlb {

// Every check below, before anything is built.
void check_scenario_keys(const Scenario& s);

// The node program a scenario runs (programs.hpp).
const ProgramEntry& running_program(const Scenario& s);
// The engine that runs the scenario's program: the one it names, or the program engine that one
// hands node programs to (EngineEntry::programs_on).
const EngineEntry& running_engine(const Scenario& s);

}  // namespace nnlb
