#pragma once
// The agent layer's contract, one body for every engine (docs/architecture.md): for every
// accepted policy x program, on a single node, 2- and 3-node lines, a star and a complete graph,
// in real and integer mode, a run from all load on node 0 conserves the load (1e-9 relative),
// ends balanced (every node within 1 % of the mean), and, on an engine whose time is simulated,
// gives the same final loads again for the same seed.
//
// An engine E provides `name`, `deterministic` and
//   std::optional<RunResult> E::run_balanced(const Topology&, const Program&, LoadMode,
//                                             const InitialState&, const EdgeColoring*)
// that stops once the load is balanced; an empty optional on a process that does not hold the
// result (MPI ranks other than 0) and skips the checks there.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/programs/round_balancer.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/core/initial_state.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/topology.hpp"
#include "case_sample.hpp"

namespace nnlb::test {

// make_topology's specs, plus "single": one node and no edge.
inline Topology contract_topology(const std::string& spec) {
  if (spec != "single") return make_topology(spec, 1);
  Topology t;
  t.spec = spec;
  t.graph = Graph::from_edges(1, {});
  return t;
}

inline const std::vector<std::string>& contract_topologies() {
  static const std::vector<std::string> specs = {"single", "line:2", "line:3", "star:7", "complete:6"};
  return specs;
}

struct ContractPair {
  std::string algorithm;
  bool async;  // AsyncBalancer, else RoundBalancer
};

inline std::vector<ContractPair> accepted_pairs() {
  std::vector<ContractPair> pairs;
  for (const char* a : {"fos", "ade", "best-effort", "naive"}) pairs.push_back({a, true});
  for (const char* a : {"fos", "sos", "ade", "best-effort", "naive"}) pairs.push_back({a, false});
  return pairs;
}

template <class E>
void check_contract() {
  std::size_t case_index = 0;
  for (const std::string& spec : contract_topologies())
    for (const ContractPair& pair : accepted_pairs())
      for (LoadMode mode : {LoadMode::real, LoadMode::integer}) {
        if (!runs_case(case_index++)) continue;
        const Topology t = contract_topology(spec);
        const NodeId n = t.graph.num_nodes();
        PolicySpec ps;
        ps.algorithm = pair.algorithm;
        const BuiltPolicy built = make_policy(ps, t);
        const EdgeColoring coloring = edge_coloring_for(t);
        const std::uint32_t colors = std::max<std::uint32_t>(coloring.num_colors, 1);
        std::unique_ptr<Program> program;
        if (pair.async) program = std::make_unique<AsyncBalancer>(*built.policy, AsyncBalancerOptions{.colors = colors});
        else program = std::make_unique<RoundBalancer>(*built.policy, RoundBalancerOptions{.colors = colors});
        std::vector<double> w(n, 0.0);
        w[0] = 1000.0 * n;
        const InitialState initial{w, {}};
        const std::string what = std::string(E::name) + " " + spec + " " + pair.algorithm + (pair.async ? " async" : " rounds") +
                                 (mode == LoadMode::integer ? " integer" : " real");
        std::optional<RunResult> a;
        ASSERT_NO_THROW(a = E::run_balanced(t, *program, mode, initial, &coloring)) << what;
        if (!a) continue;
        EXPECT_NEAR(a->summary.final_total, 1000.0 * n, 1e-9 * 1000 * n) << what;
        EXPECT_LE(a->summary.max_conservation_error, 1e-9) << what;
        // Balanced, recomputed here from the final loads (never the engine's own verdict): every
        // node within 1 % of the mean, or less than one unit from it in integer mode.
        ASSERT_EQ(a->final_load.size(), n) << what;
        for (NodeId i = 0; i < n; ++i) {
          const double d = std::abs(a->final_load[i] - 1000.0);
          EXPECT_TRUE(d <= 10.0 || (mode == LoadMode::integer && d < 1)) << what << " node " << i << ": " << a->final_load[i];
        }
        EXPECT_TRUE(a->summary.balanced) << what;
        if constexpr (E::deterministic) {
          const std::optional<RunResult> b = E::run_balanced(t, *program, mode, initial, &coloring);
          EXPECT_EQ(a->final_load, b->final_load) << what;
        }
      }
}

}  // namespace nnlb::test
