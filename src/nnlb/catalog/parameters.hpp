#pragma once
// Parameter choices of the diffusion and dimension-exchange families.
#include <string_view>

#include "nnlb/model/topology.hpp"
#include "nnlb/policy/policy.hpp"
#include "nnlb/spectral/spectrum.hpp"

namespace nnlb {

// alpha for diffusion (Xu et al. 1995 sec. 3.2; Jeannot & Vernier 2006 sec. 2):
//   cybenko  1 / (1 + d(G))                       (Cybenko 1989)
//   adf      1 / (1 + d(G))                       (Xu's local-average diffusion, one value for all edges)
//   boillat  1 / (1 + max(d_i, d_j)) per edge     (Boillat 1990; local knowledge only)
//   odf      mesh 1/(2n), torus 1/(2n + 1 - cos(2 pi / k)), hypercube 1/(n + 1)   (Xu, citing [3, 14])
//   optimal  2 / (lambda_2 + lambda_max) of the graph Laplacian, computed numerically
//   a number in (0, 1)
// Throws InputError (key "alpha") for a choice that is undefined on the topology. When the
// choice needs the Laplacian's extremes and `extremes` is given, they are stored there for reuse.
// A numeric alpha at or above the stability bound 2 / lambda_max(L) is an InputError unless
// `allow_unstable` (alpha.unstable = true).
LinearForm diffusion_alpha(std::string_view choice, const Topology& topo, LaplacianExtremes* extremes = nullptr,
                           bool allow_unstable = false);

// lambda for dimension exchange (Xu et al. 1995 sec. 3.1):
//   ade  1/2;  ode  mesh 1/(1 + sin(pi/k)), torus 1/(1 + sin(2 pi/k));  or a number in (0, 1).
double dimension_exchange_lambda(std::string_view choice, const Topology& topo);

// beta for SOS: "optimal" (from the FOS spectrum) or a number in (0, 2). `extremes`, when
// already computed for this graph, saves solving the spectrum again for a uniform alpha.
double sos_beta(std::string_view choice, const Topology& topo, const LinearForm& form, const LaplacianExtremes* extremes = nullptr);

}  // namespace nnlb
