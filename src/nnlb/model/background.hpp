#pragma once
// Background load: the fraction of each node's speed left to the run over time, as on a shared
// cluster where other users' jobs come and go (Filipović & Krstajić 2016, Fig. 6: "different
// cluster loads"). Piecewise constant; none gives every node its whole speed.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nnlb/model/graph.hpp"

namespace nnlb {

class Background {
 public:
  // none | random:LO,HI,PERIOD (each node's fraction uniform in [LO, HI], 0 < LO <= HI <= 1,
  // drawn anew every PERIOD seconds) | file:PATH (lines "NODE TIME FRACTION": from TIME on);
  // InputError (key tasks.background) otherwise.
  static Background parse(std::string_view spec, NodeId nodes, std::uint64_t seed, const std::string& base_dir = {});

  bool none() const { return kind_ == Kind::none; }
  // The fraction of node i's speed free at time t.
  double fraction(NodeId i, double t) const;
  // How often a random background changes (0 for none or a file).
  double period() const { return kind_ == Kind::random ? period_ : 0.0; }
  // The least fraction node i ever has.
  double least_fraction(NodeId i) const;
  // When work that takes `seconds` at full speed, started at `start` on node i, is done.
  double finish(NodeId i, double start, double seconds) const;

 private:
  enum class Kind { none, random, file } kind_ = Kind::none;
  double lo_ = 1, hi_ = 1, period_ = 1;
  std::uint64_t seed_ = 0;
  struct Change {
    double time, fraction;
  };
  std::vector<std::vector<Change>> changes_;  // file: per node, by time (first at 0)
  double random_fraction(NodeId i, std::uint64_t k) const;
};

}  // namespace nnlb
