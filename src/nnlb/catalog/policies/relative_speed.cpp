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
               .reads = {"mr.self", "shaker.kappa", "shaker.p", "shaker.tau", "shaker.part", "shaker.counter", "shaker.unbalanced"},
               .keys = {{PolicyKey::Type::boolean, "mr.self", "false",
                         "mr: the second definition of M_r, with the self term C_i/(2 C_i) (aperiodic on bipartite graphs)"},
                        {PolicyKey::Type::number, "shaker.kappa", "",
                         "mr, integer loads: shaker, a part of the load moves with probability exp(-kappa U_ij) over an edge stuck for U_ij "
                         "successive steps (sec. 3.3.1)"},
                        {PolicyKey::Type::number, "shaker.p", "", "shaker: kappa such that the tau-th move has probability p"},
                        {PolicyKey::Type::number, "shaker.tau", "", "shaker: see shaker.p"},
                        {PolicyKey::Type::text_or_number, "shaker.part", "unit",
                         "shaker: what a move carries, one unit or a fraction of the amount that levels the pair relative to speed "
                         "(the paper's \"a part of load\", unquantified)"},
                        {PolicyKey::Type::text_or_number, "shaker.counter", "reset",
                         "shaker: U_ij after the shaker's own move: reset (the move is an exchange) | cool (only the diffusion's "
                         "exchanges and balance reset it, so a stuck edge's probability keeps falling)"},
                        {PolicyKey::Type::text_or_number, "shaker.unbalanced", "any",
                         "shaker: when i is unbalanced towards j: any (any imbalance relative to speed) | unit (a one-unit move "
                         "would narrow the pair's gap relative to speed)"}},
               .help = {"mr.self: false | true (default false)", "shaker.kappa: NUMBER > 0, or shaker.p in (0,1) with shaker.tau > 0",
                        "shaker.part: unit | FRACTION in (0, 1] (default unit)", "shaker.counter: reset | cool (default reset)",
                        "shaker.unbalanced: any | unit (default any)"},
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
                 const std::string counter = s.text("shaker.counter"), unbalanced = s.text("shaker.unbalanced");
                 if (!counter.empty() && counter != "reset" && counter != "cool")
                   throw InputError({}, "shaker.counter", "must be reset or cool, not '" + counter + "'");
                 if (!unbalanced.empty() && unbalanced != "any" && unbalanced != "unit")
                   throw InputError({}, "shaker.unbalanced", "must be any or unit, not '" + unbalanced + "'");
                 shaker.cool = counter == "cool";
                 shaker.unit = unbalanced == "unit";
                 if ((shaker.cool || shaker.unit) && !shaker.kappa)
                   throw InputError({}, shaker.cool ? "shaker.counter" : "shaker.unbalanced", "applies only with a shaker (shaker.kappa, or shaker.p and shaker.tau)");
                 if (shaker.cool) built.parameters.emplace_back("shaker_cool", 1);
                 if (shaker.unit) built.parameters.emplace_back("shaker_unit", 1);
                 built.policy = std::make_unique<RelativeSpeedDiffusion>(t.graph, std::move(mr), shaker);
                 return built;
               }});
}

}  // namespace nnlb
