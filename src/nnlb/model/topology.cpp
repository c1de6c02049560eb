#include "nnlb/model/topology.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

#include "nnlb/model/graph_io.hpp"
#include "nnlb/model/random_graphs.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/parse.hpp"

namespace nnlb {

std::uint32_t GridShape::k_max() const { return dims.empty() ? 0 : *std::max_element(dims.begin(), dims.end()); }

Graph make_grid(const GridShape& shape) {
  std::uint64_t count = 1;
  for (auto k : shape.dims) {
    count *= k;
    if (count >= 0xffffffffULL) throw InputError("grid has 2^32 nodes or more");
  }
  const auto n = static_cast<NodeId>(count);
  std::vector<std::pair<NodeId, NodeId>> edges;
  std::vector<std::uint64_t> stride(shape.dims.size(), 1);
  for (std::size_t d = shape.dims.size(); d-- > 1;) stride[d - 1] = stride[d] * shape.dims[d];
  for (std::uint64_t i = 0; i < n; ++i) {
    for (std::size_t d = 0; d < shape.dims.size(); ++d) {
      const std::uint64_t k = shape.dims[d];
      const std::uint64_t x = (i / stride[d]) % k;
      if (x + 1 < k) edges.emplace_back(i, i + stride[d]);
      else if (shape.periodic && k > 2) edges.emplace_back(i, i - x * stride[d]);  // wrap; k = 2 would duplicate
    }
  }
  return Graph::from_edges(n, std::move(edges));
}

namespace {

std::vector<std::uint32_t> parse_dims(std::string_view text, const std::string& what) {
  std::vector<std::uint32_t> dims;
  for (auto part : split(text, 'x')) {
    const auto k = parse_uint(part, what);
    if (k < 2) throw InputError(what + ": every dimension needs at least 2 nodes, got " + std::string(part));
    dims.push_back(static_cast<std::uint32_t>(k));
  }
  if (dims.empty()) throw InputError(what + ": no dimensions given");
  return dims;
}

}  // namespace

TopologySpec parse_topology(std::string_view spec, const std::string& base_dir) {
  const auto colon = spec.find(':');
  const std::string name(spec.substr(0, colon));
  const std::string_view args = colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
  const std::string what = "topology '" + std::string(spec) + "'";
  auto args_list = [&](std::size_t count) {
    auto parts = split(args, ',');
    if (parts.size() != count || args.empty())
      throw InputError(what + ": expected " + std::to_string(count) + " comma-separated parameter" + (count > 1 ? "s" : ""));
    return parts;
  };
  auto node_count = [&](std::string_view text) {
    const auto v = parse_uint(text, what);
    if (v < 1 || v > 0xffffffffULL) throw InputError(what + ": node count must be in 1..2^32-1");
    return static_cast<NodeId>(v);
  };
  auto grid = [](TopologyKind kind, GridShape shape) {
    double count = 1;
    for (auto k : shape.dims) count *= k;
    if (count >= 0xffffffffULL) throw InputError("grid has 2^32 nodes or more");
    TopologySpec t;
    t.kind = kind;
    t.shape = std::move(shape);
    return t;
  };

  TopologySpec t;
  if (name == "line" || name == "ring") {
    const auto n = node_count(args_list(1)[0]);
    if (n < 2) throw InputError(what + ": needs at least 2 nodes");
    t = grid(name == "line" ? TopologyKind::line : TopologyKind::ring, GridShape{{n}, name == "ring"});
  } else if (name == "mesh" || name == "torus") {
    if (args.empty()) throw InputError(what + ": expected dimensions such as 16x16");
    t = grid(name == "mesh" ? TopologyKind::mesh : TopologyKind::torus, GridShape{parse_dims(args, what), name == "torus"});
  } else if (name == "hypercube") {
    const auto d = parse_uint(args_list(1)[0], what);
    if (d < 1 || d > 31) throw InputError(what + ": dimension must be in 1..31");
    t = grid(TopologyKind::hypercube, GridShape{std::vector<std::uint32_t>(d, 2), false});
  } else if (name == "kary") {
    const auto parts = args_list(2);
    const auto k = parse_uint(parts[0], what), n = parse_uint(parts[1], what);
    if (k < 2 || n < 1 || n > 31) throw InputError(what + ": needs k >= 2 and 1 <= n <= 31");
    t = grid(TopologyKind::kary, GridShape{std::vector<std::uint32_t>(n, static_cast<std::uint32_t>(k)), true});
  } else if (name == "complete" || name == "star") {
    t.kind = name == "complete" ? TopologyKind::complete : TopologyKind::star;
    t.nodes = node_count(args_list(1)[0]);
    if (t.nodes < 2) throw InputError(what + ": needs at least 2 nodes");
    if (name == "complete" && t.nodes > 50000) throw InputError(what + ": at most 50000 nodes (N^2/2 edges)");
  } else if (name == "random-regular") {
    const auto parts = args_list(2);
    t.kind = TopologyKind::random_regular;
    t.nodes = node_count(parts[0]);
    const auto d = parse_uint(parts[1], what);
    if (d < 1 || d >= t.nodes || (static_cast<std::uint64_t>(t.nodes) * d) % 2 != 0)
      throw InputError(what + ": needs 1 <= D < N and N*D even");
    t.degree = static_cast<std::uint32_t>(d);
  } else if (name == "erdos-renyi") {
    const auto parts = args_list(2);
    t.kind = TopologyKind::erdos_renyi;
    t.nodes = node_count(parts[0]);
    t.p = parse_double(parts[1], what);
    if (!(t.p > 0.0 && t.p <= 1.0)) throw InputError(what + ": P must be in (0, 1]");
  } else if (name == "geometric") {
    const auto parts = args_list(2);
    t.kind = TopologyKind::geometric;
    t.nodes = node_count(parts[0]);
    t.p = parse_double(parts[1], what);
    if (!(t.p > 0.0 && t.p <= 1.5)) throw InputError(what + ": the radius R must be in (0, 1.5] (the points lie in the unit square)");
  } else if (name == "p2p") {
    t.kind = TopologyKind::p2p;
    t.nodes = node_count(args_list(1)[0]);
    if (t.nodes < 2) throw InputError(what + ": needs at least 2 nodes");
  } else if (name == "file") {
    if (args.empty()) throw InputError(what + ": expected file:PATH");
    std::filesystem::path path(args);
    if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
    t.kind = TopologyKind::file;
    t.path = path.string();
  } else {
    throw InputError("unknown topology '" + name + "' (see `nnlb list`)");
  }
  t.text = std::string(spec);
  return t;
}

TopologySize topology_size(const TopologySpec& t) {
  const double n = t.nodes;
  switch (t.kind) {
    case TopologyKind::complete: return {n, n * (n - 1) / 2};
    case TopologyKind::star: return {n, n - 1};
    case TopologyKind::random_regular: return {n, n * t.degree / 2};
    case TopologyKind::erdos_renyi: return {n, t.p * n * (n - 1) / 2};
    case TopologyKind::geometric: return {n, std::min(1.0, 3.1416 * t.p * t.p) * n * (n - 1) / 2};
    case TopologyKind::p2p: return {n, n * std::max(1.0, std::log2(n))};
    case TopologyKind::file: {
      // Every edge takes at least 4 bytes of the file ("0 1\n"), every node at least 2.
      std::error_code ec;
      const auto bytes = std::filesystem::file_size(t.path, ec);
      return ec ? TopologySize{} : TopologySize{bytes / 2.0, bytes / 4.0};
    }
    default: {
      double nodes = 1, edges = 0;
      for (auto k : t.shape.dims) nodes *= k;
      for (auto k : t.shape.dims) edges += nodes / k * (k - 1 + (t.shape.periodic && k > 2));
      return {nodes, edges};
    }
  }
}

Topology build_topology(const TopologySpec& spec, std::uint64_t seed) {
  const std::string what = "topology '" + spec.text + "'";
  Topology t;
  t.kind = spec.kind;
  const NodeId n = spec.nodes;
  switch (spec.kind) {
    case TopologyKind::complete:
    case TopologyKind::star: {
      std::vector<std::pair<NodeId, NodeId>> edges;
      for (NodeId i = 0; i < n; ++i)
        for (NodeId j = i + 1; j < (spec.kind == TopologyKind::star ? (i == 0 ? n : 0) : n); ++j) edges.emplace_back(i, j);
      t.graph = Graph::from_edges(n, std::move(edges));
      break;
    }
    case TopologyKind::random_regular: t.graph = make_random_regular(n, spec.degree, seed); break;
    case TopologyKind::erdos_renyi: t.graph = make_erdos_renyi(n, spec.p, seed); break;
    case TopologyKind::geometric: t.graph = make_random_geometric(n, spec.p, seed); break;
    case TopologyKind::p2p: t.graph = make_p2p(n, seed); break;
    case TopologyKind::file: t.graph = read_graph_file(spec.path); break;
    default:
      t.graph = make_grid(spec.shape);
      t.grid.push_back(spec.shape);
  }
  t.spec = spec.text;
  if (t.graph.num_nodes() < 1) throw InputError(what + ": graph has no nodes");
  if (!t.graph.is_connected()) throw InputError(what + ": graph is not connected; nearest-neighbour balancing needs a connected graph");
  return t;
}

Topology make_topology(std::string_view spec, std::uint64_t seed, const std::string& base_dir) {
  return build_topology(parse_topology(spec, base_dir), seed);
}

std::vector<std::pair<std::string, std::string>> topology_catalog() {
  return {
      {"line:N", "chain of N nodes (1-D mesh)"},
      {"ring:N", "cycle of N nodes (1-D torus)"},
      {"mesh:AxB[xC...]", "n-D mesh, row-major node order"},
      {"torus:AxB[xC...]", "n-D torus (wrap-around in every dimension)"},
      {"hypercube:D", "D-dimensional binary hypercube, 2^D nodes"},
      {"kary:K,N", "k-ary n-cube (N-D torus of side K)"},
      {"complete:N", "complete graph"},
      {"star:N", "node 0 joined to all others"},
      {"random-regular:N,D", "random D-regular connected simple graph"},
      {"erdos-renyi:N,P", "G(N,P), redrawn until connected"},
      {"geometric:N,R", "random geometric graph: N points in the unit square, joined within distance R; redrawn until connected"},
      {"p2p:N", "overlay grown by joins to log2(size) random nodes (Douglas & Harwood)"},
      {"file:PATH", "edge list (i j per line, 0-based) or METIS .graph file"},
  };
}

}  // namespace nnlb
