#pragma once
// The verdict table at the top of a reproduction page (docs/reproductions/PAPER.md): the first
// Markdown table under "## Verdicts", one row per claim, with the columns below. `nnlb report`
// sets a study's rows beside its charts; tests/test_verdicts.cpp checks every row.
#include <string>
#include <string_view>
#include <vector>

namespace nnlb {

inline const std::vector<std::string> verdict_header{"claim (paper)", "paper", "ours", "verdict", "conditions", "run"};

// The cells of a Markdown table row "| a | b |", trimmed; "\|" is a pipe inside a cell.
std::vector<std::string> markdown_cells(std::string_view line);

struct VerdictTable {
  std::vector<std::string> header;              // as written (verdict_header on a valid page)
  std::vector<std::vector<std::string>> rows;   // cells, in the header's order
  bool found = false;                           // the page has a "## Verdicts" table
};

VerdictTable read_verdicts(const std::string& markdown);

}  // namespace nnlb
