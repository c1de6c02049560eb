// Diffusion: FOS (Cybenko 1989; Xu et al. 1995 Eq. 3) with its alpha choices, Xu's ADF and ODF,
// and the second-order scheme SOS (Ghosh, Muthukrishnan & Schultz 1996).
#include "nnlb/catalog/parameters.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/policy/diffusion.hpp"

namespace nnlb {

namespace {

const char* const alpha_choices = "cybenko | adf | boillat | odf | optimal | NUMBER in (0,1)";

BuiltPolicy diffusion(const std::string& alpha_choice, const std::string& label, const Topology& topo, bool allow_unstable = false) {
  BuiltPolicy built;
  const LinearForm f = diffusion_alpha(alpha_choice, topo, nullptr, allow_unstable);
  if (f.rule == LinearForm::AlphaRule::uniform) built.parameters.emplace_back("alpha", f.alpha);
  built.policy = std::make_unique<Diffusion>(f, label);
  return built;
}

}  // namespace

void register_diffusion(PolicyCatalog& catalog) {
  catalog.add({.name = "fos",
               .aliases = {"diffusion"},
               .summary = "first-order diffusion, Cybenko 1989 / Xu et al. Eq. 3 (alias: diffusion)",
               .reads = {"alpha", "alpha.unstable"},
               .keys = {{PolicyKey::Type::text_or_number, "alpha", "", std::string("diffusion parameter: ") + alpha_choices},
                        {PolicyKey::Type::boolean, "alpha.unstable", "false",
                         "fos, sos: run an alpha at or above the stability bound 2 / lambda_max(L) (it diverges; the run ends \"diverged\")"}},
               .help = {std::string("alpha: ") + alpha_choices + " (default cybenko)", "alpha.unstable: false | true (default false)"},
               .build = [](const PolicySpec& s, const Topology& t) {
                 const std::string alpha = s.text("alpha");
                 return diffusion(alpha.empty() ? "cybenko" : alpha, "fos", t, s.boolean("alpha.unstable"));
               }});
  for (const char* named : {"adf", "odf"})
    catalog.add({.name = named,
                 .summary = std::string(named) == "adf" ? "Xu's local-average diffusion, alpha = 1/(1+d(G))"
                                                        : "Xu's optimally-tuned diffusion (meshes, tori, hypercubes)",
                 .fixes = {"alpha"},
                 .build = [named](const PolicySpec&, const Topology& t) { return diffusion(named, named, t); }});
  catalog.add({.name = "sos",
               .summary = "second-order diffusion, Ghosh, Muthukrishnan & Schultz 1996",
               .reads = {"alpha", "alpha.unstable", "beta"},
               .keys = {{PolicyKey::Type::text_or_number, "beta", "", "SOS parameter: optimal | NUMBER in (0,2)"}},
               .help = {std::string("alpha: ") + alpha_choices + " (default optimal)",
                        "beta: optimal | NUMBER in (0,2) (default optimal)"},
               .build = [](const PolicySpec& s, const Topology& t) {
                 BuiltPolicy built;
                 LaplacianExtremes ext;
                 const std::string alpha = s.text("alpha"), beta = s.text("beta");
                 LinearForm f = diffusion_alpha(alpha.empty() ? "optimal" : alpha, t, &ext, s.boolean("alpha.unstable"));
                 f.beta = sos_beta(beta.empty() ? "optimal" : beta, t, f, &ext);
                 if (f.rule == LinearForm::AlphaRule::uniform) built.parameters.emplace_back("alpha", f.alpha);
                 built.parameters.emplace_back("beta", f.beta);
                 built.policy = std::make_unique<SecondOrderDiffusion>(f);
                 return built;
               }});
}

}  // namespace nnlb
