#pragma once
// FOS (Xu et al. Eq. 3) with one alpha on a 2-D mesh or torus, as a row stencil. Inside the grid
// every node's slots are, in order, up (i - cols), left, right, down (i + cols), so a row's
// interior is a contiguous stencil that vectorizes across nodes (AVX2 where the CPU has it);
// border nodes go through the CSR arrays. Each node performs fos_sweep's operations in the same
// order, so the loads are bit-identical to fos_sweep; the load moved is summed lane by lane, so
// it agrees with fos_sweep's to rounding only.
#include <optional>
#include <span>

#include "nnlb/model/topology.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

struct GridStencil {
  std::size_t rows = 0, cols = 0;  // row-major: node i sits at (i / cols, i % cols)
};

// The stencil for FOS on `topo` with `form`, if it applies: a 2-D mesh or torus whose sides are
// both at least 3, and a uniform alpha.
std::optional<GridStencil> fos_grid_stencil(const Topology& topo, const LinearForm& form);

// One FOS round on real loads; returns the load moved (the sum of positive edge flows).
double fos_sweep_grid(const Graph& g, const GridStencil& grid, double alpha, std::span<const double> w, std::span<double> next);

}  // namespace nnlb
