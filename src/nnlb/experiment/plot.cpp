#include "nnlb/experiment/plot.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <fmt/format.h>

#include "nnlb/util/atomic_file.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/process.hpp"

namespace nnlb {

namespace {

// A gnuplot string that stays text: single quotes (no backslash escapes, no backquote or macro
// substitution), control characters (a newline would end the command) as spaces. A quote joins
// the pieces around it as a string expression, 'it'."'".'s': gnuplot reads a doubled quote at
// the start of a string as an empty string and fails on what follows.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'.\"'\".'";
    else out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  }
  return out + "'";
}

// A category that is a number, as a short tick label ("100000000.0" -> "1e+08").
std::string tick_label(const std::string& category) {
  double v = 0;
  const char* end = category.data() + category.size();
  const auto [at, error] = std::from_chars(category.data(), end, v);
  return error == std::errc() && at == end ? fmt::format("{:g}", v) : category;
}

// Category labels as an explicit tic list: the data block holds only numbers.
std::string category_tics(const Chart& chart) {
  std::string tics;
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    const double x = chart.overlay && c < chart.positions.size() ? chart.positions[c] : static_cast<double>(c);
    tics += fmt::format("{}{} {:.17g}", c ? ", " : "", quoted(tick_label(chart.categories[c])), x);
  }
  return "set xtics rotate by -60 noenhanced (" + tics + ")\n";
}

// Grouped bars: a data block with one row per category and, per series, a column of heights (NaN:
// no bar), or three (height, low, high) when the series carry error bars. Overlaid bars share one
// box per category; the last series is drawn first, at the back.
std::string bars_body(const Chart& chart) {
  const bool ranges = std::any_of(chart.series.begin(), chart.series.end(), [](const ChartSeries& s) { return !s.y_low.empty(); });
  const std::size_t width = ranges ? 3 : 1, first = chart.overlay ? 3 : 2;  // columns per series; the first series' column
  std::string gp = "set style fill solid 0.8 border -1\n";
  if (!chart.categories.empty()) gp += category_tics(chart);
  if (!chart.logy) gp += "set yrange [0:*]\n";
  gp += chart.overlay ? "set boxwidth 0.8\nset xrange [-0.6:*]\nunset grid\nset grid ytics\n"
                      : std::string("set style data histograms\nset style histogram ") + (ranges ? "errorbars lw 1" : "clustered") +
                            " gap 1\nset boxwidth 0.9\n";
  gp += "$bars << EOD\n";
  const auto value = [](const std::vector<double>& v, std::size_t c) {
    const double y = c < v.size() ? v[c] : std::numeric_limits<double>::quiet_NaN();
    return std::isnan(y) ? std::string(" NaN") : fmt::format(" {:.17g}", y);
  };
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    gp += fmt::format("{}", c);
    if (chart.overlay) gp += fmt::format(" {:.17g}", c < chart.positions.size() ? chart.positions[c] : static_cast<double>(c));
    for (const auto& s : chart.series) {
      gp += value(s.y, c);
      if (ranges) gp += value(s.y_low.empty() ? s.y : s.y_low, c) + value(s.y_high.empty() ? s.y : s.y_high, c);
    }
    gp += "\n";
  }
  gp += "EOD\nplot ";
  const std::size_t n = chart.series.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = chart.overlay ? n - 1 - i : i, y = first + k * width;
    const std::string columns = chart.overlay ? fmt::format("2:{}", y) : ranges ? fmt::format("{}:{}:{}", y, y + 1, y + 2) : std::to_string(y);
    gp += fmt::format("{}$bars using {}{} lc {} title {}", i ? ", " : "", columns, chart.overlay ? " with boxes" : "", k + 1,
                      quoted(chart.series[k].label));
    if (chart.overlay && ranges) gp += fmt::format(", $bars using 2:{}:{}:{} with yerrorbars lc {} pt 0 notitle", y, y + 1, y + 2, k + 1);
  }
  return gp + (chart.series.empty() ? "NaN notitle\n" : "\n");
}

// Heat map: matrix rows at their y values, columns at 0, 1, 2, ...
std::string heatmap_body(const Chart& chart) {
  std::string gp = "set palette rgbformulae 21,22,23\nunset key\nset autoscale xfix\nset autoscale yfix\n" +
                   (chart.z_max > 0 ? fmt::format("set cbrange [0:{:.17g}]\n", chart.z_max) : std::string("set cbrange [0:*]\n")) +
                   "set cblabel " + quoted(chart.zlabel) + " noenhanced\n$heat << EOD\n";
  for (std::size_t r = 0; r < chart.matrix.size(); ++r) {
    for (std::size_t c = 0; c < chart.matrix[r].size(); ++c)
      gp += fmt::format("{} {:.17g} {:.17g}\n", c, r < chart.row_values.size() ? chart.row_values[r] : static_cast<double>(r), chart.matrix[r][c]);
    gp += "\n";
  }
  gp += "EOD\n";
  return gp + (chart.matrix.empty() ? "plot NaN notitle\n" : "plot $heat using 1:2:3 with image\n");
}

}  // namespace

namespace {

// gnuplot refuses to autoscale an axis whose data has a single value, to its precision ("y_min
// should not equal y_max"); such an axis gets a range around it (a factor of 2 on a log axis).
std::string flat_axis(const char* axis, const std::vector<const std::vector<double>*>& columns, bool log) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto* column : columns)
    for (double v : *column)
      if (std::isfinite(v) && (!log || v > 0)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (lo > hi || hi - lo > 1e-9 * std::max(std::abs(lo), std::abs(hi))) return {};
  if (log) return fmt::format("set {}range [{:.17g}:{:.17g}]\n", axis, lo / 2, lo * 2);
  const double pad = lo == 0 ? 1 : std::abs(lo) / 2;
  return fmt::format("set {}range [{:.17g}:{:.17g}]\n", axis, lo - pad, lo + pad);
}

}  // namespace

std::string gnuplot_script(const Chart& chart, const std::string& image) {
  const bool svg = image.ends_with(".svg");
  // Wide enough for many bars: 900 px, or 24 px per bar plus the key.
  const std::size_t width = std::max<std::size_t>(900, 400 + 24 * chart.categories.size());
  std::string gp = svg ? fmt::format("set terminal svg size {},600 dynamic enhanced font 'Sans,12'\n", width)
                       : fmt::format("set terminal pngcairo size {},600 enhanced font 'Sans,11'\n", width);
  gp += "set output " + quoted(image) + "\n";
  gp += "set title " + quoted(chart.title) + " noenhanced\n";
  gp += "set xlabel " + quoted(chart.xlabel) + " noenhanced\nset ylabel " + quoted(chart.ylabel) + " noenhanced\n";
  // Long legend entries go under the chart, where they do not narrow it.
  const bool long_labels = std::any_of(chart.series.begin(), chart.series.end(), [](const ChartSeries& c) { return c.label.size() > 24; });
  gp += long_labels ? "set key below noenhanced\nset grid\n" : "set key outside right top noenhanced\nset grid\n";
  if (chart.logx) gp += "set logscale x\n";
  if (chart.logy) gp += "set logscale y\n";
  if (chart.kind == Chart::Kind::heatmap) return gp + heatmap_body(chart);
  std::vector<const std::vector<double>*> xs, ys;
  for (const auto& series : chart.series) xs.push_back(&series.x), ys.push_back(&series.y);
  if (chart.kind == Chart::Kind::bars) return gp + (chart.logy ? flat_axis("y", ys, true) : "") + bars_body(chart);
  gp += flat_axis("x", xs, chart.logx) + flat_axis("y", ys, chart.logy);
  std::string plots;
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const auto& s = chart.series[k];
    const bool bars = !s.y_low.empty();
    gp += fmt::format("$s{} << EOD\n", k);
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      gp += fmt::format("{:.17g} {:.17g}", s.x[i], s.y[i]);
      if (bars) gp += fmt::format(" {:.17g} {:.17g}", s.y_low[i], s.y_high[i]);
      gp += "\n";
    }
    gp += "EOD\n";
    plots += fmt::format("{}$s{} using 1:2 with {} lw 2 title {}", plots.empty() ? "" : ", \\\n     ", k, s.style, quoted(s.label));
    if (bars) plots += fmt::format(", $s{} using 1:2:3:4 with yerrorbars lc {} pt 0 notitle", k, k + 1);
  }
  if (plots.empty()) gp += "set label 1 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle\n";
  else gp += "plot " + plots + "\n";
  return gp;
}

namespace {

// The first line of gnuplot's messages that says what went wrong.
std::string first_error(const std::string& output) {
  std::size_t start = 0;
  while (start < output.size()) {
    const std::size_t end = std::min(output.find('\n', start), output.size());
    const std::string line = output.substr(start, end - start);
    if (line.find("line ") != std::string::npos && line.find(':') != std::string::npos) return line;
    start = end + 1;
  }
  return {};
}

}  // namespace

void check_image_name(const std::string& image, const std::string& option) {
  const std::string ext = std::filesystem::path(image).extension().string();
  if (ext != ".png" && ext != ".svg")
    throw InputError(option, {}, "'" + image + "': the image format follows the extension, .png or .svg" +
                                     (ext.empty() ? std::string() : ", not " + ext));
}

void render_chart(const Chart& chart, const std::string& image) {
  check_image_name(image, "chart");
  if (std::any_of(image.begin(), image.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    throw InputError(image, {}, "image file names may not hold control characters");
  const std::filesystem::path img(image);
  const std::string script = (img.parent_path() / (img.stem().string() + ".gp")).string();
  const std::string tmp_image = (img.parent_path() / ("." + img.stem().string() + ".part" + img.extension().string())).string();
  // gnuplot writes the image under a temporary name: the real name appears only when complete.
  write_file_atomic(script, gnuplot_script(chart, tmp_image));
  // No shell: the script's absolute path is gnuplot's only argument (never read as an option).
  const ProgramOutcome gnuplot = run_program({"gnuplot", std::filesystem::absolute(script).string()});
  if (!gnuplot.started) throw InputError(image, {}, "gnuplot not found (Debian package gnuplot-nox; scripts/deps installs it)");
  if (gnuplot.status != 0 || !std::filesystem::exists(tmp_image)) {
    std::filesystem::remove(tmp_image);
    std::filesystem::remove(script);  // no file of a failed plot stays behind
    const std::string why = first_error(gnuplot.output);
    throw InputError(image, {}, "gnuplot failed" + (why.empty() ? std::string() : ": " + why));
  }
  std::filesystem::rename(tmp_image, img);
  // The kept script names the final image, so it can be rerun by hand.
  write_file_atomic(script, gnuplot_script(chart, image));
}

}  // namespace nnlb
