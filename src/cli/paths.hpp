#pragma once
// Where nnlb finds the shipped studies (scenarios/). In this order, the first folder that exists:
//   1. $NNLB_SCENARIOS, when set (an error if it is not a folder);
//   2. the installed copy beside the executable: BINDIR/../share/nnlb/scenarios (/proc/self/exe);
//   3. the source tree this executable was built from (an nnlb run from its build folder).
// The current folder is not searched: a local scenarios/ folder never hides nnlb's studies.
#include <filesystem>
#include <string>
#include <vector>

namespace nnlb::cli {

struct ScenarioPlace {
  std::filesystem::path dir;
  std::string origin;  // "$NNLB_SCENARIOS", "installed", "source tree"
};

// The candidates above, in search order.
std::vector<ScenarioPlace> scenario_places();

// The first candidate that is a folder; InputError naming every place looked at if none is.
ScenarioPlace scenarios_place();
std::filesystem::path scenarios_dir();

// Where the SimGrid engine's plugin may be (engine/plugin.hpp), in search order: installed beside
// the executable (LIBDIR/nnlb), then the build this executable comes from.
std::vector<std::string> simgrid_plugin_places();

// "A ($NNLB_SCENARIOS), B (installed), C (source tree)"
std::string places_text(const std::vector<ScenarioPlace>& places);

}  // namespace nnlb::cli
