#pragma once
// Helpers the test files share: the one line of an expected InputError, scratch files, shell
// commands, and runs of a scenario built from KEY=VALUE settings.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/util/error.hpp"
#include "case_sample.hpp"

namespace nnlb::test {

// The InputError::line() thrown by f, or a test failure if it throws none.
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.line();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

// A file in the test scratch folder with `content`; returns its path.
inline std::string write_temp(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "nnlb_test_" + name;
  std::ofstream(path) << content;
  return path;
}

// The whole file, byte for byte (empty when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Outcome {
  int status = -1;
  std::string out;  // standard output
};

// Runs a shell command; standard error goes where the command says.
inline Outcome shell(const std::string& cmd) {
  Outcome o;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return o;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) o.out.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return o;
}

// A run of the default scenario with these KEY=VALUE settings, in order.
inline RunRecord run_sets(const std::vector<std::string>& sets, std::uint64_t seed = 1) {
  Scenario s;
  for (const std::string& kv : sets) s.set_from_text(kv, "test");
  return run_scenario(s, seed);
}

// The record's summary, as written.
inline nlohmann::json summary(const RunRecord& r) { return to_json(r)["summary"]; }

// A valid value away from the key's default, to set it: `chosen` where it names the key, else
// another of its choices, the other boolean, one more, twice the default, or 1.
inline std::string sample_value(const KeyInfo& k, const std::map<std::string, std::string>& chosen = {}) {
  static const std::map<std::string, std::string> text = {{"guest.graph", "ring:8"},        {"guest.mapping", "block"},
                                                          {"churn.events", "leave@5"},      {"tasks.background", "random:0.5,1,10"},
                                                          {"tasks.init", "uniform:8,1,2"}};
  if (const auto it = chosen.find(k.name); it != chosen.end()) return it->second;
  if (const auto it = text.find(k.name); it != text.end()) return it->second;
  for (const std::string& c : k.choices)
    if (c != k.default_value) return c;
  switch (k.type) {
    case KeyInfo::Type::boolean:
      return k.default_value == true ? "false" : "true";
    case KeyInfo::Type::integer:
      return k.default_value.is_null() ? "2" : std::to_string(k.default_value.get<std::int64_t>() + 1);
    default:
      return k.default_value.is_number() && k.default_value.get<double>() != 0 ? std::to_string(k.default_value.get<double>() * 2) : "1";
  }
}

// Whether a run with these settings is refused with an InputError whose line holds `needle`.
inline bool refused(const std::vector<std::string>& sets, const std::string& needle) {
  const std::string line = input_error([&] { run_sets(sets); });
  if (line.find(needle) != std::string::npos) return true;
  ADD_FAILURE() << "refused with '" << line << "', not naming '" << needle << "'";
  return false;
}

}  // namespace nnlb::test
