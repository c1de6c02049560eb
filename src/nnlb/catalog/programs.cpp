#include "nnlb/catalog/programs.hpp"

#include <algorithm>

namespace nnlb {

namespace {

bool matches(const std::string& pattern, std::string_view key) {
  return pattern.ends_with('.') ? key.starts_with(pattern) : key == pattern;
}

}  // namespace

bool ProgramEntry::reads_key(std::string_view key) const {
  return std::any_of(reads.begin(), reads.end(), [&](const std::string& p) { return matches(p, key); });
}

const std::vector<ProgramEntry>& programs() {
  static const std::vector<ProgramEntry> all = {
      {"async", "Couturier et al.'s asynchronous balancer: a balancing and a computing process per node (agent = \"async\")",
       {"async.", "message."}},
      {"rounds", "Xu et al.'s synchronous steps as messages, in rounds (agent = \"rounds\")", {"message."}},
      {"iterative", "Jeannot & Vernier's iterative application, balancing with M_r (agent = \"iterative\")",
       {"app.", "workload.", "message."}},
      {"jobs", "Douglas & Harwood's job strategies over a guest graph (algorithm = en, dasud, pm, ...)",
       {"guest.", "async.lb_period", "message.control_bytes"}},
      {"tasks", "Filipovic & Krstajic's task programs (algorithm = dd, ms, ca)", {"tasks."}},
  };
  return all;
}

const ProgramEntry* find_program(std::string_view name) {
  for (const ProgramEntry& p : programs())
    if (p.name == name) return &p;
  return nullptr;
}

bool program_key(std::string_view key) {
  return std::any_of(programs().begin(), programs().end(), [&](const ProgramEntry& p) { return p.reads_key(key); });
}

}  // namespace nnlb
