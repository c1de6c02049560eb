// Sender-initiated diffusion on divisible load (Douglas & Harwood sec. 2.3).
#include "nnlb/catalog/registry.hpp"
#include "nnlb/policy/sender_initiated.hpp"

namespace nnlb {

void register_sender_initiated(PolicyCatalog& catalog) {
  catalog.add({.name = "sid-continuous",
               .summary = "sender-initiated diffusion: half the difference to the least loaded neighbour (divisible load), Douglas & Harwood sec. 2.3",
               .build = [](const PolicySpec&, const Topology&) {
                 BuiltPolicy built;
                 built.policy = std::make_unique<SenderInitiated>();
                 return built;
               }});
}

}  // namespace nnlb
