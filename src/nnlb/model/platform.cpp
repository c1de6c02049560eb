#include "nnlb/model/platform.hpp"

#include "nnlb/model/load.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/parse.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

std::vector<double> make_speeds(std::string_view spec, NodeId nodes, std::uint64_t seed, const std::string& base_dir) {
  std::vector<double> speed;
  if (spec.starts_with("file:")) {
    try {
      speed = make_initial_load(spec, nodes, LoadMode::real, seed, base_dir);
    } catch (const InputError& e) {
      throw InputError(e.source(), "platform.speed", e.what());
    }
  } else if (spec.starts_with("uniform:")) {
    const auto parts = split(spec.substr(8), ',');
    if (parts.size() != 2) throw InputError({}, "platform.speed", "expected uniform:LO,HI");
    const double lo = parse_double(parts[0], "platform.speed"), hi = parse_double(parts[1], "platform.speed");
    if (!(lo > 0 && lo <= hi)) throw InputError({}, "platform.speed", "needs 0 < LO <= HI");
    Rng rng(seed, 0x7370656564ULL);
    speed.resize(nodes);
    for (auto& c : speed) c = rng.uniform(lo, hi);
  } else {
    double c = 0;
    try {
      c = parse_double(spec, "'" + std::string(spec) + "'");
    } catch (const InputError& e) {
      throw InputError({}, "platform.speed", std::string(e.what()) + " (a number, uniform:LO,HI or file:PATH)");
    }
    speed.assign(1, c);
  }
  for (double c : speed)
    if (!(c > 0)) throw InputError({}, "platform.speed", "speeds must be > 0");
  return speed;
}

}  // namespace nnlb
