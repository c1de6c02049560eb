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

Scenario ScenarioOptions::load() const {
  if (std::filesystem::is_directory(file)) throw InputError(file, {}, "is a folder, not a scenario file");
  Scenario s = file.empty() ? Scenario() : Scenario::from_file(file);
  for (const auto& a : sets) set_given(s, a);
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
