#include "nnlb/experiment/programs.hpp"

#include <algorithm>
#include <stdexcept>

namespace nnlb {

void register_builtin_programs(std::vector<ProgramEntry>& registry);  // builtin_programs.cpp

namespace {

std::vector<ProgramEntry>& registry() {
  static std::vector<ProgramEntry> entries = [] {
    std::vector<ProgramEntry> e;
    register_builtin_programs(e);
    return e;
  }();
  return entries;
}

bool matches(const std::string& pattern, std::string_view key) {
  return pattern.ends_with('.') ? key.starts_with(pattern) : key == pattern;
}

}  // namespace

bool ProgramEntry::reads_key(std::string_view key) const {
  const auto match = [&](const std::string& p) { return matches(p, key); };
  return std::any_of(reads.begin(), reads.end(), match) && std::none_of(except.begin(), except.end(), match);
}

bool ProgramEntry::ignores_key(std::string_view key) const {
  return std::any_of(ignores.begin(), ignores.end(), [&](const std::string& p) { return matches(p, key); });
}

bool ProgramEntry::uses_key(std::string_view key) const {
  return std::any_of(uses.begin(), uses.end(), [&](const std::string& p) { return matches(p, key); });
}

void register_program(ProgramEntry entry) {
  auto& r = registry();
  if (find_program(entry.name) != nullptr) throw std::logic_error("program '" + entry.name + "' is registered twice");
  r.push_back(std::move(entry));
}

const std::vector<ProgramEntry>& programs() { return registry(); }

const ProgramEntry* find_program(std::string_view name) {
  for (const ProgramEntry& p : registry())
    if (p.name == name) return &p;
  return nullptr;
}

bool program_key(std::string_view key) {
  return std::any_of(registry().begin(), registry().end(), [&](const ProgramEntry& p) { return p.reads_key(key) || p.uses_key(key); });
}

bool engine_runs(const EngineEntry& e, const ProgramEntry& p) {
  if (e.runs_programs) return (e.provides & p.needs) == p.needs && (!p.needs_seconds || e.time != TimeModel::rounds);
  if (e.default_program == p.name) return true;
  const EngineEntry* on = e.programs_on.empty() ? nullptr : find_engine(e.programs_on);
  return on != nullptr && p.application && engine_runs(*on, p);  // an application runs in lock-step rounds there
}

std::string engines_running(const ProgramEntry& p) {
  std::string names;
  for (const EngineEntry& e : engines())
    if (engine_runs(e, p)) names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

}  // namespace nnlb
