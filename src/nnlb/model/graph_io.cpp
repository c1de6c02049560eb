#include "nnlb/model/graph_io.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "nnlb/util/error.hpp"
#include "nnlb/util/input_file.hpp"

namespace nnlb {

namespace {

constexpr std::uint64_t max_nodes = 0xffffffffULL;

std::string read_text(const std::string& path) {
  std::ifstream in = open_input(path, "graph file", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Lines without their terminators ("\n" or "\r\n"); lines[k] is line k+1 of the file.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    auto line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return lines;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::string_view trimmed(std::string_view line) {
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  return line;
}

bool is_blank(std::string_view line) { return trimmed(line).empty(); }
bool starts_with(std::string_view line, char c) { return !trimmed(line).empty() && trimmed(line).front() == c; }

std::optional<std::uint64_t> to_uint(std::string_view token) {
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (token.empty() || ec != std::errc() || ptr != token.data() + token.size()) return std::nullopt;
  return value;
}

InputError error_at(const std::string& path, std::size_t line, const std::string& problem) {
  return InputError(path + ":" + std::to_string(line), {}, problem);
}

Graph parse_edge_list(const std::string& path, const std::vector<std::string_view>& lines) {
  std::vector<std::pair<NodeId, NodeId>> edges;
  NodeId max_id = 0;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const auto line = trimmed(lines[k]);
    if (line.empty() || line.front() == '#' || line.front() == '%') continue;
    const auto ids = tokens(line);
    if (ids.size() != 2) throw error_at(path, k + 1, "expected two node ids, got '" + std::string(line) + "'");
    NodeId ends[2];
    for (int e = 0; e < 2; ++e) {
      const auto id = to_uint(ids[e]);
      if (!id || *id >= max_nodes)
        throw error_at(path, k + 1, "'" + std::string(ids[e]) + "' is not a node id (0-based integer below 2^32-1)");
      ends[e] = static_cast<NodeId>(*id);
    }
    if (ends[0] == ends[1]) throw error_at(path, k + 1, "self loop on node " + std::to_string(ends[0]));
    edges.emplace_back(std::min(ends[0], ends[1]), std::max(ends[0], ends[1]));
    max_id = std::max({max_id, ends[0], ends[1]});
  }
  if (edges.empty()) throw InputError(path, {}, "graph file lists no edges");
  // Many edge-list files give each edge in both directions: merge repeats.
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  // E edges touch at most 2E nodes; a larger id leaves nodes without an edge. Checked before
  // allocating, so a stray huge id costs nothing.
  if (max_id / 2 >= edges.size())
    throw InputError(path, {}, "node id " + std::to_string(max_id) + " is too large: the file's " + std::to_string(edges.size()) +
                                   " edges touch at most " + std::to_string(2 * edges.size()) + " nodes (ids are 0-based, every node needs an edge)");
  return Graph::from_edges(max_id + 1, std::move(edges));
}

// Index of the METIS header line: the first line that is neither blank nor a '%' comment.
std::optional<std::size_t> metis_header(const std::vector<std::string_view>& lines) {
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (!is_blank(lines[k]) && !starts_with(lines[k], '%')) return k;
  return std::nullopt;
}

Graph parse_metis(const std::string& path, const std::vector<std::string_view>& lines) {
  const auto header = metis_header(lines);
  if (!header) throw InputError(path, {}, "empty METIS graph file");
  const std::size_t header_line = *header + 1;
  const auto fields = tokens(lines[*header]);
  std::vector<std::uint64_t> values;
  for (auto field : fields)
    if (const auto v = to_uint(field)) values.push_back(*v);
  if (fields.size() < 2 || fields.size() > 4 || values.size() != fields.size())
    throw error_at(path, header_line, "expected METIS header 'N M [FMT [NCON]]', got '" + std::string(trimmed(lines[*header])) + "'");
  if (fields.size() >= 3 && values[2] != 0)
    throw error_at(path, header_line, "weighted METIS graphs (fmt=" + std::string(fields[2]) + ") are not supported");
  const std::uint64_t n = values[0], m = values[1];
  if (n < 1 || n > max_nodes) throw error_at(path, header_line, "node count must be in 1..2^32-1");

  // Adjacency in CSR form, 0-based, and the file line of each vertex.
  std::vector<std::uint64_t> offsets{0};
  std::vector<NodeId> adj;
  std::vector<std::size_t> vertex_line;
  vertex_line.reserve(std::min<std::uint64_t>(n, lines.size()));  // not n alone: the header may be wrong
  std::size_t k = *header + 1;
  for (; k < lines.size() && vertex_line.size() < n; ++k) {
    if (starts_with(lines[k], '%')) continue;
    const NodeId v = static_cast<NodeId>(vertex_line.size());
    for (auto token : tokens(lines[k])) {
      const auto u = to_uint(token);
      if (!u || *u < 1 || *u > n)
        throw error_at(path, k + 1, "neighbour '" + std::string(token) + "' of node " + std::to_string(v + 1) +
                                        " is not a node number in 1.." + std::to_string(n));
      if (*u == v + 1ULL) throw error_at(path, k + 1, "self loop on node " + std::to_string(v + 1));
      adj.push_back(static_cast<NodeId>(*u - 1));
    }
    std::sort(adj.begin() + static_cast<std::ptrdiff_t>(offsets.back()), adj.end());
    if (auto dup = std::adjacent_find(adj.begin() + static_cast<std::ptrdiff_t>(offsets.back()), adj.end()); dup != adj.end())
      throw error_at(path, k + 1, "node " + std::to_string(v + 1) + " lists neighbour " + std::to_string(*dup + 1) + " twice");
    offsets.push_back(adj.size());
    vertex_line.push_back(k + 1);
  }
  if (vertex_line.size() < n)
    throw InputError(path, {}, "header declares " + std::to_string(n) + " nodes but the file has only " +
                                   std::to_string(vertex_line.size()) + " adjacency lines");
  for (; k < lines.size(); ++k)
    if (!is_blank(lines[k]) && !starts_with(lines[k], '%'))
      throw error_at(path, k + 1, "extra line after the " + std::to_string(n) + " adjacency lines");

  std::vector<std::pair<NodeId, NodeId>> edges;
  for (NodeId v = 0; v < n; ++v) {
    for (auto s = offsets[v]; s < offsets[v + 1]; ++s) {
      const NodeId u = adj[s];
      if (!std::binary_search(adj.begin() + static_cast<std::ptrdiff_t>(offsets[u]),
                              adj.begin() + static_cast<std::ptrdiff_t>(offsets[u + 1]), v))
        throw error_at(path, vertex_line[v], "node " + std::to_string(v + 1) + " lists " + std::to_string(u + 1) +
                                                 " but node " + std::to_string(u + 1) + " does not list " + std::to_string(v + 1));
      if (v < u) edges.emplace_back(v, u);
    }
  }
  if (edges.size() != m)
    throw error_at(path, header_line, "header declares " + std::to_string(m) + " edges but the adjacency lines hold " +
                                          std::to_string(edges.size()));
  return Graph::from_edges(static_cast<NodeId>(n), std::move(edges));
}

bool has_metis_extension(const std::string& path) {
  auto ends_with = [&](std::string_view suffix) { return std::string_view(path).ends_with(suffix); };
  return ends_with(".graph") || ends_with(".metis");
}

// "N M" followed by exactly N adjacency lines (ignoring trailing blank lines) holding 2M ids in
// 1..N; or a header of three or four integers, which no edge-list line has.
bool looks_like_metis(const std::vector<std::string_view>& lines) {
  std::size_t k = 0;
  while (k < lines.size() && (is_blank(lines[k]) || starts_with(lines[k], '%') || starts_with(lines[k], '#'))) ++k;
  if (k == lines.size()) return false;
  const auto fields = tokens(lines[k]);
  if (fields.size() < 2 || fields.size() > 4 || !std::all_of(fields.begin(), fields.end(), [](auto f) { return to_uint(f).has_value(); }))
    return false;
  if (fields.size() > 2) return true;
  const std::uint64_t n = *to_uint(fields[0]), m = *to_uint(fields[1]);
  std::size_t last = lines.size();
  while (last > k + 1 && is_blank(lines[last - 1])) --last;
  std::uint64_t vertex_lines = 0, ids = 0;
  for (std::size_t i = k + 1; i < last; ++i) {
    if (starts_with(lines[i], '%')) continue;
    ++vertex_lines;
    for (auto token : tokens(lines[i])) {
      const auto u = to_uint(token);
      if (!u || *u < 1 || *u > n) return false;
      ++ids;
    }
  }
  return vertex_lines == n && ids == 2 * m;
}

}  // namespace

Graph read_graph_file(const std::string& path) {
  const std::string text = read_text(path);
  const auto lines = split_lines(text);
  if (has_metis_extension(path) || looks_like_metis(lines)) return parse_metis(path, lines);
  return parse_edge_list(path, lines);
}

Graph read_edge_list(const std::string& path) {
  const std::string text = read_text(path);
  return parse_edge_list(path, split_lines(text));
}

Graph read_metis(const std::string& path) {
  const std::string text = read_text(path);
  return parse_metis(path, split_lines(text));
}

}  // namespace nnlb
