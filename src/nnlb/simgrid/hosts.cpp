#include "nnlb/simgrid/hosts.hpp"

#include <string>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

namespace nnlb {

namespace sg4 = simgrid::s4u;

namespace {

Hosts logical_platform(const EngineRun& run) {
  const Graph& g = run.topology.graph;
  const Platform& p = run.platform;
  sg4::NetZone* zone = sg4::create_full_zone("logical");
  Hosts h;
  for (NodeId i = 0; i < g.num_nodes(); ++i) h.of_node.push_back(zone->create_host("node-" + std::to_string(i), p.node_speed(i))->seal());
  for (NodeId i = 0; i < g.num_nodes(); ++i)
    for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
      const sg4::Link* link =
          zone->create_link("link-" + std::to_string(s), p.link_bandwidth(s) * units_per_byte)->set_latency(p.link_latency(s))->seal();
      zone->add_route(h.of_node[i]->get_netpoint(), h.of_node[g.target(s)]->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(link)},
                      false);
    }
  zone->seal();
  return h;
}

// The file was read and checked before the run (platform_file.cpp); its bandwidths are scaled to
// SimGrid's units here.
Hosts file_platform(const EngineRun& run) {
  sg4::Engine& e = *sg4::Engine::get_instance();
  e.load_platform(run.platform.hosts_file);
  for (sg4::Link* link : e.get_all_links()) link->set_bandwidth(link->get_bandwidth() * units_per_byte);
  Hosts h;
  for (const std::string& name : run.platform.hosts) h.of_node.push_back(e.host_by_name(name));
  return h;
}

}  // namespace

Hosts hosts_of(const EngineRun& run) {
  Hosts h = run.platform.hosts_file.empty() ? logical_platform(run) : file_platform(run);
  const Graph& g = run.topology.graph;
  for (Slot s = 0; s < g.num_slots(); ++s) {
    h.latency.push_back(run.platform.link_latency(s));
    h.bandwidth.push_back(run.platform.link_bandwidth(s));
  }
  return h;
}

}  // namespace nnlb
