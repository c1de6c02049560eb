#pragma once
// The policies an application picks by name, with the parameters a rank can compute from its own
// view (no global graph): the names are those of the CLI's `algorithm` key, so a policy chosen by
// replaying a trace on des (docs/mpi.md, "Record and replay") is asked for by the same name.
//   best-effort            Couturier et al. sec. 4, leveling k = 1
//   bertsekas-tsitsiklis   (or bt) Bertsekas & Tsitsiklis' asynchronous rule
//   fos                    first-order diffusion with Boillat's local alpha, 1 / (max(d_i, d_j) + 1)
//   mr                     relative-speed diffusion M_r on the speeds the ranks report
//                          (Balancer::set_speed, measured_speed; Jeannot & Vernier sec. 3.2),
//                          second definition (with the self term): Cartesian grids of ranks are
//                          often bipartite, where the first one oscillates
#include <memory>
#include <string_view>

#include "nnlb/policy/policy.hpp"

namespace nnlb::mpi {

// std::invalid_argument naming the choices when `name` is none of them.
std::shared_ptr<const Policy> policy_named(std::string_view name);

}  // namespace nnlb::mpi
