#include "nnlb/experiment/plot.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

#include "nnlb/util/atomic_file.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string gnuplot_script(const Chart& chart, const std::string& image) {
  const bool svg = image.ends_with(".svg");
  std::string gp = svg ? "set terminal svg size 900,600 dynamic enhanced font 'Sans,12'\n"
                       : "set terminal pngcairo size 900,600 enhanced font 'Sans,11'\n";
  gp += "set output " + quoted(image) + "\n";
  gp += "set title " + quoted(chart.title) + " noenhanced\n";
  gp += "set xlabel " + quoted(chart.xlabel) + " noenhanced\nset ylabel " + quoted(chart.ylabel) + " noenhanced\n";
  gp += "set key outside right top noenhanced\nset grid\n";
  if (chart.logx) gp += "set logscale x\n";
  if (chart.logy) gp += "set logscale y\n";
  for (const auto& e : chart.extra) gp += e + "\n";
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

void render_chart(const Chart& chart, const std::string& image) {
  static const bool have_gnuplot = std::system("command -v gnuplot >/dev/null 2>&1") == 0;
  if (!have_gnuplot) throw InputError(image, {}, "gnuplot not found (Debian package gnuplot-nox; scripts/deps installs it)");
  const std::filesystem::path img(image);
  const std::string script = (img.parent_path() / (img.stem().string() + ".gp")).string();
  const std::string tmp_image = (img.parent_path() / ("." + img.stem().string() + ".part" + img.extension().string())).string();
  // gnuplot writes the image under a temporary name: the real name appears only when complete.
  write_file_atomic(script, gnuplot_script(chart, tmp_image));
  const std::string cmd = "gnuplot " + quoted(script) + " 2>&1";
  if (std::system(cmd.c_str()) != 0 || !std::filesystem::exists(tmp_image)) {
    std::filesystem::remove(tmp_image);
    throw InputError(script, {}, "gnuplot failed on this script");
  }
  std::filesystem::rename(tmp_image, img);
  // The kept script names the final image, so it can be rerun by hand.
  write_file_atomic(script, gnuplot_script(chart, image));
}

}  // namespace nnlb
