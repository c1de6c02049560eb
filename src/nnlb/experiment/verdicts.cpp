#include "nnlb/experiment/verdicts.hpp"

#include <sstream>

namespace nnlb {

namespace {

std::string trimmed(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

}  // namespace

std::vector<std::string> markdown_cells(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (line[i] == '|') {
      out.push_back(trimmed(cur));
      cur.clear();
    } else {
      cur += line[i];
    }
  }
  return out;
}

VerdictTable read_verdicts(const std::string& markdown) {
  VerdictTable t;
  std::istringstream in(markdown);
  bool section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) {
      if (section && t.found) break;
      section = line == "## Verdicts";
      continue;
    }
    if (!section) continue;
    if (line.rfind("|", 0) != 0) {
      if (t.found) break;
      continue;
    }
    if (!t.found) {
      t.found = true;
      t.header = markdown_cells(line);
    } else if (line.rfind("|---", 0) != 0) {
      t.rows.push_back(markdown_cells(line));
    }
  }
  return t;
}

}  // namespace nnlb
