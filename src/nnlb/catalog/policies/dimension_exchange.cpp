// Dimension exchange (Xu et al. 1995, Eq. 2): generalized DE with any lambda, ADE and ODE.
#include "nnlb/catalog/parameters.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/policy/dimension_exchange.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

BuiltPolicy exchange(const std::string& lambda_choice, const std::string& label, const Topology& topo) {
  BuiltPolicy built;
  const double lambda = dimension_exchange_lambda(lambda_choice, topo);
  built.parameters.emplace_back("lambda", lambda);
  built.policy = std::make_unique<DimensionExchange>(lambda, label);
  return built;
}

}  // namespace

void register_dimension_exchange(PolicyCatalog& catalog) {
  catalog.add({.name = "de",
               .aliases = {"gde", "dimension-exchange"},
               .summary = "generalized dimension exchange, Xu et al. Eq. 2 (aliases: gde, dimension-exchange)",
               .reads = {"lambda"},
               .keys = {{PolicyKey::Type::text_or_number, "lambda", "", "dimension-exchange parameter: ade | ode | NUMBER"}},
               .help = {"lambda: ade | ode | NUMBER in (0,1) (default ade)"},
               .build = [](const PolicySpec& s, const Topology& t) {
                 const std::string lambda = s.text("lambda");  // one default for every name of it
                 return exchange(lambda.empty() ? "ade" : lambda, "de", t);
               }});
  for (const char* named : {"ade", "ode"})
    catalog.add({.name = named,
                 .summary = std::string(named) == "ade" ? "average dimension exchange, lambda = 1/2"
                                                        : "optimally-tuned dimension exchange (meshes, tori)",
                 .fixes = {"lambda"},
                 .build = [named](const PolicySpec&, const Topology& t) { return exchange(named, named, t); }});
}

}  // namespace nnlb
