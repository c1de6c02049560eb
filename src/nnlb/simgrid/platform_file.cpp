#include "nnlb/simgrid/platform_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "nnlb/simgrid/configured_engine.hpp"
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
    std::string path;
    try {
      path = read_value_lines(f.mapping.substr(5), f.base_dir, "mapping file", [&](std::string_view name, const std::string& where) {
        if (!known.contains(std::string(name))) throw InputError(where, "simgrid.mapping", "host '" + std::string(name) + "' is not in " + f.path);
        if (!used.insert(std::string(name)).second) throw InputError(where, "simgrid.mapping", "host '" + std::string(name) + "' named twice");
        chosen.emplace_back(name);
      });
    } catch (const InputError& e) {
      throw e.located({}, "simgrid.mapping");  // a missing file, a folder, a device: the mapping's fault, not the platform's
    }
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

// Values SimGrid loads but cannot simulate (it aborts, or runs on a negative time): every host
// needs a finite speed > 0, every link a finite bandwidth > 0 and a finite latency >= 0, as the
// keys platform.speed, platform.bandwidth and platform.latency do.
void check_resources(const sg4::Engine& e, const std::string& path) {
  auto refuse = [&](const std::string& what, const std::string& name, const char* field, double value, const char* need) {
    std::ostringstream text;
    text << path << ": " << what << " '" << name << "' has " << field << " " << value << " (" << need << ")";
    throw InputError({}, "platform.file", text.str());
  };
  for (const sg4::Host* h : e.get_all_hosts())
    if (const double speed = h->get_speed(); !(speed > 0) || !std::isfinite(speed))
      refuse("host", h->get_name(), "speed", speed, "a host needs a finite speed > 0 flop/s");
  for (const sg4::Link* l : e.get_all_links()) {
    if (const double bw = l->get_bandwidth(); !(bw > 0) || !std::isfinite(bw))
      refuse("link", l->get_name(), "bandwidth", bw, "a link needs a finite bandwidth > 0 bytes/s");
    if (const double lat = l->get_latency(); !(lat >= 0) || !std::isfinite(lat))
      refuse("link", l->get_name(), "latency", lat, "a link needs a finite latency >= 0 s");
  }
}

// What SimGrid does not survive in a file's structure, found before it reads the file: an
// <include> of a file already being included (a cycle), and zones nested deeper than
// max_zone_depth (SimGrid's parser recurses on both until the stack runs out).
constexpr int max_zone_depth = 256;

// The value of attribute `name` in the element text `element`, or empty.
std::string_view attribute(std::string_view element, std::string_view name) {
  for (std::size_t at = element.find(name); at != std::string_view::npos; at = element.find(name, at + 1)) {
    const std::size_t q = at + name.size();
    if ((at > 0 && !std::isspace(static_cast<unsigned char>(element[at - 1]))) || q + 1 >= element.size() || element[q] != '=') continue;
    const std::size_t close = element.find(element[q + 1], q + 2);
    return close == std::string_view::npos ? std::string_view{} : element.substr(q + 2, close - q - 2);
  }
  return {};
}

// The hosts a radical names: "0-15,20" is 17 (a malformed part counts none; SimGrid names it).
double radical_hosts(std::string_view radical) {
  double hosts = 0;
  for (std::size_t start = 0; start <= radical.size();) {
    const std::size_t comma = std::min(radical.find(',', start), radical.size());
    const std::string_view part = radical.substr(start, comma - start);
    const std::size_t dash = part.find('-');
    long long first = 0, last = 0;
    const bool read = std::from_chars(part.data(), part.data() + std::min(dash, part.size()), first).ec == std::errc{};
    if (read && dash == std::string_view::npos) hosts += 1;
    else if (read && std::from_chars(part.data() + dash + 1, part.data() + part.size(), last).ec == std::errc{} && last >= first)
      hosts += static_cast<double>(last - first) + 1;
    start = comma + 1;
  }
  return hosts;
}

// Checks the structure of `path` and the files it includes; returns the hosts they declare.
double check_structure(const std::filesystem::path& path, std::vector<std::filesystem::path>& including, const std::string& top) {
  std::ifstream in = open_input(path, "platform file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  including.push_back(std::filesystem::weakly_canonical(path));
  int depth = 0;
  double hosts = 0;
  const auto named = [](std::string_view tag, std::string_view name) {
    return tag.starts_with(name) && (tag.size() == name.size() || std::isspace(static_cast<unsigned char>(tag[name.size()])));
  };
  for (std::size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at + 1)) {
    const std::string_view tag = std::string_view(text).substr(at + 1, 8);
    if (named(tag, "host")) {
      ++hosts;
    } else if (named(tag, "cluster") || named(tag, "cabinet")) {
      const std::size_t end = std::min(text.find('>', at), text.size());
      hosts += radical_hosts(attribute(std::string_view(text).substr(at, end - at), "radical"));
    } else if (tag.starts_with("zone") && (tag.size() < 5 || std::isspace(static_cast<unsigned char>(tag[4])) || tag[4] == '>')) {
      const std::size_t end = text.find('>', at);
      if (end != std::string::npos && text[end - 1] != '/' && ++depth > max_zone_depth)
        throw InputError({}, "platform.file", top + ": zones nested deeper than " + std::to_string(max_zone_depth) + " (in " + path.string() + ")");
    } else if (tag.starts_with("/zone")) {
      --depth;
    } else if (tag.starts_with("include")) {
      const std::size_t q = text.find("file=", at), end = text.find('>', at);
      if (q == std::string::npos || q > end || q + 6 > text.size()) continue;
      const char quote = text[q + 5];
      const std::size_t close = text.find(quote, q + 6);
      if (close == std::string::npos) continue;
      std::filesystem::path file = text.substr(q + 6, close - q - 6);
      if (file.is_relative()) file = path.parent_path() / file;
      const auto canonical = std::filesystem::weakly_canonical(file);
      if (std::find(including.begin(), including.end(), canonical) != including.end())
        throw InputError({}, "platform.file", top + ": " + path.string() + " includes " + file.string() + ", which is already being included (a cycle)");
      hosts += check_structure(file, including, top);
    }
  }
  including.pop_back();
  return hosts;
}

}  // namespace

Platform read_simgrid_platform_here(const PlatformFile& f, const Graph& g) {
  ConfiguredEngine engine;
  sg4::Engine& e = engine.get();
  try {
    e.load_platform(f.path);
  } catch (const simgrid::Exception& err) {
    throw InputError({}, "platform.file", f.path + ": not a SimGrid platform: " + err.what());
  } catch (const std::exception& err) {  // its parser's other errors: "Link not found: X", "stoi"
    throw InputError({}, "platform.file", f.path + ": SimGrid cannot read it: " + err.what());
  }
  check_resources(e, f.path);
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
      try {
        host[i]->route_to(host[g.target(s)], links, &latency);
      } catch (const std::exception& err) {  // a zone without that route (Floyd, Full)
        links.clear();
      }
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

double simgrid_platform_hosts(const std::string& path) {
  try {
    std::vector<std::filesystem::path> including;
    return check_structure(path, including, path);
  } catch (const std::exception&) {
    return 0;
  }
}

void check_simgrid_platform(const std::string& path) {
  std::vector<std::filesystem::path> including;
  check_structure(path, including, path);
}

}  // namespace nnlb
