#pragma once
// FOS (Xu et al. Eq. 3) with one alpha on a 2-D mesh or torus, as a row stencil. Inside the grid
// every node's slots are, in order, up (i - cols), left, right, down (i + cols), so a row's
// interior is a contiguous stencil that vectorizes across nodes (AVX2 where the CPU has it);
// border nodes go through the CSR arrays. Each node performs fos_sweep's operations in the same
// order, so the loads are bit-identical to fos_sweep; the load moved is summed lane by lane, so
// it agrees with fos_sweep's to rounding only.
//
// M_r (Jeannot & Vernier 2006 sec. 3.2) runs on the same stencil when every interior edge has one
// coefficient a = M_r,ij = M_r,ji (equal speeds: a = 1/4, or 1/5 with the self term), with its
// own flow form a w_i - a w_j; the border's edges keep their coefficients from the matrix.
#include <optional>
#include <span>

#include "nnlb/model/topology.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

struct GridStencil {
  std::size_t rows = 0, cols = 0;  // row-major: node i sits at (i / cols, i % cols)
  double alpha = 0;                // the coefficient of every interior edge
  const RelativeSpeedMatrix* relative = nullptr;  // M_r's flows and border coefficients; null for FOS
};

// The stencil for FOS or M_r on `topo` with `form`, if it applies: a 2-D mesh or torus whose
// sides are both at least 3, and one coefficient on every interior edge (FOS: a uniform alpha).
std::optional<GridStencil> fos_grid_stencil(const Topology& topo, const LinearForm& form);

// One round on real loads; returns the load moved (the sum of positive edge flows).
double fos_sweep_grid(const Graph& g, const GridStencil& grid, std::span<const double> w, std::span<double> next);

}  // namespace nnlb
