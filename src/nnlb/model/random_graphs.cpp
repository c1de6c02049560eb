#include "nnlb/model/random_graphs.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "nnlb/util/error.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

namespace {

using Edges = std::vector<std::pair<NodeId, NodeId>>;

// Draws per generator before giving up; draw k uses the stream Rng(seed, k).
constexpr std::uint64_t max_draws = 100;

template <class T>
void shuffle(std::vector<T>& items, Rng& rng) {  // Fisher-Yates
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng.below(i)]);
}

// Union-find over the edge list: cheaper than building a Graph for a draw that may be thrown away.
bool connected(NodeId n, const Edges& edges) {
  std::vector<NodeId> parent(n);
  std::iota(parent.begin(), parent.end(), NodeId{0});
  auto root = [&](NodeId x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];  // path halving
    return x;
  };
  NodeId components = n;
  for (const auto& [a, b] : edges) {
    const NodeId ra = root(a), rb = root(b);
    if (ra != rb) {
      parent[ra] = rb;
      --components;
    }
  }
  return components == 1;
}

// Simple d-regular graph, possibly disconnected, for 2d < n. Configuration model (Bollobás 1980):
// shuffle the n*d stubs (d per node) and pair consecutive ones; then remove self loops and
// multi-edges by random double-edge switches {a,b},{c,x} -> {a,c},{b,x} that create no new defect
// (the repair used e.g. by Viger & Latapy 2005). Returns false if the repair stalls.
bool configuration_model(NodeId n, std::uint32_t d, Rng& rng, Edges& edges) {
  const std::uint64_t stubs = static_cast<std::uint64_t>(n) * d;
  const std::uint64_t m = stubs / 2;
  std::vector<NodeId> end(stubs);  // edge e joins end[2e] and end[2e+1]
  for (std::uint64_t k = 0; k < stubs; ++k) end[k] = static_cast<NodeId>(k / d);
  shuffle(end, rng);

  // adj[x*d .. x*d+d) lists the other end of each of x's edges (x itself, twice, for a loop).
  std::vector<NodeId> adj(stubs);
  std::vector<std::uint32_t> filled(n, 0);
  auto row = [&](NodeId x) { return adj.begin() + static_cast<std::ptrdiff_t>(static_cast<std::uint64_t>(x) * d); };
  auto multiplicity = [&](NodeId x, NodeId y) { return std::count(row(x), row(x) + d, y); };
  auto replace = [&](NodeId x, NodeId from, NodeId to) { *std::find(row(x), row(x) + d, from) = to; };
  auto defective = [&](std::uint64_t e) {
    const NodeId a = end[2 * e], b = end[2 * e + 1];
    return a == b || multiplicity(a, b) > 1;
  };
  std::vector<std::uint64_t> suspects;  // loops, and every repeat of an edge already present
  for (std::uint64_t e = 0; e < m; ++e) {
    const NodeId a = end[2 * e], b = end[2 * e + 1];
    if (a == b || std::find(row(a), row(a) + filled[a], b) != row(a) + filled[a]) suspects.push_back(e);
    row(a)[filled[a]++] = b;
    row(b)[filled[b]++] = a;
  }

  // Switches never create defects, but one may cure a later suspect: check again before each.
  std::uint64_t budget = 100 * m + 1000;  // switch attempts; a valid switch is found with constant probability
  for (std::uint64_t e : suspects) {
    while (defective(e)) {
      if (budget-- == 0) return false;
      const std::uint64_t f = rng.below(m);
      if (f == e) continue;
      const NodeId a = end[2 * e], b = end[2 * e + 1];
      const bool flip = rng.below(2) == 1;
      const NodeId c = end[2 * f + (flip ? 1 : 0)], x = end[2 * f + (flip ? 0 : 1)];
      // New edges {a,c} and {b,x} must be neither loops, nor present, nor equal to each other.
      if (a == c || b == x || (a == b && c == x) || multiplicity(a, c) > 0 || multiplicity(b, x) > 0) continue;
      replace(a, b, c);
      replace(b, a, x);
      replace(c, x, a);
      replace(x, c, b);
      end[2 * e + 1] = c;
      end[2 * f] = b;
      end[2 * f + 1] = x;
    }
  }
  edges.clear();
  edges.reserve(m);
  for (std::uint64_t e = 0; e < m; ++e) edges.emplace_back(end[2 * e], end[2 * e + 1]);
  return true;
}

// The only connected 2-regular graphs are Hamiltonian cycles: visit the nodes in random order.
Edges random_cycle(NodeId n, Rng& rng) {
  std::vector<NodeId> order(n);
  std::iota(order.begin(), order.end(), NodeId{0});
  shuffle(order, rng);
  Edges edges;
  edges.reserve(n);
  for (NodeId i = 0; i < n; ++i) edges.emplace_back(order[i], order[(i + 1) % n]);
  return edges;
}

Edges complement(NodeId n, const Edges& edges) {
  std::vector<char> present(static_cast<std::size_t>(n) * n, 0);
  for (const auto& [a, b] : edges) present[static_cast<std::size_t>(a) * n + b] = present[static_cast<std::size_t>(b) * n + a] = 1;
  Edges out;
  for (NodeId a = 0; a < n; ++a)
    for (NodeId b = a + 1; b < n; ++b)
      if (!present[static_cast<std::size_t>(a) * n + b]) out.emplace_back(a, b);
  return out;
}

// G(n, p) by geometric skipping over the pairs (v, w), w < v, in lexicographic order
// (Batagelj & Brandes 2005, algorithm 1): O(n + m) instead of O(n^2).
Edges gnp(NodeId n, double p, Rng& rng) {
  Edges edges;
  const double log_q = std::log1p(-p);
  const double pairs = static_cast<double>(n) * n;
  std::uint64_t v = 1, w = 0;  // (v, w) is the next candidate pair
  while (v < n) {
    const double skip = p >= 1.0 ? 0.0 : std::floor(std::log1p(-rng.uniform()) / log_q);
    if (skip >= pairs) break;  // beyond the last pair (also guards the conversion below)
    w += static_cast<std::uint64_t>(skip);
    while (w >= v && v < n) {
      w -= v;
      ++v;
    }
    if (v < n) edges.emplace_back(static_cast<NodeId>(v), static_cast<NodeId>(w++));
  }
  return edges;
}

}  // namespace

Graph make_random_regular(NodeId n, std::uint32_t d, std::uint64_t seed) {
  const std::string what = "random-regular:" + std::to_string(n) + "," + std::to_string(d);
  if (d < 1 || d >= n || (static_cast<std::uint64_t>(n) * d) % 2 != 0) throw InputError(what + ": needs 1 <= D < N and N*D even");
  if (d == 1 && n > 2) throw InputError(what + ": a 1-regular graph is a perfect matching, connected only for N = 2");
  for (std::uint64_t draw = 0; draw < max_draws; ++draw) {
    Rng rng(seed, draw);
    Edges edges;
    if (2 * static_cast<std::uint64_t>(d) >= n) {
      // Dense: complement of a sparse (n-1-d)-regular graph. Connected, since with d >= n/2 any two
      // non-adjacent nodes share a neighbour.
      if (!configuration_model(n, n - 1 - d, rng, edges)) continue;
      edges = complement(n, edges);
    } else if (d == 2) {
      edges = random_cycle(n, rng);
    } else if (!configuration_model(n, d, rng, edges) || !connected(n, edges)) {
      continue;  // d >= 3: connected with high probability, so few redraws
    }
    return Graph::from_edges(n, std::move(edges));
  }
  throw InputError(what + ": no connected simple graph in " + std::to_string(max_draws) + " draws");
}

Graph make_erdos_renyi(NodeId n, double p, std::uint64_t seed) {
  char p_text[32];
  const auto p_end = std::to_chars(p_text, p_text + sizeof p_text, p, std::chars_format::general).ptr;  // as fmt's "{}" for p <= 1
  const std::string what = "erdos-renyi:" + std::to_string(n) + "," + std::string(p_text, p_end);
  if (n < 1 || !(p > 0.0 && p <= 1.0)) throw InputError(what + ": needs N >= 1 and P in (0, 1]");
  for (std::uint64_t draw = 0; draw < max_draws; ++draw) {
    Rng rng(seed, draw);
    Edges edges = gnp(n, p, rng);
    if (connected(n, edges)) return Graph::from_edges(n, std::move(edges));
  }
  throw InputError(what + ": no connected graph in " + std::to_string(max_draws) +
                   " draws; raise P (connectivity threshold ~ ln(N)/N)");
}

Graph make_random_geometric(NodeId n, double r, std::uint64_t seed) {
  const std::string what = "geometric:" + std::to_string(n);
  if (n < 1 || !(r > 0.0)) throw InputError(what + ": needs N >= 1 and R > 0");
  // Cells of side >= r, about one point each at most: a point's neighbours are in its cell and
  // the 8 around it.
  const auto cells = static_cast<std::uint32_t>(std::clamp(std::floor(1.0 / r), 1.0, std::floor(std::sqrt(static_cast<double>(n))) + 1));
  for (std::uint64_t draw = 0; draw < max_draws; ++draw) {
    Rng rng(seed, draw);
    std::vector<double> x(n), y(n);
    std::vector<std::vector<NodeId>> cell(static_cast<std::size_t>(cells) * cells);
    auto index = [&](double v) { return std::min<std::uint32_t>(cells - 1, static_cast<std::uint32_t>(v * cells)); };
    for (NodeId i = 0; i < n; ++i) {
      x[i] = rng.uniform(), y[i] = rng.uniform();
      cell[static_cast<std::size_t>(index(y[i])) * cells + index(x[i])].push_back(i);
    }
    Edges edges;
    for (NodeId i = 0; i < n; ++i) {
      const std::uint32_t cx = index(x[i]), cy = index(y[i]);
      for (std::uint32_t gy = cy ? cy - 1 : 0; gy <= std::min(cells - 1, cy + 1); ++gy)
        for (std::uint32_t gx = cx ? cx - 1 : 0; gx <= std::min(cells - 1, cx + 1); ++gx)
          for (NodeId j : cell[static_cast<std::size_t>(gy) * cells + gx])
            if (j > i && (x[i] - x[j]) * (x[i] - x[j]) + (y[i] - y[j]) * (y[i] - y[j]) <= r * r) edges.emplace_back(i, j);
    }
    if (connected(n, edges)) return Graph::from_edges(n, std::move(edges));
  }
  throw InputError(what + ": no connected graph in " + std::to_string(max_draws) + " draws; raise R (connectivity needs R ~ sqrt(ln(N) / (pi N)))");
}

Graph make_p2p(NodeId n, std::uint64_t seed) {
  if (n < 1) throw InputError("p2p:0: needs at least 1 node");
  Rng rng(seed);
  Edges edges;
  std::vector<NodeId> picked;
  for (NodeId t = 1; t < n; ++t) {
    const auto k = std::min<NodeId>(t, std::max<NodeId>(1, static_cast<NodeId>(std::bit_width(t)) - 1));  // max(1, floor(log2 t)), at most t
    // k distinct nodes of 0..t-1 with exactly k draws: Floyd's sampling (Bentley & Floyd 1987).
    picked.clear();
    for (NodeId j = t - k; j < t; ++j) {
      const auto r = static_cast<NodeId>(rng.below(static_cast<std::uint64_t>(j) + 1));
      picked.push_back(std::find(picked.begin(), picked.end(), r) == picked.end() ? r : j);
    }
    for (NodeId x : picked) edges.emplace_back(x, t);
  }
  return Graph::from_edges(n, std::move(edges));
}

}  // namespace nnlb
