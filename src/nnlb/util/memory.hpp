#pragma once
// Memory a run may take, and estimates checked against it before anything large is allocated.
// The limit is --max-memory when given, else half of the machine's physical memory, or less
// when the process runs under a tighter limit (ulimit -v, a cgroup's memory.max).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nnlb/util/error.hpp"

namespace nnlb {

// A run refused by its memory estimate: an input error (one line, exit 2), of a kind of its own
// so that a caller can tell it from a bad key (the Python module raises MemoryError for it).
class MemoryEstimateError : public InputError {
 public:
  using InputError::InputError;
};

std::uint64_t physical_memory_bytes();

struct MemoryLimit {
  double bytes = 0;
  std::string origin;  // "--max-memory 2 GiB", "half of this machine's 23.4 GiB", ...
};

// The limit in force: the one set by set_memory_limit, else the machine's and the process's.
MemoryLimit memory_limit();
// --max-memory: replaces the default limit for this process.
void set_memory_limit(std::uint64_t bytes);

// "2G", "512M", "1.5GiB", "1000000" (bytes); K, M, G, T are powers of 1024. Throws InputError
// naming `source`.
std::uint64_t parse_memory_size(std::string_view text, const std::string& source);
// "1.5 GiB", "300 MiB", "12 KiB"
std::string memory_text(double bytes);

// An estimate by parts; each part names the key that controls it and what to do about it.
struct MemoryPart {
  std::string what;    // "graph"
  std::string key;     // "topology"
  std::string advice;  // "use a smaller topology"
  double bytes = 0;
};

struct MemoryEstimate {
  std::vector<MemoryPart> parts;
  void add(std::string what, std::string key, std::string advice, double bytes);
  double total() const;
};

// Throws MemoryEstimateError naming `source` and the key of the largest part when `copies` times the
// estimate exceeds the limit: "needs about 41 GiB (graph 40 GiB, engine 1 GiB), more than ...".
// `copies` > 1 for runs done side by side (a sweep's threads).
void check_memory(const MemoryEstimate& estimate, const std::string& source, unsigned copies = 1);

}  // namespace nnlb
