#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "commands.hpp"
#include "nnlb/experiment/plot.hpp"
#include "nnlb/experiment/store.hpp"
#include "nnlb/experiment/study.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/json_depth.hpp"

namespace nnlb::cli {

namespace {

namespace fs = std::filesystem;

struct PlotOptions {
  std::string input;
  std::string out;
  PlotSpec spec;
  std::string y, group;
  std::vector<std::string> where;
};

// Records from a results store (.jsonl), a record (.json) or a --repeat file ({"runs": [...]}).
std::vector<nlohmann::json> read_records(const std::string& path) {
  if (!fs::exists(path)) throw InputError(path, {}, "file not found");
  if (!fs::is_regular_file(path)) throw InputError(path, {}, "is not a regular file");
  if (path.ends_with(".jsonl")) return read_store(path, [](const std::string& w) { fmt::print(stderr, "warning: {}\n", w); });
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  if (json_depth(buf.str()) > max_json_depth) throw InputError(path, {}, fmt::format("nested deeper than {} levels", max_json_depth));
  const auto j = nlohmann::json::parse(buf.str(), nullptr, false);
  if (j.is_discarded()) throw InputError(path, {}, "not valid JSON");
  if (!j.is_object()) throw InputError(path, {}, "holds no result record (a JSON object)");
  if (!j.contains("runs")) return {j};
  if (!j["runs"].is_array()) throw InputError(path, {}, "'runs' is not a list of records");
  return j["runs"].get<std::vector<nlohmann::json>>();
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

int plot(PlotOptions o) {
  o.spec.y = split_list(o.y);
  o.spec.group = split_list(o.group);
  o.spec.where = o.where;
  check_plot(o.spec, "nnlb plot", "--kind/--x/--y");
  const fs::path out(o.out);
  check_image_name(o.out, "--out");
  const auto records = read_records(o.input);
  if (records.empty()) throw InputError(o.input, {}, "holds no records");
  // A field no record has would draw one category "null" (bars) or nothing: a typo, named.
  const auto named = [&](const std::string& field, const char* option) {
    if (field.empty() || o.spec.kind == "series" || o.spec.kind == "heatmap") return;
    if (std::none_of(records.begin(), records.end(), [&](const nlohmann::json& r) { return !record_field(r, field).is_null(); }))
      throw InputError(option, {}, "no record in " + o.input + " has the field '" + field + "'");
  };
  named(o.spec.x, "--x");
  for (const std::string& y : o.spec.y) named(y, "--y");
  o.spec.file = out.stem().string();
  const std::string dir = out.has_parent_path() ? out.parent_path().string() : ".";
  write_plots({o.spec}, records, dir, fs::path(o.input).filename().string(), out.extension().string());
  fmt::print(stderr, "wrote {} (data {}.csv, script {}.gp)\n", o.out, (fs::path(dir) / o.spec.file).string(), (fs::path(dir) / o.spec.file).string());
  return 0;
}

}  // namespace

Action add_plot(CLI::App& app) {
  auto o = std::make_shared<PlotOptions>();
  app.add_option("input", o->input, "results store (.jsonl), result record or --repeat file (.json)")->required();
  app.add_option("--out", o->out, "image to write: .png or .svg (the data goes to .csv, the gnuplot script to .gp beside it)")->required();
  app.add_option("--kind", o->spec.kind, "lines | series | fit | bars | heatmap")->capture_default_str();
  app.add_option("--x", o->spec.x, "x field (e.g. topology.k) or series column (e.g. steps)");
  app.add_option("--y", o->y, "y field(s), comma-separated (several only for bars)");
  app.add_option("--group", o->group, "fields whose values make separate lines, comma-separated");
  app.add_option("--where", o->where, "keep only records whose FIELD=VALUE (repeatable)");
  app.add_option("--title", o->spec.title, "chart title");
  app.add_option("--xlabel", o->spec.xlabel, "x axis label");
  app.add_option("--ylabel", o->spec.ylabel, "y axis label");
  app.add_flag("--logx", o->spec.logx, "logarithmic x axis");
  app.add_flag("--logy", o->spec.logy, "logarithmic y axis");
  app.add_flag("--overlay", o->spec.overlay, "bars: draw the y fields' bars over each other, the last at the back");
  app.add_option("--x-max", o->spec.x_max, "series: drop points beyond this x");
  app.add_option("--z-max", o->spec.z_max, "heatmap: top of the colour scale (default: the largest load)");
  return [o] { return plot(*o); };
}

}  // namespace nnlb::cli
