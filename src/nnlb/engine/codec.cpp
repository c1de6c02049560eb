#include "nnlb/engine/codec.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace nnlb {

namespace {

class Writer {
 public:
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void put(const T& x) {
    bytes_.append(reinterpret_cast<const char*>(&x), sizeof x);
  }
  void put(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes_ += s;
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put<std::uint64_t>(v.size());
    for (const T& x : v) put(x);
  }
  template <class T>
  void put(const std::optional<T>& o) {
    put<bool>(o.has_value());
    if (o) put(*o);
  }
  template <class V>
  void put(const std::map<std::string, V>& m) {
    put<std::uint64_t>(m.size());
    for (const auto& [k, v] : m) put(k), put(v);
  }
  void put(const WorkMetrics& w) { put(w.completed), put(w.last_completion), put(w.busy); }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  template <class T>
    requires std::is_trivially_copyable_v<T>
  void get(T& x) {
    std::memcpy(&x, next(sizeof x), sizeof x);
  }
  void get(std::string& s) {
    const std::size_t n = count();
    s.assign(next(n), n);
  }
  template <class T>
  void get(std::vector<T>& v) {
    v.resize(count());
    for (T& x : v) get(x);
  }
  template <class T>
  void get(std::optional<T>& o) {
    bool has = false;
    get(has);
    o.reset();
    if (has) get(o.emplace());
  }
  template <class V>
  void get(std::map<std::string, V>& m) {
    for (std::size_t n = count(); n-- > 0;) {
      std::string k;
      get(k);
      get(m[k]);
    }
  }
  void get(WorkMetrics& w) { get(w.completed), get(w.last_completion), get(w.busy); }
  void end() const {
    if (at_ != bytes_.size()) throw std::runtime_error("a run's result runs on past its end");
  }

 private:
  std::size_t count() {
    std::uint64_t n = 0;
    get(n);
    if (n > bytes_.size()) throw std::runtime_error("a run's result ends early");
    return static_cast<std::size_t>(n);
  }
  const char* next(std::size_t n) {
    if (bytes_.size() - at_ < n) throw std::runtime_error("a run's result ends early");
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  std::string_view bytes_;
  std::size_t at_ = 0;
};

// Every field of a result, in one order for both directions.
template <class Codec, class Result>
void fields(Codec& c, Result& r) {
  auto& s = r.summary;
  c(r.reported, r.series, r.columns, r.final_load, r.load_history.steps, r.load_history.loads, r.engine_info);
  c(s.stop_reason, s.balanced, s.steps_to_balance, s.rounds, s.steps, s.initial_imbalance, s.final_imbalance, s.final_stddev,
    s.final_spread, s.load_moved, s.initial_total, s.final_total, s.max_conservation_error);
  c(s.timing, s.detected_at, s.finished_at, s.nodes_with_load, s.work, s.notes);
}

}  // namespace

std::string encode(const RunResult& r) {
  static_assert(std::is_trivially_copyable_v<StepRecord> && std::is_trivially_copyable_v<TimeMetrics>);
  Writer w;
  auto put = [&w](const auto&... x) { (w.put(x), ...); };
  fields(put, r);
  return w.take();
}

RunResult decode_result(std::string_view bytes) {
  RunResult r;
  Reader in(bytes);
  auto get = [&in](auto&... x) { (in.get(x), ...); };
  fields(get, r);
  in.end();
  return r;
}

std::string encode(const Platform& p) {
  Writer w;
  w.put(p.speed), w.put(p.latency), w.put(p.bandwidth), w.put(p.hosts_file), w.put(p.hosts);
  return w.take();
}

Platform decode_platform(std::string_view bytes) {
  Platform p;
  Reader in(bytes);
  in.get(p.speed), in.get(p.latency), in.get(p.bandwidth), in.get(p.hosts_file), in.get(p.hosts);
  in.end();
  return p;
}

}  // namespace nnlb
