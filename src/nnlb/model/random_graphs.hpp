#pragma once
// Random graph generators. All are deterministic functions of their seed.
#include <cstdint>

#include "nnlb/model/graph.hpp"

namespace nnlb {

// Uniform-ish random d-regular simple graph on n nodes (n*d even, d < n), connected.
Graph make_random_regular(NodeId n, std::uint32_t d, std::uint64_t seed);
// G(n, p), redrawn until connected; throws InputError after a bounded number of tries.
Graph make_erdos_renyi(NodeId n, double p, std::uint64_t seed);
// Random geometric graph: n points uniform in the unit square, an edge between two within
// distance r; redrawn until connected (InputError after a bounded number of tries).
Graph make_random_geometric(NodeId n, double r, std::uint64_t seed);
// Peer-to-peer overlay grown node by node: each joining node connects to
// max(1, floor(log2(current size))) distinct random existing nodes (Douglas & Harwood, sec. 3.1).
Graph make_p2p(NodeId n, std::uint64_t seed);

}  // namespace nnlb
