#include "nnlb/model/platform.hpp"

#include <filesystem>
#include <fstream>

#include "nnlb/model/load.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/input_file.hpp"
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

namespace nnlb {

namespace {

constexpr double megabit = 1e6 / 8;  // bytes/s per Mb/s

// Per-slot link vectors (expanded from one value when needed).
void per_slot_links(const Graph& g, Platform& p) {
  if (p.latency.size() == 1) p.latency.assign(g.num_slots(), p.latency[0]);
  if (p.bandwidth.size() == 1) p.bandwidth.assign(g.num_slots(), p.bandwidth[0]);
}

void per_node_speeds(const Graph& g, Platform& p) {
  if (p.speed.size() == 1) p.speed.assign(g.num_nodes(), p.speed[0]);
}

// A node set of a platform file: `*`, or comma-separated ids and ranges I-J.
struct NodeSet {
  bool all = false;
  std::vector<std::pair<NodeId, NodeId>> ranges;  // inclusive
  bool contains(NodeId i) const {
    if (all) return true;
    for (const auto& [a, b] : ranges)
      if (i >= a && i <= b) return true;
    return false;
  }
};

NodeSet parse_node_set(std::string_view text, NodeId nodes) {
  NodeSet set;
  if (text == "*") {
    set.all = true;
    return set;
  }
  for (std::string_view part : split(text, ',')) {
    const auto dash = part.find('-');
    const std::uint64_t a = parse_uint(part.substr(0, dash), "node id");
    const std::uint64_t b = dash == std::string_view::npos ? a : parse_uint(part.substr(dash + 1), "node id");
    if (a > b) throw InputError("node range " + std::string(part) + " is empty");
    if (b >= nodes)
      throw InputError("node " + std::to_string(b) + " is not in the topology (" + std::to_string(nodes) + " nodes, 0 to " +
                       std::to_string(nodes - 1) + ")");
    set.ranges.emplace_back(static_cast<NodeId>(a), static_cast<NodeId>(b));
  }
  return set;
}

double positive(std::string_view text, const char* what) {
  const double v = parse_double(text, what);
  if (!(v > 0)) throw InputError(std::string(what) + " must be > 0, got " + std::string(text));
  return v;
}

double non_negative(std::string_view text, const char* what) {
  const double v = parse_double(text, what);
  if (!(v >= 0)) throw InputError(std::string(what) + " must be >= 0, got " + std::string(text));
  return v;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t k = 0;
  while (k < line.size()) {
    while (k < line.size() && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r')) ++k;
    const std::size_t start = k;
    while (k < line.size() && line[k] != ' ' && line[k] != '\t' && line[k] != '\r') ++k;
    if (k > start) out.push_back(line.substr(start, k - start));
  }
  return out;
}

}  // namespace

const std::vector<std::string>& platform_presets() {
  static const std::vector<std::string> names = {"lan", "dsl", "two-cluster"};
  return names;
}

Platform preset_platform(std::string_view name, const Graph& g) {
  Platform p;
  p.speed = {1e9};
  if (name == "lan" || name == "dsl") {
    p.latency = {name == "lan" ? 1.5e-4 : 0.04};
    p.bandwidth = {name == "lan" ? 100 * megabit : 1 * megabit};
    return p;
  }
  if (name != "two-cluster") {
    std::string known;
    for (const auto& n : platform_presets()) known += (known.empty() ? "" : ", ") + n;
    throw InputError({}, "platform.preset", "unknown platform '" + std::string(name) + "' (" + known + ")");
  }
  const NodeId n = g.num_nodes(), half = n / 2;
  p.speed.resize(n);
  for (NodeId i = 0; i < n; ++i) p.speed[i] = i < half ? 3e9 : 2e9;
  p.latency.resize(g.num_slots());
  p.bandwidth.assign(g.num_slots(), 1000 * megabit);
  for (NodeId i = 0; i < n; ++i)
    for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) p.latency[s] = (i < half) == (g.target(s) < half) ? 1.5e-4 : 0.015;
  return p;
}

void apply_platform_file(const std::string& path, const Graph& g, Platform& p) {
  std::ifstream in = open_input(path, "platform file");
  const NodeId n = g.num_nodes();
  std::string line;
  for (std::size_t line_no = 1; std::getline(in, line); ++line_no) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const auto w = words(line);
    if (w.empty()) continue;
    try {
      if (w[0] == "speed") {
        if (w.size() != 2 && w.size() != 3) throw InputError("expected 'speed FLOPS' or 'speed NODES FLOPS' (NODES: *, I, I-J or a comma list)");
        const NodeSet set = w.size() == 2 ? NodeSet{true, {}} : parse_node_set(w[1], n);
        const double c = positive(w.back(), "speed");
        per_node_speeds(g, p);
        for (NodeId i = 0; i < n; ++i)
          if (set.contains(i)) p.speed[i] = c;
      } else if (w[0] == "link") {
        if (w.size() != 3 && w.size() != 5) throw InputError("expected 'link LATENCY BANDWIDTH' or 'link NODES NODES LATENCY BANDWIDTH'");
        const bool every = w.size() == 3;
        const NodeSet from = every ? NodeSet{true, {}} : parse_node_set(w[1], n);
        const NodeSet to = every ? NodeSet{true, {}} : parse_node_set(w[2], n);
        const double latency = non_negative(w[w.size() - 2], "latency");
        const double bandwidth = positive(w[w.size() - 1], "bandwidth");
        per_slot_links(g, p);
        std::uint64_t matched = 0;
        for (NodeId i = 0; i < n; ++i)
          for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
            const NodeId j = g.target(s);
            if ((from.contains(i) && to.contains(j)) || (from.contains(j) && to.contains(i))) {
              p.latency[s] = latency, p.bandwidth[s] = bandwidth;
              ++matched;
            }
          }
        if (matched == 0 && !every)
          throw InputError("no link of the topology joins " + std::string(w[1]) + " and " + std::string(w[2]));
      } else {
        throw InputError("unknown line '" + std::string(w[0]) + "' (speed or link)");
      }
    } catch (const InputError& e) {
      throw InputError(path + ":" + std::to_string(line_no), {}, e.what());
    }
  }
}

}  // namespace nnlb
