// Graphs, topology generators, graph files and edge colourings.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/model/graph_io.hpp"
#include "nnlb/model/random_graphs.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/util/error.hpp"
#include "support.hpp"

namespace nnlb {
namespace {

const std::string data_dir = NNLB_TEST_DATA;

using test::input_error;
using test::write_temp;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::pair<NodeId, NodeId>> edge_list(const Graph& g) {
  std::vector<std::pair<NodeId, NodeId>> edges;
  for (NodeId i = 0; i < g.num_nodes(); ++i)
    for (NodeId j : g.neighbors(i))
      if (i < j) edges.emplace_back(i, j);
  return edges;
}

struct Shape {
  NodeId nodes;
  std::uint64_t edges;
  std::uint32_t min_degree, max_degree;
  bool bipartite;
};

// Bipartite, checked without Graph::is_bipartite: in a connected graph, the ends of every edge
// are at hop distances of different parity from node 0 exactly when there is no odd cycle.
bool two_colourable(const Graph& g) {
  const auto dist = g.distances_from(0);
  for (NodeId i = 0; i < g.num_nodes(); ++i)
    for (NodeId j : g.neighbors(i))
      if (dist[i] % 2 == dist[j] % 2) return false;
  return true;
}

void expect_shape(const std::string& spec, const Shape& want) {
  SCOPED_TRACE(spec);
  const Graph g = make_topology(spec, 1).graph;
  EXPECT_EQ(g.num_nodes(), want.nodes);
  EXPECT_EQ(g.num_edges(), want.edges);
  EXPECT_EQ(g.min_degree(), want.min_degree);
  EXPECT_EQ(g.max_degree(), want.max_degree);
  EXPECT_TRUE(g.is_connected());
  EXPECT_EQ(g.is_bipartite(), want.bipartite);
}

// ---- Graph ----------------------------------------------------------------------------------

TEST(GraphTest, FromEdgesRejectsSelfLoopsAndDuplicates) {
  EXPECT_TRUE(contains(input_error([] { Graph::from_edges(3, {{0, 1}, {1, 1}}); }), "self loop"));
  EXPECT_TRUE(contains(input_error([] { Graph::from_edges(3, {{0, 1}, {1, 0}}); }), "duplicate edge"));
  EXPECT_TRUE(contains(input_error([] { Graph::from_edges(3, {{0, 3}}); }), "outside"));
}

TEST(GraphTest, ReverseSlotsAreTwins) {
  const Graph g = make_topology("p2p:200", 3).graph;
  for (NodeId i = 0; i < g.num_nodes(); ++i) {
    for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
      EXPECT_EQ(g.reverse(g.reverse(s)), s);
      EXPECT_EQ(g.target(g.reverse(s)), i);
      EXPECT_EQ(g.reverse(s), g.first_slot(g.target(s)) + g.peer_port(s));
      EXPECT_LT(g.peer_port(s), g.degree(g.target(s)));
    }
  }
}

// ---- Deterministic topologies ---------------------------------------------------------------

TEST(TopologyTest, LineAndRing) {
  expect_shape("line:5", {5, 4, 1, 2, true});
  expect_shape("line:2", {2, 1, 1, 1, true});
  expect_shape("ring:6", {6, 6, 2, 2, true});
  expect_shape("ring:7", {7, 7, 2, 2, false});
  expect_shape("ring:2", {2, 1, 1, 1, true});  // k = 2: the wrap edge would duplicate
}

TEST(TopologyTest, MeshAndTorus) {
  expect_shape("mesh:3x4", {12, 17, 2, 4, true});
  expect_shape("mesh:2x3x4", {24, 46, 3, 5, true});  // the k = 2 dimension adds one edge per node
  expect_shape("torus:4x6", {24, 48, 4, 4, true});
  expect_shape("torus:3x5", {15, 30, 4, 4, false});  // odd sides: odd cycles
  expect_shape("torus:4x5", {20, 40, 4, 4, false});
  expect_shape("torus:2x5", {10, 15, 3, 3, false});  // k = 2 dimension contributes one edge per node
  expect_shape("torus:2x2", {4, 4, 2, 2, true});

  const Topology t = make_topology("torus:3x5", 0);
  EXPECT_EQ(t.kind, TopologyKind::torus);
  ASSERT_TRUE(t.is_grid());
  EXPECT_EQ(t.shape().dims, (std::vector<std::uint32_t>{3, 5}));
  EXPECT_TRUE(t.shape().periodic);
  EXPECT_EQ(t.spec, "torus:3x5");
  // Row-major: the last dimension varies fastest.
  const auto& nb = t.graph.neighbors(0);
  EXPECT_EQ(std::set<NodeId>(nb.begin(), nb.end()), (std::set<NodeId>{1, 4, 5, 10}));
}

TEST(TopologyTest, HypercubeAndKary) {
  expect_shape("hypercube:1", {2, 1, 1, 1, true});
  expect_shape("hypercube:4", {16, 32, 4, 4, true});
  expect_shape("kary:3,3", {27, 81, 6, 6, false});
  expect_shape("kary:4,2", {16, 32, 4, 4, true});
  expect_shape("kary:2,3", {8, 12, 3, 3, true});  // the 3-cube

  const Graph cube = make_topology("hypercube:5", 0).graph;
  for (NodeId i = 0; i < cube.num_nodes(); ++i)
    for (NodeId j : cube.neighbors(i)) EXPECT_EQ(std::popcount(i ^ j), 1);
}

TEST(TopologyTest, CompleteAndStar) {
  expect_shape("complete:6", {6, 15, 5, 5, false});
  expect_shape("complete:2", {2, 1, 1, 1, true});
  expect_shape("star:9", {9, 8, 1, 8, true});
  EXPECT_EQ(make_topology("star:9", 0).graph.degree(0), 8u);
  EXPECT_FALSE(make_topology("star:9", 0).is_grid());
}

// ---- Random topologies ----------------------------------------------------------------------

TEST(TopologyTest, RandomRegular) {
  for (auto [n, d] : std::vector<std::pair<NodeId, std::uint32_t>>{
           {1000, 4}, {1001, 6}, {20, 3}, {8, 3}, {100, 2}, {5, 2}, {2, 1}, {4, 2}, {6, 3}, {10, 6}, {7, 6}, {12, 11}}) {
    const std::string spec = "random-regular:" + std::to_string(n) + "," + std::to_string(d);
    expect_shape(spec, {n, std::uint64_t{n} * d / 2, d, d, two_colourable(make_topology(spec, 1).graph)});
  }
  const Graph big = make_random_regular(100000, 4, 9);
  EXPECT_EQ(big.num_edges(), 200000u);
  EXPECT_EQ(big.min_degree(), 4u);
  EXPECT_EQ(big.max_degree(), 4u);
  EXPECT_TRUE(big.is_connected());
}

TEST(TopologyTest, RandomRegularRefusesImpossibleDegrees) {
  EXPECT_TRUE(contains(input_error([] { make_random_regular(10, 1, 0); }), "perfect matching"));
  EXPECT_TRUE(contains(input_error([] { make_random_regular(5, 3, 0); }), "N*D even"));
  EXPECT_TRUE(contains(input_error([] { make_random_regular(4, 4, 0); }), "D < N"));
}

TEST(TopologyTest, ErdosRenyi) {
  const Graph g = make_topology("erdos-renyi:400,0.05", 2).graph;
  EXPECT_EQ(g.num_nodes(), 400u);
  EXPECT_TRUE(g.is_connected());
  // Mean 0.05 * 400 * 399 / 2 = 3990 edges, standard deviation ~62.
  EXPECT_NEAR(static_cast<double>(g.num_edges()), 3990.0, 400.0);

  expect_shape("erdos-renyi:30,1", {30, 435, 29, 29, false});  // P = 1: complete
  expect_shape("erdos-renyi:1,0.5", {1, 0, 0, 0, true});

  const Graph sparse = make_erdos_renyi(100000, 2e-4, 5);  // mean degree 20, above ln(N) ~ 11.5
  EXPECT_TRUE(sparse.is_connected());
  EXPECT_NEAR(static_cast<double>(sparse.num_edges()), 2e-4 * 100000.0 * 99999.0 / 2.0, 5000.0);

  const auto error = input_error([] { make_topology("erdos-renyi:1000,0.001", 0); });
  EXPECT_TRUE(contains(error, "100 draws")) << error;
  EXPECT_TRUE(contains(error, "raise P")) << error;
}

TEST(TopologyTest, P2p) {
  for (NodeId n : {2u, 3u, 17u, 1000u}) {
    const Graph g = make_topology("p2p:" + std::to_string(n), 4).graph;
    std::uint64_t edges = 0;
    for (NodeId t = 1; t < n; ++t) edges += std::min<NodeId>(t, std::max<NodeId>(1, static_cast<NodeId>(std::bit_width(t)) - 1));
    EXPECT_EQ(g.num_nodes(), n);
    EXPECT_EQ(g.num_edges(), edges);
    EXPECT_TRUE(g.is_connected());
    EXPECT_GE(g.min_degree(), 1u);
    // The last node to join has edges only to earlier nodes, floor(log2(n-1)) of them.
    if (n > 2) {
      EXPECT_EQ(g.degree(n - 1), static_cast<std::uint32_t>(std::bit_width(n - 1)) - 1);
    }
  }
}

TEST(TopologyTest, RandomGeneratorsAreDeterministicPerSeed) {
  for (const char* spec : {"random-regular:300,4", "random-regular:40,30", "erdos-renyi:200,0.05", "p2p:300"}) {
    SCOPED_TRACE(spec);
    const auto a = edge_list(make_topology(spec, 11).graph);
    EXPECT_EQ(a, edge_list(make_topology(spec, 11).graph));
    EXPECT_NE(a, edge_list(make_topology(spec, 12).graph));
  }
}

// ---- Graph files ----------------------------------------------------------------------------

TEST(GraphIoTest, EdgeListMergesBothDirections) {
  const Graph g = read_graph_file(data_dir + "/diamond.edges");
  EXPECT_EQ(g.num_nodes(), 4u);
  EXPECT_EQ(g.num_edges(), 5u);
  EXPECT_EQ(g.degree(0), 3u);
  EXPECT_EQ(g.degree(1), 2u);
  EXPECT_EQ(edge_list(read_edge_list(data_dir + "/diamond.edges")), edge_list(g));

  const Topology t = make_topology("file:diamond.edges", 0, data_dir);
  EXPECT_EQ(t.kind, TopologyKind::file);
  EXPECT_EQ(t.graph.num_edges(), 5u);
  EXPECT_FALSE(t.is_grid());
}

TEST(GraphIoTest, MetisPetersen) {
  const Topology t = make_topology("file:" + data_dir + "/petersen.graph", 0);
  EXPECT_EQ(t.graph.num_nodes(), 10u);
  EXPECT_EQ(t.graph.num_edges(), 15u);
  EXPECT_EQ(t.graph.min_degree(), 3u);
  EXPECT_EQ(t.graph.max_degree(), 3u);
  EXPECT_FALSE(t.graph.is_bipartite());
  // METIS is 1-based: "1: 2 5 6" becomes 0 -- 1, 4, 5.
  const auto nb = t.graph.neighbors(0);
  EXPECT_EQ(std::vector<NodeId>(nb.begin(), nb.end()), (std::vector<NodeId>{1, 4, 5}));
  EXPECT_EQ(edge_list(read_metis(data_dir + "/petersen.graph")), edge_list(t.graph));
}

TEST(GraphIoTest, DetectsFormatFromContent) {
  // A METIS file under a neutral name is recognised by its header and line structure ...
  std::ifstream in(data_dir + "/petersen.graph");
  const std::string petersen((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(read_graph_file(write_temp("petersen.txt", petersen)).num_edges(), 15u);
  // ... and an edge list whose first line looks like a header is still an edge list.
  const Graph path = read_graph_file(write_temp("path.txt", "2 1\n1 0\n2 3\n"));
  EXPECT_EQ(path.num_nodes(), 4u);
  EXPECT_EQ(path.num_edges(), 3u);
  // Three numbers in the first line can only be a METIS header.
  EXPECT_EQ(read_graph_file(write_temp("triangle.txt", "3 3 0\n2 3\n1 3\n1 2\n")).num_edges(), 3u);
}

TEST(GraphIoTest, RefusesDisconnectedGraphs) {
  const std::string path = write_temp("two_parts.edges", "0 1\n1 2\n3 4\n");
  EXPECT_EQ(read_graph_file(path).num_nodes(), 5u);
  EXPECT_TRUE(contains(input_error([&] { make_topology("file:" + path, 0); }), "not connected"));
  const std::string metis = write_temp("two_parts.graph", "4 2\n2\n1\n4\n3\n");
  EXPECT_TRUE(contains(input_error([&] { make_topology("file:" + metis, 0); }), "not connected"));
}

TEST(GraphIoTest, MalformedFilesNameFileAndLine) {
  struct Case {
    std::string name, content, where, problem;
  };
  const std::vector<Case> cases = {
      {"bad_token.edges", "# c\n0 1\n1 x\n", ":3", "'x' is not a node id"},
      {"three_ids.edges", "0 1\n\n1 2 3\n", ":3", "expected two node ids, got '1 2 3'"},
      {"negative.edges", "0 -1\n", ":1", "'-1' is not a node id"},
      {"loop.edges", "0 1\n2 2\n", ":2", "self loop on node 2"},
      {"range.graph", "% c\n3 2\n2\n1 4\n2\n", ":4", "neighbour '4' of node 2 is not a node number in 1..3"},
      {"asymmetric.graph", "3 2\n2 3\n1\n2\n", ":2", "node 1 lists 3 but node 3 does not list 1"},
      {"count.graph", "3 3\n2\n1 3\n2\n", ":1", "header declares 3 edges but the adjacency lines hold 2"},
      {"weighted.graph", "3 2 011\n2\n1 3\n2\n", ":1", "weighted METIS graphs (fmt=011) are not supported"},
      {"header.graph", "3 x\n", ":1", "expected METIS header"},
      {"metis_loop.graph", "2 1\n2 1\n1\n", ":2", "self loop on node 1"},
      {"twice.graph", "2 1\n2 2\n1\n", ":2", "node 1 lists neighbour 2 twice"},
      {"extra.graph", "2 1\n2\n1\n1\n", ":4", "extra line"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = write_temp(c.name, c.content);
    const std::string error = input_error([&] { read_graph_file(path); });
    EXPECT_TRUE(contains(error, path + c.where + ": ")) << error;
    EXPECT_TRUE(contains(error, c.problem)) << error;
  }
  const std::string short_file = write_temp("short.graph", "3 2\n2\n1 3\n");
  EXPECT_TRUE(contains(input_error([&] { read_graph_file(short_file); }), short_file + ": header declares 3 nodes"));
  const std::string empty = write_temp("empty.edges", "# nothing\n\n");
  EXPECT_TRUE(contains(input_error([&] { read_graph_file(empty); }), "no edges"));

  try {
    read_graph_file(data_dir + "/no_such_file.edges");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), data_dir + "/no_such_file.edges");
    EXPECT_TRUE(contains(e.what(), "graph file not found"));
  }
}

TEST(TopologyTest, RefusesBadSpecs) {
  EXPECT_TRUE(contains(input_error([] { make_topology("moebius:5", 0); }), "unknown topology 'moebius'"));
  EXPECT_TRUE(contains(input_error([] { make_topology("mesh:", 0); }), "expected dimensions"));
  EXPECT_TRUE(contains(input_error([] { make_topology("mesh:1x4", 0); }), "at least 2 nodes"));
  EXPECT_TRUE(contains(input_error([] { make_topology("mesh:4xx4", 0); }), "not a non-negative integer"));
  EXPECT_TRUE(contains(input_error([] { make_topology("random-regular:5,3", 0); }), "N*D even"));
  EXPECT_TRUE(contains(input_error([] { make_topology("random-regular:5", 0); }), "2 comma-separated"));
  EXPECT_TRUE(contains(input_error([] { make_topology("erdos-renyi:10,0", 0); }), "(0, 1]"));
  EXPECT_TRUE(contains(input_error([] { make_topology("hypercube:0", 0); }), "1..31"));
  EXPECT_TRUE(contains(input_error([] { make_topology("ring:1", 0); }), "at least 2 nodes"));
  EXPECT_TRUE(contains(input_error([] { make_topology("file:", 0); }), "file:PATH"));
}

// ---- Edge colourings ------------------------------------------------------------------------

// Colours actually present; a well-formed colouring uses exactly 0..num_colors-1.
std::set<std::uint16_t> colours_used(const EdgeColoring& c) { return {c.slot_color.begin(), c.slot_color.end()}; }

TEST(EdgeColoringTest, GridColouringCountsColours) {
  const std::vector<std::pair<std::string, std::uint32_t>> cases = {
      {"mesh:4x6", 4}, {"mesh:3x5", 4},   {"mesh:2x5", 3},     {"torus:4x6", 4}, {"torus:5x4", 5}, {"torus:3x3", 6},
      {"torus:2x5", 4}, {"hypercube:5", 5}, {"kary:3,2", 6}, {"ring:7", 3},    {"ring:8", 2},    {"line:2", 1}};
  for (const auto& [spec, colours] : cases) {
    SCOPED_TRACE(spec);
    const Topology t = make_topology(spec, 0);
    const EdgeColoring c = grid_edge_coloring(t);
    EXPECT_TRUE(is_proper(t.graph, c));
    EXPECT_EQ(c.num_colors, colours);
    EXPECT_EQ(colours_used(c).size(), colours);
    EXPECT_EQ(edge_coloring_for(t).slot_color, c.slot_color);
  }
}

TEST(EdgeColoringTest, PartnerSlot) {
  const Topology t = make_topology("line:3", 0);
  const EdgeColoring c = grid_edge_coloring(t);
  const Slot s = c.partner_slot(t.graph, 1, 0);
  ASSERT_LT(s, t.graph.num_slots());
  EXPECT_EQ(t.graph.target(s), 0u);
  EXPECT_EQ(c.partner_slot(t.graph, 0, 1), t.graph.num_slots());
  EXPECT_EQ(c.partner_slot(t.graph, 2, 1), t.graph.reverse(c.partner_slot(t.graph, 1, 1)));
}

TEST(EdgeColoringTest, IsProperDetectsClashes) {
  const Graph g = make_topology("line:3", 0).graph;
  EdgeColoring c{std::vector<std::uint16_t>(g.num_slots(), 0), 1};
  EXPECT_FALSE(is_proper(g, c));  // node 1 has two edges of colour 0
  c.slot_color[g.first_slot(1)] = 1;
  c.num_colors = 2;
  EXPECT_FALSE(is_proper(g, c));  // twins disagree
}

TEST(EdgeColoringTest, MisraGriesIsProperWithinVizingBound) {
  const std::vector<std::string> specs = {
      "random-regular:1000,4", "random-regular:500,7", "random-regular:12,11", "erdos-renyi:300,0.05",
      "p2p:2000", "complete:7", "complete:8", "star:9", "torus:5x5", "mesh:6x7",
      "file:" + data_dir + "/petersen.graph"};
  for (const auto& spec : specs) {
    SCOPED_TRACE(spec);
    const Topology t = make_topology(spec, 5);
    const EdgeColoring c = misra_gries_edge_coloring(t.graph);
    EXPECT_TRUE(is_proper(t.graph, c));
    EXPECT_GE(c.num_colors, t.graph.max_degree());
    EXPECT_LE(c.num_colors, t.graph.max_degree() + 1);
    EXPECT_EQ(colours_used(c).size(), c.num_colors);
    EXPECT_EQ(misra_gries_edge_coloring(t.graph).slot_color, c.slot_color);  // deterministic
  }
  // Many small dense graphs, where fans and cd-path inversions are frequent.
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    for (const char* spec : {"erdos-renyi:30,0.4", "random-regular:16,8", "random-regular:21,12"}) {
      SCOPED_TRACE(std::string(spec) + " seed " + std::to_string(seed));
      const Graph g = make_topology(spec, seed).graph;
      const EdgeColoring c = misra_gries_edge_coloring(g);
      EXPECT_TRUE(is_proper(g, c));
      EXPECT_LE(c.num_colors, g.max_degree() + 1);
    }
  }
  // Class-two graphs need max degree + 1 colours.
  EXPECT_EQ(misra_gries_edge_coloring(make_topology("complete:7", 0).graph).num_colors, 7u);
  EXPECT_EQ(misra_gries_edge_coloring(make_topology("file:petersen.graph", 0, data_dir).graph).num_colors, 4u);
  EXPECT_EQ(misra_gries_edge_coloring(make_topology("star:9", 0).graph).num_colors, 8u);
}

TEST(EdgeColoringTest, ColouringForNonGridUsesMisraGries) {
  const Topology t = make_topology("p2p:500", 1);
  const EdgeColoring c = edge_coloring_for(t);
  EXPECT_TRUE(is_proper(t.graph, c));
  EXPECT_EQ(c.slot_color, misra_gries_edge_coloring(t.graph).slot_color);
  EXPECT_EQ(misra_gries_edge_coloring(Graph::from_edges(1, {})).num_colors, 0u);
}

TEST(TopologySize, KnownFromTheSpecBeforeBuilding) {
  for (const std::string spec : {"line:7", "ring:9", "ring:2", "mesh:3x4", "torus:4x5x2", "torus:3x3", "hypercube:5", "kary:3,3", "complete:20",
                                 "star:9", "random-regular:30,4"}) {
    const TopologySize size = topology_size(parse_topology(spec));
    const Topology t = make_topology(spec, 1);
    EXPECT_EQ(size.nodes, t.graph.num_nodes()) << spec;
    EXPECT_EQ(size.edges, static_cast<double>(t.graph.num_edges())) << spec;
  }
  const TopologySize big = topology_size(parse_topology("hypercube:25"));
  EXPECT_EQ(big.nodes, 33554432.0);
  EXPECT_EQ(big.edges, 25.0 * 16777216.0);
  const TopologySize file = topology_size(parse_topology("file:" + data_dir + "/diamond.edges"));
  EXPECT_GE(file.edges, static_cast<double>(make_topology("file:" + data_dir + "/diamond.edges", 1).graph.num_edges()));
}

}  // namespace
}  // namespace nnlb
