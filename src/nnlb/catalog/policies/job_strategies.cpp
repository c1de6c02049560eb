// Strategies over whole jobs on a P2P host network (Douglas & Harwood): rules over a domain of
// hosts, run by the loosely-synchronous engine (engine = "p2p").
#include <cmath>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/policy/domain_policy.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

BuiltPolicy built(std::shared_ptr<const DomainPolicy> domain, std::vector<std::pair<std::string, double>> parameters = {}) {
  BuiltPolicy b;
  b.domain = std::move(domain);
  b.parameters = std::move(parameters);
  return b;
}

double probability(const PolicySpec& s, const std::string& key, double fallback) {
  const double x = s.number(key, fallback);
  if (!(x >= 0 && x <= 1)) throw InputError({}, key, "must be a probability in [0, 1]");
  return x;
}

}  // namespace

void register_job_strategies(PolicyCatalog& catalog) {
  catalog.add({.name = "en",
               .summary = "Extended Neighbor x: the centre and the least (or most) loaded host of its radius-x domain halve their difference, Douglas & Harwood sec. 3.4",
               .reads = {"en.x"},
               .keys = {{PolicyKey::Type::number, "en.x", "1", "en: radius of the domain in hops (above the diameter: the centralized optimum)"}},
               .help = {"en.x: domain radius in hops (default 1); engine = \"p2p\""},
               .build = [](const PolicySpec& s, const Topology&) {
                 const double x = s.number("en.x", 1);
                 if (!(x >= 0 && x <= 1e6 && x == std::floor(x))) throw InputError({}, "en.x", "must be a whole number of hops >= 0");
                 return built(make_extended_neighbor(static_cast<std::uint32_t>(x)), {{"x", x}});
               },
               .program = "jobs"});
  catalog.add({.name = "dasud",
               .summary = "DASUD: the most and least loaded hosts of the radius-1 domain balance, centre or not, Douglas & Harwood sec. 3.5",
               .help = {"engine = \"p2p\""},
               .build = [](const PolicySpec&, const Topology&) { return built(make_dasud()); },
               .program = "jobs"});
  catalog.add({.name = "pm",
               .summary = "Probabilistic migration x: EN 1, and a difference of one job moves with probability x, Douglas & Harwood sec. 3.6",
               .reads = {"pm.x"},
               .keys = {{PolicyKey::Type::number, "pm.x", "0.35", "pm: probability of migrating across a difference of one job"}},
               .help = {"pm.x: probability (default 0.35, the paper's most robust value); engine = \"p2p\""},
               .build = [](const PolicySpec& s, const Topology&) {
                 const double x = probability(s, "pm.x", 0.35);
                 return built(make_probabilistic_migration(x), {{"x", x}});
               },
               .program = "jobs"});
  catalog.add({.name = "sid",
               .summary = "sender-initiated diffusion, discrete: ceil(difference / 2) jobs to the least loaded neighbour (over-migrates), Douglas & Harwood sec. 2.3",
               .help = {"engine = \"p2p\""},
               .build = [](const PolicySpec&, const Topology&) { return built(make_sender_initiated()); },
               .program = "jobs"});
  catalog.add({.name = "push",
               .summary = "random push: above the threshold, one job to a random host with two fewer, Douglas & Harwood sec. 2.1",
               .reads = {"push.threshold"},
               .keys = {{PolicyKey::Type::number, "push.threshold", "1", "push: a host with more jobs than this pushes"}},
               .help = {"push.threshold (default 1); engine = \"p2p\""},
               .build = [](const PolicySpec& s, const Topology&) {
                 const double t = s.number("push.threshold", 1);
                 return built(make_random_push(t), {{"threshold", t}});
               },
               .program = "jobs"});
  catalog.add({.name = "pull",
               .summary = "random pull: below the threshold, one job from a random host with two more, Douglas & Harwood sec. 2.1",
               .reads = {"pull.threshold"},
               .keys = {{PolicyKey::Type::number, "pull.threshold", "1", "pull: a host with fewer jobs than this pulls"}},
               .help = {"pull.threshold (default 1); engine = \"p2p\""},
               .build = [](const PolicySpec& s, const Topology&) {
                 const double t = s.number("pull.threshold", 1);
                 return built(make_random_pull(t), {{"threshold", t}});
               },
               .program = "jobs"});
}

}  // namespace nnlb
