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

enum class TopologyKind { line, ring, mesh, torus, hypercube, kary, complete, star, random_regular, erdos_renyi, geometric, p2p, file };

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

// A parsed spec such as "torus:16x16" or "random-regular:1000,4": what to build, not yet built.
struct TopologySpec {
  std::string text;
  TopologyKind kind = TopologyKind::file;
  GridShape shape;           // grid kinds
  NodeId nodes = 0;          // complete, star, random-regular, erdos-renyi, geometric, p2p
  std::uint32_t degree = 0;  // random-regular
  double p = 0;              // erdos-renyi; geometric: the radius
  std::string path;          // file, resolved against base_dir
};

// Parses a spec; `base_dir` resolves relative file paths. Throws InputError naming the problem.
TopologySpec parse_topology(std::string_view spec, const std::string& base_dir = {});

// Nodes and edges of the graph a spec describes, known before building it (exact for the
// regular generators, expected for erdos-renyi, a bound from the file's size for files).
struct TopologySize {
  double nodes = 0, edges = 0;
  double slots() const { return 2 * edges; }
  // Peak bytes of building the graph: the edge list beside the CSR arrays.
  double build_bytes() const { return 16 * nodes + 32 * edges; }
};
TopologySize topology_size(const TopologySpec& spec);

// Builds the topology; `seed` drives the random generators. Refuses disconnected graphs.
Topology build_topology(const TopologySpec& spec, std::uint64_t seed);

// parse_topology, then build_topology.
Topology make_topology(std::string_view spec, std::uint64_t seed, const std::string& base_dir = {});

// Grid with the given shape (mesh when !periodic, torus otherwise).
Graph make_grid(const GridShape& shape);

// One line per generator: "name:PARAMS  description", for `nnlb list`.
std::vector<std::pair<std::string, std::string>> topology_catalog();

}  // namespace nnlb
