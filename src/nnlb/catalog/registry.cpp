#include "nnlb/catalog/registry.hpp"

#include "nnlb/catalog/parameters.hpp"
#include "nnlb/policy/bertsekas_tsitsiklis.hpp"
#include "nnlb/policy/best_effort.hpp"
#include "nnlb/policy/diffusion.hpp"
#include "nnlb/policy/dimension_exchange.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

void refuse(const std::string& value, const char* key, const std::string& algorithm) {
  if (!value.empty())
    throw InputError({}, key, "is fixed by algorithm '" + algorithm + "'; drop it or use algorithm '" +
                                  (std::string(key) == "lambda" ? "de" : "fos") + "'");
}

}  // namespace

BuiltPolicy make_policy(const PolicySpec& spec, const Topology& topo) {
  const std::string& a = spec.algorithm;
  BuiltPolicy built;
  auto diffusion = [&](const std::string& alpha_choice, const std::string& label) {
    const LinearForm f = diffusion_alpha(alpha_choice, topo);
    if (f.rule == LinearForm::AlphaRule::uniform) built.parameters.emplace_back("alpha", f.alpha);
    built.policy = std::make_unique<Diffusion>(f, label);
  };
  auto exchange = [&](const std::string& lambda_choice, const std::string& label) {
    const double lambda = dimension_exchange_lambda(lambda_choice, topo);
    built.parameters.emplace_back("lambda", lambda);
    built.policy = std::make_unique<DimensionExchange>(lambda, label);
  };
  if (a != "sos" && !spec.beta.empty()) throw InputError({}, "beta", "only applies to algorithm 'sos'");
  if (a == "fos" || a == "diffusion") {
    if (!spec.lambda.empty()) throw InputError({}, "lambda", "applies to dimension exchange, not to '" + a + "'");
    diffusion(spec.alpha.empty() ? "cybenko" : spec.alpha, "fos");
  } else if (a == "adf" || a == "odf") {
    refuse(spec.alpha, "alpha", a);
    if (!spec.lambda.empty()) throw InputError({}, "lambda", "applies to dimension exchange, not to '" + a + "'");
    diffusion(a, a);
  } else if (a == "de" || a == "gde" || a == "dimension-exchange") {
    if (!spec.alpha.empty()) throw InputError({}, "alpha", "applies to diffusion, not to '" + a + "'");
    if (a == "gde" && spec.lambda.empty()) throw InputError({}, "lambda", "algorithm 'gde' needs a lambda");
    exchange(spec.lambda.empty() ? "ade" : spec.lambda, "de");
  } else if (a == "ade" || a == "ode") {
    refuse(spec.lambda, "lambda", a);
    if (!spec.alpha.empty()) throw InputError({}, "alpha", "applies to diffusion, not to '" + a + "'");
    exchange(a, a);
  } else if (a == "sos") {
    if (!spec.lambda.empty()) throw InputError({}, "lambda", "applies to dimension exchange, not to 'sos'");
    LaplacianExtremes ext;
    LinearForm f = diffusion_alpha(spec.alpha.empty() ? "optimal" : spec.alpha, topo, &ext);
    f.beta = sos_beta(spec.beta.empty() ? "optimal" : spec.beta, topo, f, &ext);
    if (f.rule == LinearForm::AlphaRule::uniform) built.parameters.emplace_back("alpha", f.alpha);
    built.parameters.emplace_back("beta", f.beta);
    built.policy = std::make_unique<SecondOrderDiffusion>(f);
  } else if (a == "best-effort") {
    if (!(spec.leveling >= 1)) throw InputError({}, "leveling", "must be >= 1");
    built.parameters.emplace_back("leveling", spec.leveling);
    built.policy = std::make_unique<BestEffort>(spec.leveling);
  } else if (a == "bertsekas-tsitsiklis" || a == "naive") {
    built.parameters.emplace_back("ping_pong", spec.ping_pong ? 1.0 : 0.0);
    built.policy = std::make_unique<BertsekasTsitsiklis>(spec.ping_pong);
  } else {
    throw InputError({}, "algorithm", "unknown algorithm '" + a + "' (see `nnlb list`)");
  }
  if (a != "best-effort" && spec.leveling != 1) throw InputError({}, "leveling", "only applies to algorithm 'best-effort'");
  return built;
}

std::vector<PolicyInfo> policy_catalog() {
  const std::string alpha = "alpha: cybenko | adf | boillat | odf | optimal | NUMBER in (0,1)";
  const std::string lambda = "lambda: ade | ode | NUMBER in (0,1)";
  return {
      {"fos", "first-order diffusion, Cybenko 1989 / Xu et al. Eq. 3 (alias: diffusion)", {alpha + " (default cybenko)"}},
      {"adf", "Xu's local-average diffusion, alpha = 1/(1+d(G))", {}},
      {"odf", "Xu's optimally-tuned diffusion (meshes, tori, hypercubes)", {}},
      {"de", "generalized dimension exchange, Xu et al. Eq. 2 (aliases: gde, dimension-exchange)", {lambda + " (default ade)"}},
      {"ade", "average dimension exchange, lambda = 1/2", {}},
      {"ode", "optimally-tuned dimension exchange (meshes, tori)", {}},
      {"sos", "second-order diffusion, Ghosh, Muthukrishnan & Schultz 1996",
       {alpha + " (default optimal)", "beta: optimal | NUMBER in (0,2) (default optimal)"}},
      {"best-effort", "best effort, Couturier, Giersch & Hakem sec. 5", {"leveling: k >= 1 divides the amounts (default 1)"}},
      {"bertsekas-tsitsiklis", "Bertsekas & Tsitsiklis as Bahi, Giersch & Makhoul's algorithm 2 (alias: naive)",
       {"ping_pong: enforce the ping-pong condition, Eq. 2 (default false)"}},
  };
}

}  // namespace nnlb
