#include "nnlb/model/edge_coloring.hpp"

#include <stdexcept>

namespace nnlb {

Slot EdgeColoring::partner_slot(const Graph& g, NodeId i, std::uint32_t c) const {
  for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s)
    if (slot_color[s] == c) return s;
  return g.num_slots();
}

EdgeColoring grid_edge_coloring(const Topology& topo) {
  if (!topo.is_grid()) throw std::logic_error("grid_edge_coloring needs a grid topology");
  const auto& shape = topo.shape();
  const Graph& g = topo.graph;
  const std::size_t n = shape.dims.size();
  std::vector<std::uint64_t> stride(n, 1);
  for (std::size_t d = n; d-- > 1;) stride[d - 1] = stride[d] * shape.dims[d];
  // Colour bases: two per dimension, plus one for the wrap edge of each odd torus dimension.
  std::vector<std::uint32_t> base(n);
  std::uint32_t colors = 0;
  for (std::size_t d = 0; d < n; ++d) {
    base[d] = colors;
    colors += (shape.periodic && shape.dims[d] > 2 && shape.dims[d] % 2 == 1) ? 3 : (shape.dims[d] > 2 ? 2 : 1);
  }
  EdgeColoring c;
  c.slot_color.assign(g.num_slots(), 0);
  c.num_colors = colors;
  for (NodeId i = 0; i < g.num_nodes(); ++i) {
    for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
      const NodeId j = g.target(s);
      const std::uint64_t diff = i > j ? i - j : j - i;
      const NodeId lo = i < j ? i : j;
      // The dimension is the one whose coordinate differs.
      std::size_t d = 0;
      while (d < n && (lo / stride[d]) % shape.dims[d] == (std::max(i, j) / stride[d]) % shape.dims[d]) ++d;
      const std::uint64_t x = (lo / stride[d]) % shape.dims[d];
      const bool wrap = diff != stride[d];
      std::uint32_t color = base[d] + static_cast<std::uint32_t>(x % 2);
      if (wrap) color = shape.dims[d] % 2 == 1 ? base[d] + 2 : base[d] + 1;  // wrap joins k-1 (odd x) and 0
      c.slot_color[s] = static_cast<std::uint16_t>(color);
    }
  }
  return c;
}

EdgeColoring edge_coloring_for(const Topology& topo) {
  if (topo.is_grid()) return grid_edge_coloring(topo);
  return misra_gries_edge_coloring(topo.graph);
}

bool is_proper(const Graph& g, const EdgeColoring& coloring) {
  if (coloring.slot_color.size() != g.num_slots()) return false;
  std::vector<char> seen(coloring.num_colors);
  for (NodeId i = 0; i < g.num_nodes(); ++i) {
    std::fill(seen.begin(), seen.end(), 0);
    for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
      const auto col = coloring.slot_color[s];
      if (col >= coloring.num_colors || seen[col] || coloring.slot_color[g.reverse(s)] != col) return false;
      seen[col] = 1;
    }
  }
  return true;
}

}  // namespace nnlb
