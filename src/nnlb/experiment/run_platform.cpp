#include "nnlb/experiment/run_platform.hpp"

#include <filesystem>
#include <string>

#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/scenario_checks.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

// A SimGrid XML platform (engine = "simgrid", docs/simgrid.md): the nodes' hosts, speeds and
// routes come from the file, read by the engine's platform reader.
Platform simgrid_platform(const Scenario& s, const Graph& g, std::uint64_t seed, const std::string& path) {
  const EngineEntry* engine = find_engine(s.text("engine"));
  std::string readers;
  for (const EngineEntry& e : engines())
    if (e.platform_format == "xml") readers += (readers.empty() ? "" : ", ") + e.name;
  require(engine != nullptr && engine->platform_format == "xml", s, "platform.file",
          "a SimGrid platform (.xml) is read by engine = " + readers);
  for (const char* key : {"platform.preset", "platform.speed", "platform.latency", "platform.bandwidth"})
    require(s.is_default(key), s, key, "is given by the SimGrid platform.file");
  const PlatformReader* read = platform_reader(engine->name);
  if (read == nullptr) throw InputError(s.source(), "engine", engine->unavailable);
  return located(s, "platform.file", [&] { return (*read)({path, s.text("simgrid.mapping"), seed, s.base_dir()}, g); });
}

}  // namespace

// Where the nodes run: speeds and links from the platform.* keys, or a preset of Jeannot &
// Vernier's networks, then a platform file's lines on top; or a SimGrid XML platform.
std::filesystem::path platform_file_path(const Scenario& s) {
  std::filesystem::path file(s.is_set("platform.file") ? s.text("platform.file") : "");
  if (!file.empty() && file.is_relative() && !s.base_dir().empty()) file = std::filesystem::path(s.base_dir()) / file;
  return file;
}

Platform make_platform(const Scenario& s, const Graph& g, std::uint64_t seed) {
  const std::filesystem::path file = platform_file_path(s);
  const bool xml = file.extension() == ".xml";
  require(xml || s.is_default("simgrid.mapping"), s, "simgrid.mapping", "applies only with a SimGrid platform.file (.xml)");
  if (xml) return simgrid_platform(s, g, seed, file.string());
  const std::string preset = s.text("platform.preset");
  Platform p;
  if (preset == "none") {
    p.latency = {s.number("platform.latency")};
    p.bandwidth = {s.number("platform.bandwidth")};
    require(p.latency[0] >= 0, s, "platform.latency", "must be >= 0");
    require(p.bandwidth[0] > 0, s, "platform.bandwidth", "must be > 0");
  } else {
    p = located(s, "platform.preset", [&] { return preset_platform(preset, g); });
    for (const char* key : {"platform.latency", "platform.bandwidth"})
      require(s.is_default(key), s, key, "is given by platform.preset = \"" + preset + "\": change the links in a platform.file instead");
  }
  if (preset != "two-cluster")
    p.speed = located(s, "platform.speed", [&] { return make_speeds(s.text("platform.speed"), g.num_nodes(), seed, s.base_dir()); });
  else
    require(s.is_default("platform.speed"), s, "platform.speed", "is given by platform.preset = \"two-cluster\"");
  if (s.is_set("platform.file")) located(s, "platform.file", [&] { apply_platform_file(file.string(), g, p); });
  return p;
}

}  // namespace nnlb
