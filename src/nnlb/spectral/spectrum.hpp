#pragma once
// Spectra of the balancing iterations (Xu et al. 1995, Eq. 6-7): the synchronous schemes are
// linear, W(t+1) = F W(t), and converge like gamma(F)^t, gamma the subdominant eigenvalue modulus.
// Dense eigen-solvers for small graphs, Lanczos / power iteration for large ones.
//
// Iterative methods (num_nodes > dense_spectrum_limit, or SpectrumMethod::iterative):
//  * Lanczos on a (weighted) Laplacian with the constant vector projected out of every Krylov
//    vector, so the Ritz values approximate the spectrum on 1^perp (lambda_2 .. lambda_max).
//    Only three vectors are kept: no reorthogonalization. Full or selective reorthogonalization
//    would need all Krylov vectors (thousands of them at 1e6 nodes: tens of GB); without it the
//    extreme Ritz values still converge to the extreme eigenvalues and loss of orthogonality only
//    adds copies of converged values (Paige 1976; Cullum & Willoughby 1985), which do not matter
//    for the extremes. Interlacing keeps the Ritz interval inside [lambda_2, lambda_max].
//    The tridiagonal problem is solved by Eigen at checkpoints ~25% apart; the run stops when
//    both extreme Ritz values moved by less than lanczos_tolerance (relative) since the last
//    checkpoint. Cost: a small multiple of sqrt(lambda_max / (lambda_3 - lambda_2)) steps, e.g.
//    2700 on the 1000 x 1000 torus.
//  * Power iteration on the dimension-exchange sweep, matrix-free, mean projected out after each
//    sweep, renormalized, log-norms l_k accumulated. At k = 2^j the growth rate over the last
//    half, s_k = (l_k - l_{k/2}) / (k/2), estimates ln gamma; it converges geometrically when the
//    dominant eigenvalue is simple but only like 1/k when it is defective (ODE on square meshes:
//    all eigenvalues on one circle, ||S^k x|| ~ k gamma^k); the Richardson combination
//    2 s_k - s_{k/2} removes that 1/k term. The estimate that moved less since the previous
//    checkpoint is reported; the run stops when it moved by less than power_tolerance relative
//    to |ln gamma|, i.e. the predicted iteration count (Xu Eq. 7) is settled to that accuracy.
//    Complex pairs only make l_k oscillate, which the windows average out. Slow when many
//    eigenvalues share (nearly) the top modulus: ODE/ADE on a 1000 x 1000 torus stay percents off
//    within the budget (closed forms are better there); on random regular graphs the estimate
//    wanders by ~1e-4 relative after a few hundred sweeps and may stop at the cap.
// Both are capped by an iteration count and by a work budget (matrix slot visits for Lanczos,
// node updates per colour class for the power method) that keeps a solve on a 1e6-node graph
// under about a minute; a capped run reports converged = false with its last estimate.
// Start vectors are fixed (nnlb::Rng), so all results are deterministic and, thanks to blocked
// reductions, independent of the thread count.
#include <cstdint>
#include <string>

#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

// Graphs up to this many nodes use dense solvers.
inline constexpr NodeId dense_spectrum_limit = 1500;

inline constexpr double lanczos_tolerance = 1e-9;
inline constexpr std::uint32_t lanczos_max_iterations = 10000;
inline constexpr std::uint64_t lanczos_max_work = std::uint64_t{1} << 35;  // iterations x num_slots
inline constexpr double power_tolerance = 1e-4;
inline constexpr std::uint32_t power_max_sweeps = 1u << 16;
inline constexpr std::uint64_t power_max_work = std::uint64_t{1} << 32;  // sweeps x colours x num_nodes

// Bytes a solve on a graph of this size holds: the dense matrices and their solver's workspace,
// or the iterative methods' vectors (per node) and weights or partners (per slot).
double spectrum_memory_bytes(double nodes, double slots);

// `automatic` picks dense up to dense_spectrum_limit nodes and iterative above.
enum class SpectrumMethod { automatic, dense, iterative };

struct LaplacianExtremes {
  double lambda2 = 0;     // algebraic connectivity (smallest non-zero eigenvalue of L = D - A)
  double lambda_max = 0;  // largest eigenvalue of L
  std::string method;     // "dense" or "lanczos"
  std::uint32_t iterations = 0;  // Lanczos steps (0 for dense)
  bool converged = true;         // false if the iteration cap was reached first
};
LaplacianExtremes laplacian_extremes(const Graph& g);
LaplacianExtremes laplacian_extremes(const Graph& g, SpectrumMethod method);

struct Gamma {
  double value = 0;    // subdominant eigenvalue modulus of the iteration operator
  std::string method;  // "dense", "lanczos", "power"
  std::uint32_t iterations = 0;  // Lanczos steps or power sweeps (0 for dense)
  bool converged = true;
};

// FOS diffusion matrix M = I - sum_edges alpha_ij (e_i - e_j)(e_i - e_j)^T.
Gamma fos_gamma(const Graph& g, const LinearForm& form);
Gamma fos_gamma(const Graph& g, const LinearForm& form, SpectrumMethod method);
// For a uniform alpha, M = I - alpha L: gamma = max(|1 - alpha lambda_2|, |1 - alpha lambda_max|).
double uniform_fos_gamma(const LaplacianExtremes& ext, double alpha);

// One full dimension-exchange sweep: the product of the colour-class matrices, in colour order.
Gamma de_sweep_gamma(const Graph& g, const EdgeColoring& coloring, double lambda);
Gamma de_sweep_gamma(const Graph& g, const EdgeColoring& coloring, double lambda, SpectrumMethod method);

// Optimal SOS parameter for a FOS matrix with subdominant eigenvalue gamma (Ghosh et al. 1996):
// beta = 2 / (1 + sqrt(1 - gamma^2)); the SOS iteration then contracts like sqrt(beta - 1) per step.
double sos_optimal_beta(double gamma_fos);

// Subdominant modulus of SOS, W(t+1) = beta M W(t) + (1 - beta) W(t-1), for a FOS matrix M of
// subdominant modulus gamma_fos: the largest root modulus of z^2 - beta mu z + (beta - 1) over
// the eigenvalues mu != 1 of M, attained at |mu| = gamma_fos. Equal to sqrt(beta - 1) for
// beta >= sos_optimal_beta(gamma_fos) (complex roots), larger below.
double sos_gamma(double gamma_fos, double beta);

}  // namespace nnlb
