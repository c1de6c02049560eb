// Best effort with leveling k (Couturier, Giersch & Hakem sec. 5).
#include "nnlb/catalog/registry.hpp"
#include "nnlb/policy/best_effort.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

void register_best_effort(PolicyCatalog& catalog) {
  catalog.add({.name = "best-effort",
               .summary = "best effort, Couturier, Giersch & Hakem sec. 5",
               .reads = {"leveling"},
               .keys = {{PolicyKey::Type::number, "leveling", "1", "best effort: leveling parameter k (amounts divided by k)"}},
               .help = {"leveling: k >= 1 divides the amounts (default 1)"},
               .build = [](const PolicySpec& s, const Topology&) {
                 const double k = s.number("leveling", 1);
                 if (!(k >= 1)) throw InputError({}, "leveling", "must be >= 1");
                 BuiltPolicy built;
                 built.parameters.emplace_back("leveling", k);
                 built.policy = std::make_unique<BestEffort>(k);
                 return built;
               }});
}

}  // namespace nnlb
