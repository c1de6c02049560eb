#pragma once
// A scenario is a flat map of dotted keys ("load.mode", "stop.imbalance") to values, read from a
// TOML file (tables become key prefixes) and `--set KEY=VALUE` overrides, checked against the key
// registry: unknown keys, wrong types and impossible values are InputErrors naming the key.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnlb {

struct KeyInfo {
  std::string name;
  enum class Type { string, number, integer, boolean, text_or_number } type;
  nlohmann::json default_value;  // null: unset (optional key)
  std::string doc;
  std::vector<std::string> choices;  // allowed strings, empty: any
  std::vector<std::string> aliases{};  // earlier names, still read (and recorded under `name`)
};

const std::vector<KeyInfo>& scenario_keys();
// The key's current name: `key` itself, or the key it is an alias of.
const std::string& canonical_key(const std::string& key);

class Scenario {
 public:
  // All keys at their defaults.
  Scenario();
  // Reads a TOML file; keys are checked. `source` names the file in errors.
  static Scenario from_file(const std::string& path);
  // Same from TOML text (used for --set values and tests).
  static Scenario from_toml(const std::string& text, const std::string& source);

  // Sets a key from a TOML table node value already converted to JSON.
  void set(const std::string& key, const nlohmann::json& value, const std::string& source);
  // Parses "KEY=VALUE" (VALUE as a TOML value when it parses as one, else as a string).
  void set_from_text(const std::string& assignment, const std::string& source = "--set");

  const nlohmann::json& get(const std::string& key) const;
  std::string text(const std::string& key) const;  // strings as is, numbers in shortest round-trip form, null as ""
  double number(const std::string& key) const;
  std::int64_t integer(const std::string& key) const;
  bool boolean(const std::string& key) const;
  std::optional<double> optional_number(const std::string& key) const;
  bool is_set(const std::string& key) const { return !get(key).is_null(); }
  // Whether the key holds its default value (set to it or not set at all).
  bool is_default(const std::string& key) const;

  // Folder that relative paths in the scenario (file:PATH) are resolved against.
  const std::string& base_dir() const { return base_dir_; }
  void set_base_dir(std::string dir) { base_dir_ = std::move(dir); }
  // The file this scenario came from, or "--set".
  const std::string& source() const { return source_; }

  // Every key with its value (defaults included), as run: goes into the result record.
  nlohmann::json to_json() const;

 private:
  std::map<std::string, nlohmann::json> values_;
  std::map<std::string, std::string> origin_;  // where each explicitly set key came from
  std::string base_dir_;
  std::string source_ = "--set";
};

// "KEY=VALUE" given by a caller (--set, a keyword of the Python module), as set_from_text does
// with the source "--set KEY"; one rule for paths: a relative path in platform.file, load.trace or
// a file: value is taken from the current folder (where the caller stands), not from beside a
// scenario file.
void set_given(Scenario& scenario, const std::string& assignment);

// TOML text -> flat JSON object of dotted keys (tables flattened); throws InputError on syntax errors.
nlohmann::json flatten_toml(const std::string& text, const std::string& source);

}  // namespace nnlb
