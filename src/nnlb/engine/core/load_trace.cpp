#include "nnlb/engine/core/load_trace.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_set>

#include "nnlb/model/load.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/input_file.hpp"
#include "nnlb/util/parse.hpp"

namespace nnlb {

namespace {

// A trace is held in memory for the replay (about 40 bytes per line): larger ones are refused
// before reading.
constexpr std::uintmax_t max_trace_bytes = std::uintmax_t{512} << 20;
constexpr NodeId max_trace_ranks = NodeId{1} << 20;

class TraceReader {
 public:
  explicit TraceReader(const std::string& path) : path_(path) {}

  LoadTrace read() {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path_, ec);
    if (!ec && size > max_trace_bytes)
      throw InputError(path_, {}, "load trace of " + std::to_string(size >> 20) + " MiB: the replay holds it in memory, at most " +
                                      std::to_string(max_trace_bytes >> 20) + " MiB (record a shorter run)");
    std::ifstream in = open_input(path_, "load trace");
    std::string text;
    while (std::getline(in, text)) {
      ++line_;
      const auto first = text.find_first_not_of(" \t\r");
      if (first == std::string::npos || text[first] == '#') continue;
      std::istringstream fields(text);
      std::vector<std::string> f;
      for (std::string w; fields >> w;) f.push_back(w);
      if (line_ == 1 || !versioned_) {
        if (f.size() != 2 || f[0] != "nnlb-trace" || f[1] != "1") fail("expected 'nnlb-trace 1' first (not an nnlb load trace)");
        versioned_ = true;
        continue;
      }
      line(f);
    }
    if (!versioned_) fail("empty: expected 'nnlb-trace 1'");
    if (t_.ranks == 0) fail("no 'ranks' line");
    if (unknown_line_ != 0 && !live_.contains(unknown_)) {
      line_ = unknown_line_;
      fail("item " + std::to_string(unknown_) + " is never added");
    }
    for (NodeId r = 0; r < t_.ranks; ++r) flush(r);
    std::stable_sort(t_.actions.begin(), t_.actions.end(), [](const TraceAction& a, const TraceAction& b) { return a.time < b.time; });
    return std::move(t_);
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw InputError(path_ + ":" + std::to_string(line_), {}, problem); }

  void arity(const std::vector<std::string>& f, std::size_t n, const char* form) const {
    if (f.size() != n) fail(std::string("expected '") + form + "'");
  }

  template <class F>
  auto parsed(F&& parse) const {
    try {
      return parse();
    } catch (const InputError& e) {
      fail(e.what());
    }
  }

  NodeId rank(const std::string& text) const {
    if (t_.ranks == 0) fail("'ranks R' must come before the first rank");
    const std::uint64_t r = parsed([&] { return parse_uint(text, "rank"); });
    if (r >= t_.ranks) fail("rank " + text + " out of range (the trace has " + std::to_string(t_.ranks) + " ranks)");
    return static_cast<NodeId>(r);
  }

  double number(const std::string& text, const char* what) const {
    const double v = parsed([&] { return parse_double(text, what); });
    if (!std::isfinite(v) || v < 0) fail(std::string(what) + " must be finite and >= 0, got " + text);
    return v;
  }

  // The time of an event of rank r: not before that rank's previous event.
  double time(const std::string& text, NodeId r) {
    const double t = number(text, "time");
    if (t < last_[r]) {
      std::ostringstream was;
      was << last_[r];  // 6 significant digits: 1e+308, not 309 of them
      fail("time " + text + " goes back (rank " + std::to_string(r) + " was at " + was.str() + ")");
    }
    last_[r] = t;
    return t;
  }

  void line(const std::vector<std::string>& f) {
    const std::string& kind = f[0];
    if (kind == "ranks") {
      arity(f, 2, "ranks R");
      if (t_.ranks != 0) fail("a second 'ranks' line");
      const std::uint64_t r = parsed([&] { return parse_uint(f[1], "ranks"); });
      if (r == 0 || r > max_trace_ranks) fail("ranks must be in 1.." + std::to_string(max_trace_ranks));
      t_.ranks = static_cast<NodeId>(r);
      t_.initial.resize(r), t_.steps.resize(r), batch_.resize(r), last_.assign(r, 0.0);
    } else if (kind == "meta") {
      if (f.size() < 2) fail("expected 'meta KEY VALUE'");
      std::string value;
      for (std::size_t k = 2; k < f.size(); ++k) value += (k > 2 ? " " : "") + f[k];
      t_.meta[f[1]] = value;
    } else if (kind == "edge") {
      arity(f, 3, "edge A B");
      NodeId a = rank(f[1]), b = rank(f[2]);
      if (a == b) fail("an edge from rank " + f[1] + " to itself");
      if (a > b) std::swap(a, b);
      if (!edges_.insert({a, b}).second) fail("edge " + f[1] + " " + f[2] + " twice");
      t_.edges.push_back({a, b});
    } else if (kind == "add") {
      arity(f, 5, "add T RANK ID WEIGHT");
      const NodeId r = rank(f[2]);
      const double t = time(f[1], r);
      const Item it{item(f[3]), weight(f[4]), 0};
      if (!live_.insert(it.id).second) fail("item " + f[3] + " added twice");
      if (t == 0) {
        t_.initial[r].push_back(it);
      } else {
        t_.actions.push_back({TraceAction::Kind::add, t, r, {it}});
      }
    } else if (kind == "weight") {
      arity(f, 5, "weight T RANK ID WEIGHT");
      const NodeId r = rank(f[2]);
      const double t = time(f[1], r);
      const Item it{item(f[3]), weight(f[4]), 0};
      if (!live_.contains(it.id) && unknown_line_ == 0) unknown_line_ = line_, unknown_ = it.id;  // added by a later rank?
      batch_[r].push_back(it);
      batch_at_[r] = t;
    } else if (kind == "step") {
      arity(f, 4, "step T RANK LOAD");
      const NodeId r = rank(f[2]);
      const double t = time(f[1], r);
      flush(r);
      t_.actions.push_back({TraceAction::Kind::step, t, r, {}});
      t_.steps[r].push_back({t, number(f[3], "load")});
    } else if (kind == "end") {
      arity(f, 2, "end T");
      t_.end = number(f[1], "end");
    } else if (kind == "remove" || kind == "pin" || kind == "unpin") {
      fail("'" + kind + "': the replay models items that stay in the balancing (an iterative application's); items removed or pinned by the application cannot be replayed");
    } else {
      fail("unknown record '" + kind + "' (nnlb-trace, ranks, meta, edge, add, weight, step, end)");
    }
  }

  ItemId item(const std::string& text) const { return parsed([&] { return parse_uint(text, "item"); }); }

  // An item's weight; the weights of every add and weight record summed stay within the largest
  // total load, so that no total the replay forms (of any items at any moment), nor its square in
  // the statistics, overflows (one weight of 9e307 made the imbalance inf).
  double weight(const std::string& text) {
    const double w = number(text, "weight");
    t_.heaviest = std::max(t_.heaviest, w);
    weights_ += w;
    if (!(weights_ <= max_total_load)) {
      std::ostringstream most;
      most << max_total_load;
      fail("weight " + text + ": the trace's weights add up beyond " + most.str() + " (the statistics square loads)");
    }
    return w;
  }

  // Rank r's weight changes since its last step, as one action.
  void flush(NodeId r) {
    if (batch_[r].empty()) return;
    t_.actions.push_back({TraceAction::Kind::weights, batch_at_[r], r, std::move(batch_[r])});
    batch_[r].clear();
  }

  std::string path_;
  std::size_t line_ = 0, unknown_line_ = 0;
  double weights_ = 0;  // every weight read
  ItemId unknown_ = 0;  // the first item a weight names before its add
  bool versioned_ = false;
  LoadTrace t_;
  std::set<std::pair<NodeId, NodeId>> edges_;
  std::unordered_set<ItemId> live_;
  std::vector<std::vector<Item>> batch_;
  std::map<NodeId, double> batch_at_;
  std::vector<double> last_;
};

}  // namespace

LoadTrace read_load_trace(const std::string& path) { return TraceReader(path).read(); }

void lock_steps(LoadTrace& trace) {
  std::vector<double> at;  // the k-th step's time: the last rank's
  for (const auto& steps : trace.steps)
    for (std::size_t k = 0; k < steps.size(); ++k) {
      if (k == at.size()) at.push_back(0);
      at[k] = std::max(at[k], steps[k].time);
    }
  std::vector<std::size_t> next(trace.ranks, 0);
  for (TraceAction& a : trace.actions)
    if (a.kind == TraceAction::Kind::step) a.time = at[next[a.rank]++];
  // At one time: weight changes and items first, then the steps in rank order.
  auto order = [](const TraceAction& a) {
    const bool step = a.kind == TraceAction::Kind::step;
    return std::tuple(a.time, step, step ? a.rank : 0);
  };
  std::stable_sort(trace.actions.begin(), trace.actions.end(), [&](const TraceAction& a, const TraceAction& b) { return order(a) < order(b); });
}

}  // namespace nnlb
