// Misra & Gries, "A constructive proof of Vizing's theorem", Inf. Process. Lett. 41 (1992):
// colours every edge with at most max degree + 1 colours. For each uncoloured edge (u, v):
//   1. build a fan F = [f0 = v, f1, ..., fk] of u, where colour(u, f_{i+1}) is free on f_i;
//   2. take c free on u and d free on fk, and invert the cd-path that starts at u;
//   3. take w in F such that [f0..w] is still a fan and d is free on w; rotate the fan
//      (colour(u, f_i) <- colour(u, f_{i+1}) for i < w) and give (u, w) the colour d.
// The fan is grown only as far as the proof needs: at f_i pick a free colour d_i, preferring one
// that is also free on u (then step 2 is empty and w = f_i). Otherwise the edge of u coloured d_i
// leads to f_{i+1}, or to some f_j already in the fan, which closes it with d = d_i: then d is free
// on f_{j-1}, and after the inversion w = f_{j-1} if d is still free there, else w = fk.
#include <limits>
#include <string>
#include <vector>

#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

constexpr std::uint32_t uncoloured = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint32_t not_in_fan = std::numeric_limits<std::uint32_t>::max();

class MisraGries {
 public:
  explicit MisraGries(const Graph& g)
      : g_(g),
        palette_(g.max_degree() + 1),
        colour_(g.num_slots(), uncoloured),
        slot_at_u_(palette_, g.num_slots()),
        used_(palette_, 0),
        fan_pos_(g.num_nodes(), not_in_fan) {}

  // Colours the uncoloured edge of slot s0, which leaves u.
  void colour_edge(NodeId u, Slot s0) {
    const Slot none = g_.num_slots();
    for (Slot s = g_.first_slot(u); s < g_.end_slot(u); ++s)
      if (colour_[s] != uncoloured) slot_at_u_[colour_[s]] = s;

    fan_.assign(1, s0);
    fan_pos_[g_.target(s0)] = 0;
    std::uint32_t d;                     // free on the last fan node
    std::uint32_t closing = not_in_fan;  // j if u's d-edge leads back to f_j; else d is free on u too
    while (true) {
      const NodeId x = g_.target(fan_.back());
      d = free_colour(x);
      if (slot_at_u_[d] == none) break;
      const NodeId next = g_.target(slot_at_u_[d]);
      if (fan_pos_[next] != not_in_fan) {
        closing = fan_pos_[next];
        break;
      }
      fan_pos_[next] = static_cast<std::uint32_t>(fan_.size());
      fan_.push_back(slot_at_u_[d]);
    }
    std::uint32_t c = 0;
    while (slot_at_u_[c] != none) ++c;  // free on u: u has at most max degree - 1 coloured edges
    for (Slot s = g_.first_slot(u); s < g_.end_slot(u); ++s)
      if (colour_[s] != uncoloured) slot_at_u_[colour_[s]] = none;
    for (Slot s : fan_) fan_pos_[g_.target(s)] = not_in_fan;

    std::size_t w = fan_.size() - 1;
    if (closing != not_in_fan) {
      invert_path(u, c, d);
      const NodeId before = g_.target(fan_[closing - 1]);
      if (slot_with(before, d) == none) w = closing - 1;
    }
    for (std::size_t i = 0; i < w; ++i) set(fan_[i], colour_[fan_[i + 1]]);
    set(fan_[w], d);
  }

  EdgeColoring result() const {
    // Number the colours in use 0, 1, ... so that num_colors counts only those.
    std::vector<std::uint32_t> rank(palette_, 0);
    for (auto col : colour_) rank[col] = 1;
    std::uint32_t used = 0;
    for (auto& r : rank) r = r ? used++ : 0;
    EdgeColoring out;
    out.num_colors = used;
    out.slot_color.reserve(colour_.size());
    for (auto col : colour_) out.slot_color.push_back(static_cast<std::uint16_t>(rank[col]));
    return out;
  }

 private:
  // The smallest colour free on both x and u if there is one, else the smallest free on x.
  std::uint32_t free_colour(NodeId x) {
    ++stamp_;
    for (Slot s = g_.first_slot(x); s < g_.end_slot(x); ++s)
      if (colour_[s] != uncoloured) used_[colour_[s]] = stamp_;
    std::uint32_t first = uncoloured, both = uncoloured;
    for (std::uint32_t col = 0; col < palette_ && both == uncoloured; ++col) {
      if (used_[col] == stamp_) continue;
      if (first == uncoloured) first = col;
      if (slot_at_u_[col] == g_.num_slots()) both = col;
    }
    return both != uncoloured ? both : first;
  }

  Slot slot_with(NodeId x, std::uint32_t col) const {
    for (Slot s = g_.first_slot(x); s < g_.end_slot(x); ++s)
      if (colour_[s] == col) return s;
    return g_.num_slots();
  }

  // Swaps c and d along the path from u whose edges are coloured d, c, d, ... (u has c free).
  void invert_path(NodeId u, std::uint32_t c, std::uint32_t d) {
    path_.clear();
    NodeId x = u;
    for (std::uint32_t want = d;; want = want == d ? c : d) {
      const Slot s = slot_with(x, want);
      if (s == g_.num_slots()) break;
      path_.push_back(s);
      x = g_.target(s);
    }
    for (Slot s : path_) set(s, colour_[s] == d ? c : d);
  }

  void set(Slot s, std::uint32_t col) { colour_[s] = colour_[g_.reverse(s)] = col; }

  const Graph& g_;
  std::uint32_t palette_;
  std::vector<std::uint32_t> colour_;
  std::vector<Slot> slot_at_u_;  // per colour: u's slot of that colour, or num_slots()
  std::vector<std::uint64_t> used_;  // free_colour: colours of x are marked with the current stamp
  std::uint64_t stamp_ = 0;
  std::vector<std::uint32_t> fan_pos_;
  std::vector<Slot> fan_;
  std::vector<Slot> path_;
};

}  // namespace

EdgeColoring misra_gries_edge_coloring(const Graph& g) {
  if (g.max_degree() > std::numeric_limits<std::uint16_t>::max())
    throw InputError("edge colouring: max degree " + std::to_string(g.max_degree()) + " needs more than 65536 colours");
  MisraGries mg(g);
  for (NodeId u = 0; u < g.num_nodes(); ++u)
    for (Slot s = g.first_slot(u); s < g.end_slot(u); ++s)
      if (g.target(s) > u) mg.colour_edge(u, s);  // each edge once, from its lower end
  return mg.result();
}

}  // namespace nnlb
