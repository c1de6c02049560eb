#pragma once
// Proper edge colourings define the pairings of dimension exchange (Xu et al. 1995, Eq. 2): in
// one exchange step every node balances with its neighbour across the edge of the current
// colour, if it has one.
#include <cstdint>
#include <vector>

#include "nnlb/model/topology.hpp"

namespace nnlb {

struct EdgeColoring {
  std::vector<std::uint16_t> slot_color;  // colour of each directed slot; twins share a colour
  std::uint32_t num_colors = 0;

  // The slot of `i` coloured `c`, or Graph::num_slots() if i has no edge of that colour.
  Slot partner_slot(const Graph& g, NodeId i, std::uint32_t c) const;
};

// Dimension-and-parity colouring of a mesh or torus: the edge between coordinates x and x+1
// along dimension d gets colour 2d + (x mod 2); the wrap-around edge of an odd torus dimension
// gets a third colour of its own. 2n colours on meshes and even tori with sides > 2, as Xu counts;
// a side of 2 needs one colour (so a hypercube of dimension n uses n).
EdgeColoring grid_edge_coloring(const Topology& topo);

// Misra–Gries colouring of any simple graph with at most max degree + 1 colours.
EdgeColoring misra_gries_edge_coloring(const Graph& g);

// Grid colouring on grids, Misra–Gries elsewhere.
EdgeColoring edge_coloring_for(const Topology& topo);

// True if no two slots of one node share a colour and twins agree.
bool is_proper(const Graph& g, const EdgeColoring& coloring);

}  // namespace nnlb
