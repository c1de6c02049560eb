#include "nnlb/util/memory.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sys/resource.h>
#include <unistd.h>

#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

std::optional<double> user_limit;

// A cgroup v2 memory.max of this process, if any.
std::optional<double> cgroup_limit() {
  std::ifstream cgroup("/proc/self/cgroup");
  std::string line;
  if (!std::getline(cgroup, line) || !line.starts_with("0::")) return {};
  std::ifstream max("/sys/fs/cgroup" + line.substr(3) + "/memory.max");
  double bytes = 0;
  if (max >> bytes && bytes > 0) return bytes;
  return {};  // "max" or unreadable
}

}  // namespace

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : std::uint64_t{1} << 34;
}

std::string memory_text(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t u = 0;
  for (; bytes >= 1024 && u + 1 < std::size(units); ++u) bytes /= 1024;
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

MemoryLimit memory_limit() {
  if (user_limit) return {*user_limit, "--max-memory " + memory_text(*user_limit)};
  const double physical = static_cast<double>(physical_memory_bytes());
  MemoryLimit limit{physical / 2, "half of this machine's " + memory_text(physical) + "; --max-memory sets another limit"};
  rlimit r{};
  if (::getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY && static_cast<double>(r.rlim_cur) < limit.bytes)
    limit = {static_cast<double>(r.rlim_cur), "this process's address-space limit (ulimit -v)"};
  if (const auto cg = cgroup_limit(); cg && *cg < limit.bytes) limit = {*cg, "this process's cgroup limit (memory.max)"};
  return limit;
}

void set_memory_limit(std::uint64_t bytes) { user_limit = static_cast<double>(bytes); }

std::uint64_t parse_memory_size(std::string_view text, const std::string& source) {
  const auto bad = [&] { return InputError(source, {}, "expected a size such as 512M, 2G or 1.5GiB, got '" + std::string(text) + "'"); };
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  if (end == 0) throw bad();
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(std::string(text.substr(0, end)), &used);
    if (used != end) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  std::string unit(text.substr(end));
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const char* suffix : {"IB", "B"})
    if (unit.size() > 1 && unit.ends_with(suffix)) unit.resize(unit.size() - std::string_view(suffix).size());
  const std::string_view prefixes = "KMGTP";
  double scale = 1;
  if (!unit.empty() && unit != "B") {
    const auto p = prefixes.find(unit);
    if (unit.size() != 1 || p == std::string_view::npos) throw bad();
    scale = std::pow(1024.0, static_cast<double>(p + 1));
  }
  const double bytes = value * scale;
  if (!(bytes >= 1) || bytes > 1e18) throw bad();
  return static_cast<std::uint64_t>(bytes);
}

void MemoryEstimate::add(std::string what, std::string key, std::string advice, double bytes) {
  parts.push_back({std::move(what), std::move(key), std::move(advice), bytes});
}

double MemoryEstimate::total() const {
  double sum = 0;
  for (const auto& p : parts) sum += p.bytes;
  return sum;
}

void check_memory(const MemoryEstimate& estimate, const std::string& source, unsigned copies) {
  const MemoryLimit limit = memory_limit();
  const double one = estimate.total();
  if (one * copies <= limit.bytes || estimate.parts.empty()) return;
  std::string parts;
  for (const auto& p : estimate.parts)
    if (p.bytes >= one / 100) parts += (parts.empty() ? "" : ", ") + p.what + " " + memory_text(p.bytes);
  const auto largest = std::max_element(estimate.parts.begin(), estimate.parts.end(),
                                        [](const MemoryPart& a, const MemoryPart& b) { return a.bytes < b.bytes; });
  std::string text = "needs about " + memory_text(one) + " of memory (" + parts + ")";
  std::string advice = largest->advice;
  if (copies > 1) {
    text += " per run, " + memory_text(one * copies) + " for " + std::to_string(copies) + " runs side by side";
    if (one <= limit.bytes) advice = "use --threads " + std::to_string(static_cast<unsigned>(limit.bytes / one));
  }
  text += ", more than the " + memory_text(limit.bytes) + " allowed (" + limit.origin + "); " + advice;
  throw MemoryEstimateError(source, largest->key, text);
}

}  // namespace nnlb
