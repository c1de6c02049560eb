#include "nnlb/model/background.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nnlb/util/error.hpp"
#include "nnlb/util/input_file.hpp"
#include "nnlb/util/parse.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

namespace {
const char* key = "tasks.background";
}

Background Background::parse(std::string_view spec, NodeId nodes, std::uint64_t seed, const std::string& base_dir) {
  Background b;
  if (spec == "none") return b;
  if (spec.starts_with("random:")) {
    const auto p = split(spec.substr(7), ',');
    if (p.size() != 3) throw InputError({}, key, "expected random:LO,HI,PERIOD");
    b.lo_ = parse_double(p[0], key), b.hi_ = parse_double(p[1], key), b.period_ = parse_double(p[2], key);
    if (!(b.lo_ > 0 && b.lo_ <= b.hi_ && b.hi_ <= 1)) throw InputError({}, key, "random:LO,HI,PERIOD needs 0 < LO <= HI <= 1");
    if (!(b.period_ > 0)) throw InputError({}, key, "random:LO,HI,PERIOD needs PERIOD > 0");
    b.kind_ = Kind::random;
    b.seed_ = seed;
    return b;
  }
  if (!spec.starts_with("file:")) throw InputError({}, key, "'" + std::string(spec) + "' is not none, random:LO,HI,PERIOD or file:PATH");
  std::filesystem::path path(spec.substr(5));
  if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
  std::ifstream in = open_input(path, "background file");
  b.kind_ = Kind::file;
  b.changes_.assign(nodes, {{0.0, 1.0}});
  std::string line;
  for (std::size_t line_no = 1; std::getline(in, line); ++line_no) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    const std::string where = path.string() + ":" + std::to_string(line_no);
    try {
      if (w.size() != 3) throw InputError("expected 'NODE TIME FRACTION'");
      const std::uint64_t node = parse_uint(w[0], "node");
      const double t = parse_double(w[1], "time"), f = parse_double(w[2], "fraction");
      if (node >= nodes) throw InputError("node " + w[0] + " is not in the run (" + std::to_string(nodes) + " cores)");
      if (!(t >= 0)) throw InputError("time must be >= 0");
      if (!(f > 0 && f <= 1)) throw InputError("fraction must be in (0, 1]");
      auto& c = b.changes_[node];
      if (t < c.back().time) throw InputError("times of a node must not decrease");
      if (t == c.back().time) c.back().fraction = f;
      else c.push_back({t, f});
    } catch (const InputError& e) {
      throw InputError(where, {}, e.what());
    }
  }
  return b;
}

double Background::random_fraction(NodeId i, std::uint64_t k) const {
  Rng rng(seed_, mix_seed(i, k));
  return rng.uniform(lo_, hi_);
}

double Background::fraction(NodeId i, double t) const {
  switch (kind_) {
    case Kind::none:
      return 1;
    case Kind::random:
      return random_fraction(i, static_cast<std::uint64_t>(t / period_));
    case Kind::file: {
      const auto& c = changes_[i];
      const auto it = std::upper_bound(c.begin(), c.end(), t, [](double x, const Change& ch) { return x < ch.time; });
      return std::prev(it)->fraction;
    }
  }
  return 1;
}

double Background::least_fraction(NodeId i) const {
  if (kind_ == Kind::random) return lo_;
  if (kind_ == Kind::none) return 1;
  double least = 1;
  for (const Change& c : changes_[i]) least = std::min(least, c.fraction);
  return least;
}

double Background::finish(NodeId i, double start, double seconds) const {
  if (kind_ == Kind::none) return start + seconds;
  double t = start, left = seconds;
  while (true) {
    double end = 0, f = 1;
    if (kind_ == Kind::random) {
      const auto k = static_cast<std::uint64_t>(t / period_);
      end = std::max(static_cast<double>(k + 1) * period_, t);
      f = random_fraction(i, k);
      if (end == t) end = t + period_;  // t sits on a boundary that rounding put before it
    } else {
      const auto& c = changes_[i];
      const auto it = std::upper_bound(c.begin(), c.end(), t, [](double x, const Change& ch) { return x < ch.time; });
      f = std::prev(it)->fraction;
      end = it == c.end() ? INFINITY : it->time;
    }
    const double can = (end - t) * f;
    if (can >= left) return t + left / f;
    left -= can;
    t = end;
  }
}

}  // namespace nnlb
