#include "nnlb/spectral/spectrum.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

Eigen::MatrixXd dense_laplacian(const Graph& g) {
  const Eigen::Index n = g.num_nodes();
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(n, n);
  for (NodeId i = 0; i < g.num_nodes(); ++i) {
    L(i, i) = g.degree(i);
    for (NodeId j : g.neighbors(i)) L(i, j) = -1.0;
  }
  return L;
}

Eigen::MatrixXd dense_fos(const Graph& g, const LinearForm& form) {
  const Eigen::Index n = g.num_nodes();
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(n, n);
  for (NodeId i = 0; i < g.num_nodes(); ++i)
    for (NodeId j : g.neighbors(i)) {
      const double a = form.alpha_ij(g.degree(i), g.degree(j));
      M(i, j) += a;
      M(i, i) -= a;
    }
  return M;
}

// Subdominant modulus of a symmetric matrix whose dominant eigenvector is the constant vector.
double symmetric_subdominant(const Eigen::MatrixXd& M) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(M, Eigen::EigenvaluesOnly);
  auto ev = es.eigenvalues();
  // Drop the eigenvalue closest to 1 (the constant vector), keep the largest modulus of the rest.
  Eigen::Index drop = 0;
  for (Eigen::Index k = 0; k < ev.size(); ++k)
    if (std::abs(ev[k] - 1.0) < std::abs(ev[drop] - 1.0)) drop = k;
  double gamma = 0;
  for (Eigen::Index k = 0; k < ev.size(); ++k)
    if (k != drop) gamma = std::max(gamma, std::abs(ev[k]));
  return gamma;
}

}  // namespace

LaplacianExtremes laplacian_extremes(const Graph& g) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(dense_laplacian(g), Eigen::EigenvaluesOnly);
  const auto& ev = es.eigenvalues();
  return {ev.size() > 1 ? ev[1] : 0.0, ev[ev.size() - 1], "dense"};
}

Gamma fos_gamma(const Graph& g, const LinearForm& form) { return {symmetric_subdominant(dense_fos(g, form)), "dense"}; }

Gamma de_sweep_gamma(const Graph& g, const EdgeColoring& coloring, double lambda) {
  const Eigen::Index n = g.num_nodes();
  Eigen::MatrixXd sweep = Eigen::MatrixXd::Identity(n, n);
  for (std::uint32_t c = 0; c < coloring.num_colors; ++c) {
    Eigen::MatrixXd step = Eigen::MatrixXd::Identity(n, n);
    for (NodeId i = 0; i < g.num_nodes(); ++i) {
      const Slot s = coloring.partner_slot(g, i, c);
      if (s == g.num_slots()) continue;
      step(i, i) = 1.0 - lambda;
      step(i, g.target(s)) = lambda;
    }
    sweep = step * sweep;
  }
  Eigen::EigenSolver<Eigen::MatrixXd> es(sweep, false);
  auto ev = es.eigenvalues();
  Eigen::Index drop = 0;
  for (Eigen::Index k = 0; k < ev.size(); ++k)
    if (std::abs(ev[k] - 1.0) < std::abs(ev[drop] - 1.0)) drop = k;
  double gamma = 0;
  for (Eigen::Index k = 0; k < ev.size(); ++k)
    if (k != drop) gamma = std::max(gamma, std::abs(ev[k]));
  return {gamma, "dense"};
}

double sos_optimal_beta(double gamma_fos) { return 2.0 / (1.0 + std::sqrt(1.0 - gamma_fos * gamma_fos)); }

}  // namespace nnlb
