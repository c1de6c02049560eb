#pragma once
// Charts rendered by gnuplot (Debian's gnuplot-nox) to PNG or SVG. Data travels inside the
// script as gnuplot data blocks, so a chart is one self-contained .gp file next to its image.
// Every text (titles, labels, legend entries, categories) reaches the script as an inert
// single-quoted string: backquotes, macros, quotes and newlines in it stay text.
#include <string>
#include <vector>

namespace nnlb {

struct ChartSeries {
  std::string label;
  std::vector<double> x, y;
  std::vector<double> y_low, y_high;  // optional error bars (same length as y)
  std::string style = "linespoints";  // gnuplot "with" style: lines, points, linespoints
};

struct Chart {
  enum class Kind {
    xy,       // series of (x, y) points
    bars,     // grouped bars: one cluster per category, one bar per series (series[k].y[c])
    heatmap,  // matrix[row][col] as colours: rows along y (e.g. time), columns along x (e.g. node)
  } kind = Kind::xy;
  std::string title, xlabel, ylabel;
  bool logx = false, logy = false;
  std::vector<ChartSeries> series;
  std::vector<std::string> categories;        // bars: cluster labels
  bool overlay = false;                       // bars: series drawn over each other, the last at the back
  std::vector<double> positions;              // overlaid bars: x of each category (empty: 0, 1, 2, ...)
  std::vector<std::vector<double>> matrix;    // heatmap
  std::vector<double> row_values;             // heatmap: y value of each row (e.g. steps)
  std::string zlabel;                         // heatmap: colour bar label
  double z_max = 0;                           // heatmap: top of the colour scale (0: the data's maximum)
};

// Refuses (InputError naming `option`) an image name whose extension is not .png or .svg.
void check_image_name(const std::string& image, const std::string& option);

// The gnuplot script for `chart` writing to `image` (terminal chosen by the extension).
std::string gnuplot_script(const Chart& chart, const std::string& image);
// Writes image (PNG or SVG by its extension) and IMAGE-without-extension.gp; throws InputError if
// the extension is another, or gnuplot is missing or fails.
void render_chart(const Chart& chart, const std::string& image);

}  // namespace nnlb
