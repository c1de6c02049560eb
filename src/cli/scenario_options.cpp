#include "commands.hpp"

#include <charconv>
#include <filesystem>
#include <fmt/format.h>

#include "nnlb/util/error.hpp"
#include "nnlb/util/memory.hpp"

namespace nnlb::cli {

void ScenarioOptions::add_to(CLI::App& app) {
  app.add_option("scenario", file, "scenario TOML file (optional: --set alone runs on defaults)");
  app.add_option("--set", sets, "override a scenario key, KEY=VALUE (repeatable)")->take_all();
}

void set_from_command_line(Scenario& scenario, const std::string& assignment) {
  const std::string key = assignment.substr(0, assignment.find('='));
  scenario.set_from_text(assignment, "--set " + key);
  // One rule for paths: in a file, relative to that file's folder; on the command line, to the
  // current folder (where the user stands), not beside a scenario file given with it.
  const std::string value = scenario.text(key);
  const std::string& name = canonical_key(key);
  const bool path_key = name == "platform.file" || name == "load.trace";
  const std::string prefix = path_key ? "" : "file:";
  if (value.empty() || !value.starts_with(prefix)) return;
  const std::filesystem::path path = value.substr(prefix.size());
  if (path.is_relative()) scenario.set(key, prefix + std::filesystem::absolute(path).string(), "--set " + key);
}

Scenario ScenarioOptions::load() const {
  if (std::filesystem::is_directory(file)) throw InputError(file, {}, "is a folder, not a scenario file");
  Scenario s = file.empty() ? Scenario() : Scenario::from_file(file);
  for (const auto& a : sets) set_from_command_line(s, a);
  return s;
}

void add_threads_option(CLI::App& app, int& threads) {
  app.add_option("--threads", threads, "worker threads (default: all cores; results do not depend on it)")->check(integer_in(0, 4096));
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& text) {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc() && end == text.data() + text.size()) return std::string();
        return fmt::format("must be a whole number in 0..18446744073709551615, got '{}'", text);
      },
      "UINT");
}

CLI::Validator integer_in(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc() && end == text.data() + text.size() && v >= lo && v <= hi) return std::string();
        return fmt::format("must be an integer in {}..{}, got '{}'", lo, hi, text);
      },
      fmt::format("INT in {}..{}", lo, hi));
}

void add_memory_option(CLI::App& app) {
  const auto size = [](const std::string& text) { return parse_memory_size(text, "--max-memory"); };
  app.add_option_function<std::string>("--max-memory", [size](const std::string& text) { set_memory_limit(size(text)); },
                                       "memory a run may take, e.g. 512M or 2G (default: half of this machine's); a larger run is "
                                       "refused before it starts, with its estimate")
      ->check(CLI::Validator(
          [size](std::string& text) {
            try {
              size(text);
              return std::string();
            } catch (const InputError& e) {
              return std::string(e.what());
            }
          },
          "SIZE"));
}

}  // namespace nnlb::cli
