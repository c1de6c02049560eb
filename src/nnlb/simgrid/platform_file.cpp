#include "nnlb/simgrid/platform_file.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "nnlb/simgrid/codec.hpp"
#include "nnlb/simgrid/configured_engine.hpp"
#include "nnlb/simgrid/own_process.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/input_file.hpp"
#include "nnlb/util/line_file.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

namespace sg4 = simgrid::s4u;

namespace {

// Names in "natural" order: runs of digits compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      const std::size_t i0 = i, j0 = j;
      while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i]))) ++i;
      while (j < b.size() && std::isdigit(static_cast<unsigned char>(b[j]))) ++j;
      const std::string x = a.substr(i0, i - i0), y = b.substr(j0, j - j0);
      const std::string_view xs = std::string_view(x).substr(std::min(x.find_first_not_of('0'), x.size()));
      const std::string_view ys = std::string_view(y).substr(std::min(y.find_first_not_of('0'), y.size()));
      if (xs.size() != ys.size()) return xs.size() < ys.size();
      if (xs != ys) return xs < ys;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

// The host of each of `n` nodes.
std::vector<std::string> map_nodes(const PlatformFile& f, std::vector<std::string> hosts, NodeId n) {
  if (f.mapping.starts_with("file:")) {
    const std::set<std::string> known(hosts.begin(), hosts.end());
    std::vector<std::string> chosen;
    std::set<std::string> used;
    const std::string path = read_value_lines(f.mapping.substr(5), f.base_dir, "mapping file", [&](std::string_view name, const std::string& where) {
      if (!known.contains(std::string(name))) throw InputError(where, "simgrid.mapping", "host '" + std::string(name) + "' is not in " + f.path);
      if (!used.insert(std::string(name)).second) throw InputError(where, "simgrid.mapping", "host '" + std::string(name) + "' named twice");
      chosen.emplace_back(name);
    });
    if (chosen.size() != n)
      throw InputError(path, "simgrid.mapping", "names " + std::to_string(chosen.size()) + " hosts for the " + std::to_string(n) + " nodes of the topology");
    return chosen;
  }
  if (hosts.size() < n)
    throw InputError({}, "platform.file", f.path + " has " + std::to_string(hosts.size()) + " hosts, fewer than the " + std::to_string(n) +
                                            " nodes of the topology");
  if (f.mapping == "random") {
    Rng rng(f.seed, 0);
    for (std::size_t k = hosts.size(); k > 1; --k) std::swap(hosts[k - 1], hosts[rng.below(k)]);
  } else if (f.mapping != "order") {
    throw InputError({}, "simgrid.mapping", "'" + f.mapping + "' is not order, random or file:PATH");
  }
  hosts.resize(n);
  return hosts;
}

// In the child: the file loaded, the nodes mapped, their speeds and routes.
Platform read_here(const PlatformFile& f, const Graph& g) {
  ConfiguredEngine engine;
  sg4::Engine& e = engine.get();
  try {
    e.load_platform(f.path);
  } catch (const simgrid::Exception& err) {
    throw InputError({}, "platform.file", f.path + ": not a SimGrid platform: " + err.what());
  }
  std::vector<std::string> names;
  for (const sg4::Host* h : e.get_all_hosts()) names.push_back(h->get_name());
  std::sort(names.begin(), names.end(), natural_less);
  Platform p;
  p.hosts_file = f.path;
  p.hosts = map_nodes(f, std::move(names), g.num_nodes());
  std::vector<const sg4::Host*> host;
  for (const std::string& name : p.hosts) host.push_back(e.host_by_name(name)), p.speed.push_back(host.back()->get_speed());
  for (NodeId i = 0; i < g.num_nodes(); ++i)
    for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
      std::vector<sg4::Link*> links;
      double latency = 0;
      host[i]->route_to(host[g.target(s)], links, &latency);
      if (links.empty())
        throw InputError({}, "platform.file", f.path + " has no route from " + p.hosts[i] + " to " + p.hosts[g.target(s)] + " (nodes " +
                                                   std::to_string(i) + " and " + std::to_string(g.target(s)) + ")");
      double narrowest = links.front()->get_bandwidth();
      for (const sg4::Link* l : links) narrowest = std::min(narrowest, l->get_bandwidth());
      p.latency.push_back(latency);
      p.bandwidth.push_back(narrowest);
    }
  return p;
}

}  // namespace

Platform read_simgrid_platform(const PlatformFile& f, const Graph& g) {
  open_input(f.path, "platform file");  // missing, a folder, a device: one line before SimGrid sees it
  try {
    return decode_platform(in_own_process([&] { return encode(read_here(f, g)); }, true));
  } catch (const ProcessDied& e) {
    // SimGrid 3.32 dies on a route its zones do not have (a Full zone without that route).
    throw InputError({}, "platform.file", f.path + ": SimGrid failed on it, as it does on a missing route between the hosts of two "
                                                   "neighbouring nodes (" + e.what() + ")");
  }
}

}  // namespace nnlb
