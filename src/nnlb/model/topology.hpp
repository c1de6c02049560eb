#pragma once
// A topology is a graph plus what its generator knows about it: the grid shape of meshes, tori
// and hypercubes (needed by the ODF/ODE parameters of Xu et al. 1995 and by the
// dimension-and-parity edge colouring), and the spec string it was made from.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nnlb/model/graph.hpp"

namespace nnlb {

enum class TopologyKind { line, ring, mesh, torus, hypercube, kary, complete, star, random_regular, erdos_renyi, p2p, file };

// Row-major grid: node index = sum_d coord[d] * stride[d], the last dimension varying fastest.
struct GridShape {
  std::vector<std::uint32_t> dims;  // k_1 .. k_n, each >= 2
  bool periodic = false;            // torus (wrap-around edges) or mesh
  std::uint32_t n() const { return static_cast<std::uint32_t>(dims.size()); }
  std::uint32_t k_max() const;      // k = max k_d, as in Xu et al.
};

struct Topology {
  std::string spec;
  TopologyKind kind = TopologyKind::file;
  Graph graph;
  std::vector<GridShape> grid;  // one element for grid kinds (line, ring, mesh, torus, hypercube, kary), else empty

  bool is_grid() const { return !grid.empty(); }
  const GridShape& shape() const { return grid.front(); }
};

// Parses a spec such as "torus:16x16" or "random-regular:1000,4" and builds the topology.
// `seed` drives the random generators; `base_dir` resolves relative file paths.
// Throws InputError naming the problem; refuses disconnected graphs.
Topology make_topology(std::string_view spec, std::uint64_t seed, const std::string& base_dir = {});

// Grid with the given shape (mesh when !periodic, torus otherwise).
Graph make_grid(const GridShape& shape);

// One line per generator: "name:PARAMS  description", for `nnlb list`.
std::vector<std::pair<std::string, std::string>> topology_catalog();

}  // namespace nnlb
