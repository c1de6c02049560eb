#include "nnlb/engine/registry.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace nnlb {

void register_builtin_engines(std::vector<EngineEntry>& registry);  // builtin_engines.cpp

namespace {

std::vector<EngineEntry>& registry() {
  static std::vector<EngineEntry> entries = [] {
    std::vector<EngineEntry> e;
    register_builtin_engines(e);
    return e;
  }();
  return entries;
}

bool names(std::string_view entry, std::string_view key) {
  return entry.ends_with('.') ? key.starts_with(entry) : key == entry;
}

}  // namespace

bool EngineEntry::honours_key(std::string_view key) const {
  const auto match = [&](const std::string& e) { return names(e, key); };
  return std::any_of(honours.begin(), honours.end(), match) && std::none_of(except.begin(), except.end(), match);
}

bool EngineEntry::ignores_key(std::string_view key) const {
  return std::any_of(ignores.begin(), ignores.end(), [&](const std::string& e) { return names(e, key); });
}

void register_engine(EngineEntry entry) {
  auto& r = registry();
  const auto same = std::find_if(r.begin(), r.end(), [&](const EngineEntry& e) { return e.name == entry.name; });
  if (same != r.end()) throw std::logic_error("engine '" + entry.name + "' is registered twice");
  r.push_back(std::move(entry));
}

void attach_runner(std::string_view name, std::function<RunResult(const EngineRun&)> run) {
  for (EngineEntry& e : registry())
    if (e.name == name) {
      e.run = std::move(run);
      return;
    }
  throw std::logic_error("no engine '" + std::string(name) + "' to attach a runner to");
}

namespace {

struct PlatformFormat {
  PlatformReader read;
  PlatformHosts hosts;
};

std::map<std::string, PlatformFormat, std::less<>>& readers() {
  static std::map<std::string, PlatformFormat, std::less<>> r;
  return r;
}

}  // namespace

void attach_platform_reader(std::string_view name, PlatformReader read, PlatformHosts hosts) {
  if (find_engine(name) == nullptr) throw std::logic_error("no engine '" + std::string(name) + "' to attach a platform reader to");
  readers()[std::string(name)] = {std::move(read), std::move(hosts)};
}

const PlatformReader* platform_reader(std::string_view name) {
  const auto it = readers().find(name);
  return it == readers().end() ? nullptr : &it->second.read;
}

const PlatformHosts* platform_hosts(std::string_view name) {
  const auto it = readers().find(name);
  return it == readers().end() || !it->second.hosts ? nullptr : &it->second.hosts;
}

const EngineEntry* find_engine(std::string_view name) {
  for (const EngineEntry& e : registry())
    if (e.name == name) return &e;
  return nullptr;
}

const std::vector<EngineEntry>& engines() { return registry(); }

bool engine_specific(std::string_view key) {
  for (const EngineEntry& e : registry())
    for (const std::string& h : e.honours)
      if (names(h, key)) return true;
  return false;
}

}  // namespace nnlb
