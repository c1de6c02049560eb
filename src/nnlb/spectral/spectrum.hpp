#pragma once
// Spectra of the balancing iterations (Xu et al. 1995, Eq. 6-7): the synchronous schemes are
// linear, W(t+1) = F W(t), and converge like gamma(F)^t, gamma the subdominant eigenvalue modulus.
// Dense eigen-solvers for small graphs, Lanczos / power iteration for large ones.
#include <cstdint>
#include <string>

#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

// Graphs up to this many nodes use dense solvers.
inline constexpr NodeId dense_spectrum_limit = 1500;

struct LaplacianExtremes {
  double lambda2 = 0;     // algebraic connectivity (smallest non-zero eigenvalue of L = D - A)
  double lambda_max = 0;  // largest eigenvalue of L
  std::string method;     // "dense" or "lanczos"
};
LaplacianExtremes laplacian_extremes(const Graph& g);

struct Gamma {
  double value = 0;    // subdominant eigenvalue modulus of the iteration operator
  std::string method;  // "dense", "lanczos", "power"
};

// FOS diffusion matrix M = I - sum_edges alpha_ij (e_i - e_j)(e_i - e_j)^T.
Gamma fos_gamma(const Graph& g, const LinearForm& form);
// One full dimension-exchange sweep: the product of the colour-class matrices, in colour order.
Gamma de_sweep_gamma(const Graph& g, const EdgeColoring& coloring, double lambda);

// Optimal SOS parameter for a FOS matrix with subdominant eigenvalue gamma (Ghosh et al. 1996):
// beta = 2 / (1 + sqrt(1 - gamma^2)); the SOS iteration then contracts like sqrt(beta - 1) per step.
double sos_optimal_beta(double gamma_fos);

}  // namespace nnlb
