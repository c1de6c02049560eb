#pragma once
// Input errors that name the scenario file and the key.
#include <string>

#include "nnlb/experiment/scenario.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

inline void require(bool ok, const Scenario& s, const std::string& key, const std::string& problem) {
  if (!ok) throw InputError(s.source(), key, problem);
}

// Runs `build` and names the scenario's source (and `key`) in any InputError it throws.
template <class F>
auto located(const Scenario& s, const std::string& key, F&& build) {
  try {
    return build();
  } catch (const InputError& e) {
    throw e.located(s.source(), key);
  }
}

}  // namespace nnlb
