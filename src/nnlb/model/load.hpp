#pragma once
// Load values. `real` loads are infinitely divisible (doubles); `integer` loads are indivisible
// units (int64): every transfer a policy proposes is rounded down to whole units, which is what
// produces the step ("stairway") distributions of Jeannot & Vernier 2006 sec. 3.3.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nnlb/model/graph.hpp"

namespace nnlb {

enum class LoadMode { real, integer };

LoadMode parse_load_mode(std::string_view text);
std::string_view to_string(LoadMode mode);

// The largest total load a run takes (initial loads, a load trace's weights): the statistics
// square loads and sum the squares, so totals keep headroom far below the largest double.
inline constexpr double max_total_load = 1e100;

// A proposed transfer amount in the mode's unit: rounded down for integer loads.
template <class L>
inline L quantize(double amount) {
  if constexpr (std::is_integral_v<L>) return static_cast<L>(std::floor(amount));
  else return amount;
}

// Initial loads from a spec (values are whole numbers in integer mode):
//   uniform:LOW,HIGH     i.i.d. uniform in [LOW, HIGH] (integers LOW..HIGH in integer mode)
//   single:NODE,TOTAL    TOTAL on one node, zero elsewhere
//   random-total:TOTAL   TOTAL split at random (uniform weights; integers by largest remainder)
//   file:PATH            one value per line, in node order
//   a number             the same value everywhere
// A TOTAL may be written X*N: X times the number of nodes.
std::vector<double> make_initial_load(std::string_view spec, NodeId nodes, LoadMode mode, std::uint64_t seed,
                                      const std::string& base_dir = {});

}  // namespace nnlb
