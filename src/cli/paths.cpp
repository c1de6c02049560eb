#include "paths.hpp"

#include <cstdlib>

#include "nnlb/util/error.hpp"

namespace nnlb::cli {

namespace fs = std::filesystem;

std::vector<ScenarioPlace> scenario_places() {
  if (const char* env = std::getenv("NNLB_SCENARIOS")) {
    if (!fs::is_directory(env)) throw InputError(std::string("NNLB_SCENARIOS=") + env, {}, "is not a folder of studies");
    return {{env, "$NNLB_SCENARIOS"}};
  }
  std::vector<ScenarioPlace> places;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) places.push_back({(exe.parent_path() / NNLB_INSTALLED_SCENARIOS).lexically_normal(), "installed"});
  places.push_back({fs::path(NNLB_SOURCE_DIR) / "scenarios", "source tree"});
  return places;
}

std::vector<std::string> simgrid_plugin_places() {
#ifdef NNLB_HAVE_SIMGRID
  std::vector<std::string> places;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) places.push_back((exe.parent_path() / NNLB_INSTALLED_SIMGRID_PLUGIN).lexically_normal().string());
  places.push_back(NNLB_BUILT_SIMGRID_PLUGIN);
  return places;
#else
  return {};
#endif
}

std::string places_text(const std::vector<ScenarioPlace>& places) {
  std::string text;
  for (const auto& p : places) text += (text.empty() ? "" : ", ") + p.dir.string() + " (" + p.origin + ")";
  return text;
}

ScenarioPlace scenarios_place() {
  const auto places = scenario_places();
  for (const auto& p : places)
    if (fs::is_directory(p.dir)) return p;
  throw InputError("reproduce", {}, "no folder of studies found; looked in " + places_text(places) + "; set NNLB_SCENARIOS");
}

fs::path scenarios_dir() { return scenarios_place().dir; }

}  // namespace nnlb::cli
