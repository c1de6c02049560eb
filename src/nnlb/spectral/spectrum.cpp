#include "nnlb/spectral/spectrum.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <vector>

#include "nnlb/policy/relative_speed.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/parallel.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

namespace {

// ---- Dense solvers -------------------------------------------------------------------------

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

// Largest modulus after dropping the eigenvalue closest to 1 (the constant vector's).
template <class Vector>
double subdominant(const Vector& ev) {
  Eigen::Index drop = 0;
  for (Eigen::Index k = 0; k < ev.size(); ++k)
    if (std::abs(ev[k] - 1.0) < std::abs(ev[drop] - 1.0)) drop = k;
  double gamma = 0;
  for (Eigen::Index k = 0; k < ev.size(); ++k)
    if (k != drop) gamma = std::max(gamma, static_cast<double>(std::abs(ev[k])));
  return gamma;
}

double dense_symmetric_gamma(const Eigen::MatrixXd& M) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(M, Eigen::EigenvaluesOnly);
  return subdominant(es.eigenvalues());
}

double dense_sweep_gamma(const Graph& g, const EdgeColoring& coloring, double lambda) {
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
  return subdominant(es.eigenvalues());
}

bool use_dense(const Graph& g, SpectrumMethod method) {
  return method == SpectrumMethod::dense || (method == SpectrumMethod::automatic && g.num_nodes() <= dense_spectrum_limit);
}

// ---- Vector kernels ------------------------------------------------------------------------

// Sums of body(begin, end) over fixed blocks, combined in block order (thread-count independent).
template <std::size_t K, class Body>
std::array<double, K> block_sums(std::size_t n, Body&& body) {
  std::vector<std::array<double, K>> part(block_count(n));
  for_each_block(n, [&](std::size_t b, std::size_t e, std::size_t blk) { part[blk] = body(b, e); });
  std::array<double, K> total{};
  for (const auto& p : part)
    for (std::size_t k = 0; k < K; ++k) total[k] += p[k];
  return total;
}

// Fixed pseudo-random start vector, uniform in [-1, 1], mean removed, unit norm.
std::vector<double> start_vector(NodeId n, std::uint64_t stream) {
  std::vector<double> x(n);
  Rng rng(0x7370656374726dULL, stream);
  for (auto& v : x) v = rng.uniform(-1.0, 1.0);
  const auto [sum, sq] = block_sums<2>(n, [&](std::size_t b, std::size_t e) {
    std::array<double, 2> s{};
    for (std::size_t i = b; i < e; ++i) s[0] += x[i], s[1] += x[i] * x[i];
    return s;
  });
  const double mean = sum / n, norm = std::sqrt(sq - n * mean * mean);
  for_each_block(n, [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t i = b; i < e; ++i) x[i] = (x[i] - mean) / norm;
  });
  return x;
}

// ---- Lanczos -------------------------------------------------------------------------------

struct Extremes {
  double low = 0, high = 0;  // smallest and largest eigenvalue on 1^perp
  std::uint32_t iterations = 0;
  bool converged = true;
};

// Extreme eigenvalues on 1^perp of the weighted Laplacian L_w = sum_edges w_ij (e_i - e_j)(e_i - e_j)^T,
// w_ij = weight(slot i->j). Plain Lanczos (see the header) with the mean projected out of every vector.
template <class Weight>
Extremes lanczos_extremes(const Graph& g, Weight weight) {
  const NodeId n = g.num_nodes();
  if (n < 2) return {};
  std::vector<double> q = start_vector(n, 1), prev(n, 0.0), y(n);
  std::vector<double> alpha, beta;  // T_k: diagonal alpha, off-diagonal beta
  double b = 0, scale = 0;          // beta_k; largest |alpha| + |beta| seen, for breakdown
  Extremes r;
  double low_seen = 0, high_seen = 0;
  std::uint32_t next_check = 20;
  const auto cap = static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>(lanczos_max_work / std::max<std::uint64_t>(g.num_slots(), 1), 100, lanczos_max_iterations));
  for (std::uint32_t k = 1;; ++k) {
    // y = L_w q, a = q . y
    const double a = block_sums<1>(n, [&](std::size_t bg, std::size_t e) {
      double dot = 0;
      for (std::size_t i = bg; i < e; ++i) {
        double acc = 0;
        for (Slot s = g.first_slot(static_cast<NodeId>(i)); s < g.end_slot(static_cast<NodeId>(i)); ++s)
          acc += weight(s) * (q[i] - q[g.target(s)]);
        y[i] = acc;
        dot += q[i] * acc;
      }
      return std::array<double, 1>{dot};
    })[0];
    // r = y - a q - b prev (into y), then the mean is projected out and r normalized into prev.
    const auto [sum, sq] = block_sums<2>(n, [&](std::size_t bg, std::size_t e) {
      std::array<double, 2> s{};
      for (std::size_t i = bg; i < e; ++i) {
        y[i] -= a * q[i] + b * prev[i];
        s[0] += y[i], s[1] += y[i] * y[i];
      }
      return s;
    });
    alpha.push_back(a);
    const double mean = sum / n;
    b = std::sqrt(std::max(0.0, sq - n * mean * mean));
    scale = std::max(scale, std::abs(a) + b);
    const bool breakdown = b <= 1e-12 * scale;  // invariant subspace: the Ritz values are exact
    if (breakdown || k >= next_check || k >= cap) {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es;
      es.computeFromTridiagonal(Eigen::Map<Eigen::VectorXd>(alpha.data(), k),
                                Eigen::Map<Eigen::VectorXd>(beta.data(), k - 1), Eigen::EigenvaluesOnly);
      r.low = es.eigenvalues()[0];
      r.high = es.eigenvalues()[k - 1];
      r.iterations = k;
      const double floor = 1e-14 * std::abs(r.high);  // lambda_2 = 0 on disconnected graphs
      const bool settled = k > 20 && std::abs(r.low - low_seen) <= lanczos_tolerance * std::abs(r.low) + floor &&
                           std::abs(r.high - high_seen) <= lanczos_tolerance * std::abs(r.high);
      if (breakdown || settled) return r;
      if (k >= cap) {
        r.converged = false;
        return r;
      }
      low_seen = r.low, high_seen = r.high;
      next_check = k + std::max(10u, k / 4);
    }
    beta.push_back(b);
    const double inv = 1.0 / b;
    for_each_block(n, [&](std::size_t bg, std::size_t e, std::size_t) {
      for (std::size_t i = bg; i < e; ++i) prev[i] = (y[i] - mean) * inv;
    });
    q.swap(prev);
  }
}

Extremes laplacian_lanczos(const Graph& g) {
  return lanczos_extremes(g, [](Slot) { return 1.0; });
}

// ---- Power iteration on the dimension-exchange sweep -----------------------------------------

Gamma power_sweep_gamma(const Graph& g, const EdgeColoring& coloring, double lambda) {
  const NodeId n = g.num_nodes();
  const std::uint32_t colors = coloring.num_colors;
  if (n < 2) return {0.0, "power"};
  // partner[c * n + i]: i's neighbour across colour c, or i itself (then the pair step is identity).
  std::vector<NodeId> partner(static_cast<std::size_t>(colors) * n);
  for_each_block(n, [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t i = b; i < e; ++i)
      for (std::uint32_t c = 0; c < colors; ++c) {
        const Slot s = coloring.partner_slot(g, static_cast<NodeId>(i), c);
        partner[c * std::size_t{n} + i] = s == g.num_slots() ? static_cast<NodeId>(i) : g.target(s);
      }
  });
  const std::uint64_t cap =  // a power of two: the last sweep is a checkpoint
      std::bit_floor(std::clamp<std::uint64_t>(power_max_work / (std::uint64_t{colors} * n), 64, power_max_sweeps));
  std::vector<double> x = start_vector(n, 2), y(n);
  double log_norm = 0, log_norm_half = 0;  // l_k = ln ||S^k x_0||, and l_{k/2}
  double slope_half = 0;                   // s_{k/2}
  std::array<double, 2> last{};            // previous estimates of ln gamma: s and 2 s - s_half
  Gamma r{0.0, "power"};
  for (std::uint32_t k = 1; k <= cap; ++k) {
    for (std::uint32_t c = 0; c < colors; ++c) {
      const NodeId* p = partner.data() + c * std::size_t{n};
      for_each_block(n, [&](std::size_t b, std::size_t e, std::size_t) {
        for (std::size_t i = b; i < e; ++i) y[i] = (1.0 - lambda) * x[i] + lambda * x[p[i]];
      });
      x.swap(y);
    }
    const auto [sum, sq] = block_sums<2>(n, [&](std::size_t b, std::size_t e) {
      std::array<double, 2> s{};
      for (std::size_t i = b; i < e; ++i) s[0] += x[i], s[1] += x[i] * x[i];
      return s;
    });
    const double mean = sum / n, norm = std::sqrt(std::max(0.0, sq - n * mean * mean));
    r.iterations = k;
    if (!(norm > 0)) return r;  // the sweep annihilates 1^perp: balanced in one sweep
    const double inv = 1.0 / norm;
    for_each_block(n, [&](std::size_t b, std::size_t e, std::size_t) {
      for (std::size_t i = b; i < e; ++i) x[i] = (x[i] - mean) * inv;
    });
    log_norm += std::log(norm);
    if ((k & (k - 1)) != 0) continue;  // checkpoints at powers of two
    if (k >= 2) {
      const double slope = (log_norm - log_norm_half) / (k / 2);
      if (k >= 4) {
        // The plain window estimate is best when the dominant eigenvalue is simple (geometric
        // convergence), the Richardson one when it is defective: report whichever moved less.
        const std::array<double, 2> est{slope, 2.0 * slope - slope_half};
        const std::size_t best = std::abs(est[0] - last[0]) <= std::abs(est[1] - last[1]) ? 0 : 1;
        r.value = std::exp(est[best]);
        if (k >= 64 && std::abs(est[best] - last[best]) <= power_tolerance * std::abs(est[best])) return r;
        last = est;
      }
      slope_half = slope;
    }
    log_norm_half = log_norm;
  }
  r.converged = false;
  return r;
}

}  // namespace

double spectrum_memory_bytes(double nodes, double slots) {
  if (nodes <= dense_spectrum_limit) return 4 * nodes * nodes * sizeof(double);
  return 6 * nodes * sizeof(double) + slots * sizeof(double);
}

LaplacianExtremes laplacian_extremes(const Graph& g) { return laplacian_extremes(g, SpectrumMethod::automatic); }

LaplacianExtremes laplacian_extremes(const Graph& g, SpectrumMethod method) {
  if (use_dense(g, method)) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(dense_laplacian(g), Eigen::EigenvaluesOnly);
    const auto& ev = es.eigenvalues();
    return {ev.size() > 1 ? ev[1] : 0.0, ev[ev.size() - 1], "dense"};
  }
  const Extremes e = laplacian_lanczos(g);
  return {e.low, e.high, "lanczos", e.iterations, e.converged};
}

double uniform_fos_gamma(const LaplacianExtremes& ext, double alpha) {
  return std::max(std::abs(1.0 - alpha * ext.lambda2), std::abs(1.0 - alpha * ext.lambda_max));
}

Gamma fos_gamma(const Graph& g, const LinearForm& form) { return fos_gamma(g, form, SpectrumMethod::automatic); }

Gamma fos_gamma(const Graph& g, const LinearForm& form, SpectrumMethod method) {
  if (form.rule == LinearForm::AlphaRule::relative) {
    // M_r is reversible with respect to the speeds (C_i M_r,ij = C_j M_r,ji), so
    // S = D^1/2 M_r D^-1/2 with D = diag(C) is symmetric and has M_r's eigenvalues.
    if (method == SpectrumMethod::iterative || g.num_nodes() > dense_spectrum_limit)
      throw InputError({}, "topology", "the spectrum of M_r is computed densely, up to " + std::to_string(dense_spectrum_limit) +
                                           " nodes; this graph has " + std::to_string(g.num_nodes()));
    const RelativeSpeedMatrix& m = *form.relative;
    const Eigen::Index n = g.num_nodes();
    Eigen::MatrixXd S = Eigen::MatrixXd::Identity(n, n);
    for (NodeId i = 0; i < g.num_nodes(); ++i)
      for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
        const NodeId j = g.target(s);
        S(i, j) = std::sqrt(m.speed[i] / m.speed[j]) * m.out[s];
        S(i, i) -= m.out[s];
      }
    return {dense_symmetric_gamma(S), "dense"};
  }
  if (form.rule == LinearForm::AlphaRule::uniform) {
    const LaplacianExtremes ext = laplacian_extremes(g, method);
    return {uniform_fos_gamma(ext, form.alpha), ext.method, ext.iterations, ext.converged};
  }
  if (use_dense(g, method)) return {dense_symmetric_gamma(dense_fos(g, form)), "dense"};
  // M = I - L_alpha with L_alpha the Laplacian weighted by alpha_ij.
  std::vector<double> alpha(g.num_slots());
  for_each_block(g.num_nodes(), [&](std::size_t b, std::size_t e, std::size_t) {
    for (auto i = static_cast<NodeId>(b); i < e; ++i)
      for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) alpha[s] = form.alpha_ij(g.degree(i), g.degree(g.target(s)));
  });
  const Extremes e = lanczos_extremes(g, [&](Slot s) { return alpha[s]; });
  return {std::max(std::abs(1.0 - e.low), std::abs(1.0 - e.high)), "lanczos", e.iterations, e.converged};
}

Gamma de_sweep_gamma(const Graph& g, const EdgeColoring& coloring, double lambda) {
  return de_sweep_gamma(g, coloring, lambda, SpectrumMethod::automatic);
}

Gamma de_sweep_gamma(const Graph& g, const EdgeColoring& coloring, double lambda, SpectrumMethod method) {
  if (use_dense(g, method)) return {dense_sweep_gamma(g, coloring, lambda), "dense"};
  return power_sweep_gamma(g, coloring, lambda);
}

double sos_optimal_beta(double gamma_fos) { return 2.0 / (1.0 + std::sqrt(1.0 - gamma_fos * gamma_fos)); }

double sos_gamma(double gamma_fos, double beta) {
  const double disc = beta * beta * gamma_fos * gamma_fos - 4.0 * (beta - 1.0);
  return disc < 0 ? std::sqrt(beta - 1.0) : (beta * gamma_fos + std::sqrt(disc)) / 2.0;
}

}  // namespace nnlb
