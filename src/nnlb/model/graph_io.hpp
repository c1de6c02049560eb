#pragma once
// Graph files: a plain edge list ("i j" per line, '#' or '%' comments, 0-based ids) or the METIS
// graph format (header "n m [fmt [ncon]]", then one 1-based adjacency line per vertex).
#include <string>

#include "nnlb/model/graph.hpp"

namespace nnlb {

// Reads either format (METIS when the file name ends in .graph or .metis, or the first
// non-comment line has the METIS header shape and the rest matches). Throws InputError that
// names the file and line.
Graph read_graph_file(const std::string& path);

Graph read_edge_list(const std::string& path);
Graph read_metis(const std::string& path);

}  // namespace nnlb
