#include "nnlb/mpi/policies.hpp"

#include <stdexcept>
#include <string>

#include "nnlb/policy/bertsekas_tsitsiklis.hpp"
#include "nnlb/policy/best_effort.hpp"
#include "nnlb/policy/diffusion.hpp"
#include "nnlb/policy/relative_speed.hpp"

namespace nnlb::mpi {

std::shared_ptr<const Policy> policy_named(std::string_view name) {
  if (name == "best-effort") return std::make_shared<BestEffort>(1.0);
  if (name == "bertsekas-tsitsiklis" || name == "bt") return std::make_shared<BertsekasTsitsiklis>(false);
  if (name == "fos") {
    LinearForm f;
    f.rule = LinearForm::AlphaRule::boillat;
    return std::make_shared<Diffusion>(f);
  }
  if (name == "mr") return std::make_shared<RelativeSpeedDiffusion>(true, Shaker{});
  throw std::invalid_argument("nnlb::mpi: unknown policy '" + std::string(name) + "' (best-effort, bertsekas-tsitsiklis or bt, fos, mr)");
}

}  // namespace nnlb::mpi
