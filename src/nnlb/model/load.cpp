#include "nnlb/model/load.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <fstream>
#include <numeric>

#include "nnlb/util/error.hpp"
#include "nnlb/util/input_file.hpp"
#include "nnlb/util/parse.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

LoadMode parse_load_mode(std::string_view text) {
  if (text == "real") return LoadMode::real;
  if (text == "integer") return LoadMode::integer;
  throw InputError({}, "load.mode", "must be 'real' or 'integer', got '" + std::string(text) + "'");
}

std::string_view to_string(LoadMode mode) { return mode == LoadMode::real ? "real" : "integer"; }

namespace {

void check_total(double total, const std::string& what) {
  if (!(total <= max_total_load)) {
    std::ostringstream text;
    text << what << ": the total load " << total << " exceeds " << max_total_load << " (the statistics square loads)";
    throw InputError({}, "load.init", text.str());
  }
}

void check_whole(double v, LoadMode mode, const std::string& what) {
  if (mode == LoadMode::integer && (v != std::floor(v) || std::abs(v) > 9.0e15))
    throw InputError({}, "load.init", what + ": integer mode needs whole numbers below 9e15, got " + std::to_string(v));
}

}  // namespace

std::vector<double> make_initial_load(std::string_view spec, NodeId nodes, LoadMode mode, std::uint64_t seed,
                                      const std::string& base_dir) {
  const auto colon = spec.find(':');
  const std::string name(spec.substr(0, colon));
  const std::string_view args = colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
  const std::string what = "'" + std::string(spec) + "'";
  auto params = [&](std::size_t count) {
    auto parts = split(args, ',');
    if (args.empty() || parts.size() != count)
      throw InputError({}, "load.init", what + ": expected " + std::to_string(count) + " comma-separated parameter(s)");
    return parts;
  };
  auto number = [&](std::string_view text) {
    try {
      return parse_double(text, what);
    } catch (const InputError& e) {
      throw e.located({}, "load.init");
    }
  };
  // A total may be given per node: "1000*N" is 1000 times the number of nodes (Couturier et al.
  // sec. 7 size their loads so: 1000 units per node on average).
  auto total_of = [&](std::string_view text) {
    const bool per_node = text.ends_with("*N");
    const double t = number(per_node ? text.substr(0, text.size() - 2) : text) * (per_node ? static_cast<double>(nodes) : 1.0);
    if (t < 0) throw InputError({}, "load.init", what + ": TOTAL must be >= 0");
    check_total(t, what);
    check_whole(t, mode, what);
    return t;
  };
  std::vector<double> w(nodes, 0.0);
  Rng rng(seed, 0x696e6974ULL);

  if (name == "uniform") {
    const auto p = params(2);
    const double lo = number(p[0]), hi = number(p[1]);
    if (!(lo <= hi) || lo < 0) throw InputError({}, "load.init", what + ": needs 0 <= LOW <= HIGH");
    for (auto& x : w) {
      if (mode == LoadMode::integer) {
        check_whole(lo, mode, what);
        check_whole(hi, mode, what);
        x = lo + static_cast<double>(rng.below(static_cast<std::uint64_t>(hi - lo) + 1));
      } else {
        x = rng.uniform(lo, hi);
      }
    }
  } else if (name == "single") {
    const auto p = params(2);
    const auto node = parse_uint(p[0], what);
    if (node >= nodes) throw InputError({}, "load.init", what + ": node " + std::to_string(node) + " is outside 0.." + std::to_string(nodes - 1));
    w[node] = total_of(p[1]);
  } else if (name == "random-total" || name == "stairs") {
    // TOTAL shared by random weights, or by a descending staircase: node i's share is
    // proportional to N - i (on a grid, row-major: rows of decreasing load).
    const double total = total_of(params(1)[0]);
    std::vector<double> weight(nodes);
    for (NodeId i = 0; i < nodes; ++i) weight[i] = name == "stairs" ? static_cast<double>(nodes - i) : rng.uniform();
    const double sum = std::accumulate(weight.begin(), weight.end(), 0.0);
    if (mode == LoadMode::real) {
      for (NodeId i = 0; i < nodes; ++i) w[i] = total * weight[i] / sum;
    } else {
      // Largest-remainder rounding keeps the total exact.
      std::vector<std::pair<double, NodeId>> remainder(nodes);
      double given = 0;
      for (NodeId i = 0; i < nodes; ++i) {
        const double share = total * weight[i] / sum;
        w[i] = std::floor(share);
        given += w[i];
        remainder[i] = {share - w[i], i};
      }
      std::sort(remainder.begin(), remainder.end(), [](auto& a, auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
      for (std::size_t k = 0; given < total; ++k, given += 1) w[remainder[k % nodes].second] += 1;
    }
  } else if (name == "file") {
    if (args.empty()) throw InputError({}, "load.init", what + ": expected file:PATH");
    std::filesystem::path path(args);
    if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
    std::ifstream in = open_input(path, "load file");
    std::string line;
    NodeId count = 0;
    for (std::size_t line_no = 1; std::getline(in, line); ++line_no) {
      const auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#') continue;
      const auto last = line.find_last_not_of(" \t\r");
      const std::string where = path.string() + ":" + std::to_string(line_no);
      if (count >= nodes) throw InputError(where, {}, "more values than the " + std::to_string(nodes) + " nodes of the topology");
      double v = 0;
      try {
        v = parse_double(std::string_view(line).substr(first, last - first + 1), "load value");
        if (v < 0) throw InputError("load value must be >= 0");
        check_whole(v, mode, "load value");
      } catch (const InputError& e) {
        throw InputError(where, {}, e.what());
      }
      w[count++] = v;
    }
    if (count != nodes) throw InputError(path.string(), {}, "has " + std::to_string(count) + " values, the topology has " + std::to_string(nodes) + " nodes");
  } else if (!name.empty() && colon == std::string_view::npos) {
    const double v = number(name);
    if (v < 0) throw InputError({}, "load.init", what + ": must be >= 0");
    check_whole(v, mode, what);
    std::fill(w.begin(), w.end(), v);
  } else {
    throw InputError({}, "load.init", "unknown initial load " + what + " (uniform:LOW,HIGH, single:NODE,TOTAL, random-total:TOTAL, stairs:TOTAL, file:PATH or a number; TOTAL may be X*N, X per node)");
  }
  check_total(std::accumulate(w.begin(), w.end(), 0.0), what);
  return w;
}

}  // namespace nnlb
