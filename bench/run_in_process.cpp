// One run from C++ in-process, timed: the baseline of the Python module's overhead
// (bench/python_overhead.py, docs/python.md). Prints the wall seconds of run_scenario alone.
// usage: run_in_process KEY=VALUE ...
#include <chrono>
#include <cstdio>

#include "nnlb/experiment/run.hpp"

int main(int argc, char** argv) {
  nnlb::Scenario s;
  for (int i = 1; i < argc; ++i) nnlb::set_given(s, argv[i]);
  const auto t0 = std::chrono::steady_clock::now();
  const nnlb::RunRecord r = nnlb::run_scenario(s, static_cast<std::uint64_t>(s.integer("seed")));
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
  std::printf("%.6f %s\n", took.count(), r.result.summary.balanced ? "balanced" : "unbalanced");
}
