// A run its caller interrupts (engine/core/interrupt.hpp: the Python module's Ctrl-C) ends at
// its next decision point on every engine that decides, and in every worker of a sweep.
#include <gtest/gtest.h>

#include <atomic>

#include "nnlb/engine/core/interrupt.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/sweep.hpp"
#include "nnlb/util/memory.hpp"

namespace nnlb {
namespace {

Scenario scenario(std::initializer_list<const char*> sets) {
  Scenario s;
  for (const char* a : sets) s.set_from_text(a);
  return s;
}

TEST(Interrupt, ASetFlagEndsTheRunOnEachEngine) {
  for (const char* engine : {"engine=sync", "engine=des", "engine=rounds"})
    for (const char* algorithm : {"algorithm=fos", "algorithm=ode"}) {
      const Scenario s = scenario({"topology=ring:16", engine, algorithm});
      std::atomic<bool> flag{true};
      const InterruptScope scope(&flag);
      EXPECT_THROW(run_scenario(s, 1), Interrupted) << engine << " " << algorithm;
    }
  std::atomic<bool> flag{true};
  const InterruptScope scope(&flag);
  EXPECT_THROW(run_scenario(scenario({"engine=p2p", "topology=p2p:31", "guest.graph=ring:31", "algorithm=dasud"}), 1), Interrupted);
}

TEST(Interrupt, AClearFlagOrNoneChangesNothing) {
  const Scenario s = scenario({"topology=ring:16"});
  const auto plain = to_json(run_scenario(s, 1));
  std::atomic<bool> flag{false};
  {
    const InterruptScope scope(&flag);
    EXPECT_EQ(to_json(run_scenario(s, 1)), plain);
    const InterruptScope none(nullptr);
    flag = true;
    EXPECT_EQ(to_json(run_scenario(s, 1)), plain);  // the inner scope installed no flag
  }
  EXPECT_EQ(interrupt_scopes.load(), 0u);
}

TEST(Interrupt, ReachesASweepsWorkers) {
  SweepSpec spec;
  spec.base = scenario({"topology=ring:16"});
  spec.axes.push_back({"algorithm", {"fos", "ode", "sos"}});
  std::atomic<bool> flag{true};
  const InterruptScope scope(&flag);
  SweepRun how;
  how.threads = 2;
  EXPECT_THROW(run_sweep(spec, how), Interrupted);
}

TEST(MemoryEstimate, RefusalIsAnInputErrorOfItsOwnKind) {
  EXPECT_THROW(run_scenario(scenario({"topology=hypercube:30"}), 1), MemoryEstimateError);
  SweepSpec spec;
  spec.base = scenario({"algorithm=fos"});
  spec.axes.push_back({"topology", {"ring:8", "hypercube:30"}});
  try {
    run_sweep(spec);
    FAIL() << "a sweep point over the estimate runs";
  } catch (const MemoryEstimateError& e) {
    EXPECT_EQ(e.key(), "topology");
    EXPECT_NE(std::string(e.what()).find("sweep point"), std::string::npos);
  }
  EXPECT_THROW(run_scenario(scenario({"topology=ring:8", "alpha=x"}), 1), InputError);
  try {
    run_scenario(scenario({"topology=ring:8", "alpha=x"}), 1);
  } catch (const MemoryEstimateError&) {
    FAIL() << "a bad key is a memory refusal";
  } catch (const InputError&) {
  }
}

}  // namespace
}  // namespace nnlb
