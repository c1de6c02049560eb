// Bertsekas & Tsitsiklis as Bahi, Giersch & Makhoul's algorithm 2, with the optional ping-pong
// condition (Couturier, Giersch & Hakem Eq. 2).
#include "nnlb/catalog/registry.hpp"
#include "nnlb/policy/bertsekas_tsitsiklis.hpp"

namespace nnlb {

void register_bertsekas_tsitsiklis(PolicyCatalog& catalog) {
  catalog.add({.name = "bertsekas-tsitsiklis",
               .aliases = {"naive"},
               .summary = "Bertsekas & Tsitsiklis as Bahi, Giersch & Makhoul's algorithm 2 (alias: naive)",
               .reads = {"ping_pong"},
               .keys = {{PolicyKey::Type::boolean, "ping_pong", "false", "Bertsekas-Tsitsiklis: enforce the ping-pong condition (Eq. 2)"}},
               .help = {"ping_pong: enforce the ping-pong condition, Eq. 2 (default false)"},
               .build = [](const PolicySpec& s, const Topology&) {
                 const bool ping_pong = s.boolean("ping_pong");
                 BuiltPolicy built;
                 built.parameters.emplace_back("ping_pong", ping_pong ? 1.0 : 0.0);
                 built.policy = std::make_unique<BertsekasTsitsiklis>(ping_pong);
                 return built;
               }});
}

}  // namespace nnlb
