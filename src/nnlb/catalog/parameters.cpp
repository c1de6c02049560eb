#include "nnlb/catalog/parameters.hpp"

#include <cmath>
#include <numbers>
#include <sstream>
#include <string>

#include "nnlb/spectral/spectrum.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/parse.hpp"

namespace nnlb {

namespace {

double open_unit(std::string_view text, const char* key, double hi = 1.0) {
  const double v = parse_double(text, std::string("'") + std::string(text) + "'");
  if (!(v > 0.0 && v < hi))
    throw InputError({}, key, "must be in (0, " + std::to_string(static_cast<int>(hi)) + "), got " + std::string(text));
  return v;
}

bool is_number(std::string_view text) {
  return !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.' || text[0] == '-');
}

// The grid shape that Xu's optimal parameters need; elsewhere an error that says what to use
// instead (values the key accepts on any graph).
const GridShape& grid_of(const Topology& topo, const char* key, std::string_view choice) {
  const bool ok = topo.kind == TopologyKind::mesh || topo.kind == TopologyKind::torus || topo.kind == TopologyKind::line ||
                  topo.kind == TopologyKind::ring || topo.kind == TopologyKind::hypercube || topo.kind == TopologyKind::kary;
  if (!ok) {
    const std::string instead = std::string(key) == "alpha"
                                    ? "use algorithm 'fos' or 'sos' with alpha = optimal, cybenko, boillat or a number in (0, 1)"
                                    : "use algorithm 'ade', or 'de' with lambda = a number in (0, 1)";
    throw InputError({}, key,
                     "'" + std::string(choice) + "' is defined only on meshes, tori and hypercubes (Xu et al. 1995), not on '" +
                         topo.spec + "'; " + instead);
  }
  return topo.shape();
}

}  // namespace

LinearForm diffusion_alpha(std::string_view choice, const Topology& topo, LaplacianExtremes* extremes, bool allow_unstable) {
  LinearForm f;
  const double dg = topo.graph.max_degree();
  if (choice == "cybenko" || choice == "adf") {
    f.alpha = 1.0 / (1.0 + dg);
  } else if (choice == "boillat") {
    f.rule = LinearForm::AlphaRule::boillat;
  } else if (choice == "odf") {
    const auto& s = grid_of(topo, "alpha", choice);
    const double n = s.n();
    if (topo.kind == TopologyKind::hypercube) f.alpha = 1.0 / (n + 1.0);
    else if (s.periodic) f.alpha = 1.0 / (2.0 * n + 1.0 - std::cos(2.0 * std::numbers::pi / s.k_max()));
    else f.alpha = 1.0 / (2.0 * n);
  } else if (choice == "optimal") {
    const auto ext = laplacian_extremes(topo.graph);
    f.alpha = 2.0 / (ext.lambda2 + ext.lambda_max);
    if (extremes) *extremes = ext;
  } else if (is_number(choice)) {
    f.alpha = open_unit(choice, "alpha");
    // FOS is W(t+1) = (I - alpha L) W(t): stable only for alpha < 2 / lambda_max(L). Below
    // 1 / d(G) it is (lambda_max <= 2 d(G)); above, the exact bound decides.
    if (f.alpha * dg >= 1) {
      const auto ext = laplacian_extremes(topo.graph);
      const double bound = 2.0 / ext.lambda_max;
      if (f.alpha >= bound && !allow_unstable) {
        std::ostringstream text;
        text << "alpha = " << f.alpha << " is at or above 2 / lambda_max(L) = " << bound
             << " on this graph, where diffusion diverges (set alpha.unstable = true to run it anyway)";
        throw InputError({}, "alpha", text.str());
      }
      if (extremes) *extremes = ext;
    }
  } else {
    throw InputError({}, "alpha", "unknown choice '" + std::string(choice) + "' (cybenko, adf, boillat, odf, optimal or a number)");
  }
  return f;
}

double dimension_exchange_lambda(std::string_view choice, const Topology& topo) {
  if (choice == "ade") return 0.5;
  if (choice == "ode") {
    const auto& s = grid_of(topo, "lambda", choice);
    const double k = s.k_max();
    // The hypercube is the mesh 2 x ... x 2: lambda = 1/(1 + sin(pi/2)) = 1/2.
    return s.periodic && topo.kind != TopologyKind::hypercube ? 1.0 / (1.0 + std::sin(2.0 * std::numbers::pi / k))
                                                              : 1.0 / (1.0 + std::sin(std::numbers::pi / k));
  }
  if (is_number(choice)) return open_unit(choice, "lambda");
  throw InputError({}, "lambda", "unknown choice '" + std::string(choice) + "' (ade, ode or a number)");
}

double sos_beta(std::string_view choice, const Topology& topo, const LinearForm& form, const LaplacianExtremes* extremes) {
  if (choice == "optimal") {
    const bool reuse = extremes && extremes->lambda_max > 0 && form.rule == LinearForm::AlphaRule::uniform;
    return sos_optimal_beta(reuse ? uniform_fos_gamma(*extremes, form.alpha) : fos_gamma(topo.graph, form).value);
  }
  if (is_number(choice)) return open_unit(choice, "beta", 2.0);
  throw InputError({}, "beta", "unknown choice '" + std::string(choice) + "' (optimal or a number in (0, 2))");
}

}  // namespace nnlb
