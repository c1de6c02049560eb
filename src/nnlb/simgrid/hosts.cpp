#include "nnlb/simgrid/hosts.hpp"

#include <string>

#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

namespace nnlb {

namespace sg4 = simgrid::s4u;

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
      h.latency.push_back(p.link_latency(s));
      h.bandwidth.push_back(p.link_bandwidth(s));
    }
  zone->seal();
  return h;
}

}  // namespace nnlb
