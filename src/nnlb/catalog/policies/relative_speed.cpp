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

// shaker.part: "unit" (0) or a fraction in (0, 1] of the pair's levelling amount.
double shaker_part(const PolicySpec& s) {
  const std::string text = s.text("shaker.part");
  if (text.empty() || text == "unit") return 0;
  const double part = s.number("shaker.part", 0);
  if (!(part > 0 && part <= 1)) throw InputError({}, "shaker.part", "must be \"unit\" or a fraction in (0, 1], not " + text);
  return part;
}

}  // namespace

void register_relative_speed(PolicyCatalog& catalog) {
  catalog.add({.name = "mr",
               .summary = "relative-speed diffusion M_r, loads proportional to speed, Jeannot & Vernier 2006 sec. 3.2",
               .reads = {"mr.self", "shaker.kappa", "shaker.p", "shaker.tau", "shaker.part"},
               .keys = {{PolicyKey::Type::boolean, "mr.self", "false",
                         "mr: the second definition of M_r, with the self term C_i/(2 C_i) (aperiodic on bipartite graphs)"},
                        {PolicyKey::Type::number, "shaker.kappa", "",
                         "mr, integer loads: shaker, a part of the load moves with probability exp(-kappa U_ij) over an edge stuck for U_ij "
                         "successive steps (sec. 3.3.1)"},
                        {PolicyKey::Type::number, "shaker.p", "", "shaker: kappa such that the tau-th move has probability p"},
                        {PolicyKey::Type::number, "shaker.tau", "", "shaker: see shaker.p"},
                        {PolicyKey::Type::text_or_number, "shaker.part", "unit",
                         "shaker: what a move carries, one unit or a fraction of the amount that levels the pair relative to speed "
                         "(the paper's \"a part of load\", unquantified)"}},
               .help = {"mr.self: false | true (default false)", "shaker.kappa: NUMBER > 0, or shaker.p in (0,1) with shaker.tau > 0",
                        "shaker.part: unit | FRACTION in (0, 1] (default unit)"},
               .build = [](const PolicySpec& s, const Topology& t) {
                 BuiltPolicy built;
                 const std::vector<double> one{1.0};
                 auto mr = std::make_shared<RelativeSpeedMatrix>(
                     relative_speed_matrix(t.graph, s.speeds.empty() ? std::span<const double>(one) : std::span<const double>(s.speeds), s.boolean("mr.self")));
                 Shaker shaker = shaker_from(s);
                 shaker.part = shaker_part(s);
                 if (shaker.part && !shaker.kappa) throw InputError({}, "shaker.part", "applies only with a shaker (shaker.kappa, or shaker.p and shaker.tau)");
                 if (shaker.kappa) built.parameters.emplace_back("kappa", shaker.kappa);
                 if (shaker.part) built.parameters.emplace_back("shaker_part", shaker.part);
                 built.policy = std::make_unique<RelativeSpeedDiffusion>(t.graph, std::move(mr), shaker);
                 return built;
               }});
}

}  // namespace nnlb
