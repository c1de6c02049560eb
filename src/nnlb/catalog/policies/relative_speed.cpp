// Relative-speed diffusion M_r with its optional shaker (Jeannot & Vernier 2006, secs. 3.2, 3.3.1).
#include <cmath>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/policy/relative_speed.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

// kappa from shaker.kappa, or from shaker.p and shaker.tau (exp(-kappa tau) = p); 0: no shaker.
Shaker shaker_from(const PolicySpec& s) {
  const bool direct = !s.text("shaker.kappa").empty(), by_p = !s.text("shaker.p").empty() || !s.text("shaker.tau").empty();
  if (direct && by_p) throw InputError({}, "shaker.kappa", "is set together with shaker.p/shaker.tau: keep one of them");
  if (direct) {
    const double kappa = s.number("shaker.kappa", 0);
    if (!(kappa > 0)) throw InputError({}, "shaker.kappa", "must be > 0");
    return {kappa};
  }
  if (!by_p) return {};
  const double p = s.number("shaker.p", 0.5), tau = s.number("shaker.tau", 1);
  if (!(p > 0 && p < 1)) throw InputError({}, "shaker.p", "must be in (0, 1)");
  if (!(tau > 0)) throw InputError({}, "shaker.tau", "must be > 0");
  return {shaker_kappa(p, tau)};
}

}  // namespace

void register_relative_speed(PolicyCatalog& catalog) {
  catalog.add({.name = "mr",
               .summary = "relative-speed diffusion M_r, loads proportional to speed, Jeannot & Vernier 2006 sec. 3.2",
               .reads = {"mr.self", "shaker.kappa", "shaker.p", "shaker.tau"},
               .keys = {{PolicyKey::Type::boolean, "mr.self", "false",
                         "mr: the second definition of M_r, with the self term C_i/(2 C_i) (aperiodic on bipartite graphs)"},
                        {PolicyKey::Type::number, "shaker.kappa", "",
                         "mr, integer loads: shaker, one unit moves with probability exp(-kappa U_ij) over a stuck edge (sec. 3.3.1)"},
                        {PolicyKey::Type::number, "shaker.p", "", "shaker: kappa such that the tau-th move has probability p"},
                        {PolicyKey::Type::number, "shaker.tau", "", "shaker: see shaker.p"}},
               .help = {"mr.self: false | true (default false)", "shaker.kappa: NUMBER > 0, or shaker.p in (0,1) with shaker.tau > 0"},
               .build = [](const PolicySpec& s, const Topology& t) {
                 BuiltPolicy built;
                 const std::vector<double> one{1.0};
                 auto mr = std::make_shared<RelativeSpeedMatrix>(
                     relative_speed_matrix(t.graph, s.speeds.empty() ? std::span<const double>(one) : std::span<const double>(s.speeds), s.boolean("mr.self")));
                 const Shaker shaker = shaker_from(s);
                 if (shaker.kappa) built.parameters.emplace_back("kappa", shaker.kappa);
                 built.policy = std::make_unique<RelativeSpeedDiffusion>(t.graph, std::move(mr), shaker);
                 return built;
               }});
}

}  // namespace nnlb
