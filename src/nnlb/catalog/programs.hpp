#pragma once
// The node programs by name, beside the engines (engine/registry.hpp): what each one reads of a
// scenario's engine-specific keys. A key of a program's family ("async.", "app.", ...) set for a
// run whose program does not read it would be silently ignored, so the experiment layer refuses
// it, naming the programs that do read it.
#include <string>
#include <string_view>
#include <vector>

namespace nnlb {

struct ProgramEntry {
  std::string name;     // as `nnlb list` and the refusals name it
  std::string summary;
  // Keys it reads: a key name, or a family ending in '.' ("async.").
  std::vector<std::string> reads;

  bool reads_key(std::string_view key) const;
};

const std::vector<ProgramEntry>& programs();
const ProgramEntry* find_program(std::string_view name);
// Whether some program reads `key` (it then belongs to the programs, not to an engine alone).
bool program_key(std::string_view key);

}  // namespace nnlb
