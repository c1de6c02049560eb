#include "nnlb/catalog/registry.hpp"

#include <algorithm>

#include "nnlb/util/error.hpp"
#include "nnlb/util/parse.hpp"

namespace nnlb {

// The registration functions of catalog/policies/*.cpp, listed by the build.
#define NNLB_POLICY(file) void register_##file(PolicyCatalog&);
#include "nnlb/catalog/policy_list.inc"
#undef NNLB_POLICY

std::string PolicySpec::text(const std::string& key) const {
  const auto it = values.find(key);
  return it == values.end() ? std::string{} : it->second;
}

double PolicySpec::number(const std::string& key, double fallback) const {
  const std::string t = text(key);
  if (t.empty()) return fallback;
  try {
    return parse_double(t, key);
  } catch (const InputError& e) {
    throw InputError({}, key, e.what());
  }
}

bool PolicySpec::boolean(const std::string& key) const { return text(key) == "true"; }

void PolicyCatalog::add(PolicyEntry entry) {
  if (find(entry.name) != nullptr) throw std::logic_error("policy '" + entry.name + "' registered twice");
  entries_.push_back(std::move(entry));
}

const PolicyEntry* PolicyCatalog::find(const std::string& name) const {
  for (const PolicyEntry& e : entries_)
    if (e.name == name || std::find(e.aliases.begin(), e.aliases.end(), name) != e.aliases.end()) return &e;
  return nullptr;
}

std::vector<PolicyKey> PolicyCatalog::keys() const {
  std::vector<PolicyKey> out;
  for (const PolicyEntry& e : entries_)
    for (const PolicyKey& k : e.keys)
      if (std::none_of(out.begin(), out.end(), [&](const PolicyKey& o) { return o.name == k.name; })) out.push_back(k);
  return out;
}

const PolicyCatalog& policy_catalog() {
  static const PolicyCatalog catalog = [] {
    PolicyCatalog c;
#define NNLB_POLICY(file) register_##file(c);
#include "nnlb/catalog/policy_list.inc"
#undef NNLB_POLICY
    return c;
  }();
  return catalog;
}

BuiltPolicy make_policy(const PolicySpec& spec, const Topology& topo) {
  const PolicyCatalog& catalog = policy_catalog();
  const PolicyEntry* entry = catalog.find(spec.algorithm);
  if (entry == nullptr) throw InputError({}, "algorithm", "unknown algorithm '" + spec.algorithm + "' (see `nnlb list`)");
  for (const PolicyKey& key : catalog.keys()) {
    const std::string value = spec.text(key.name);
    if (value.empty() || value == key.default_value) continue;
    auto in = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), key.name) != v.end(); };
    if (in(entry->fixes))
      throw InputError({}, key.name, "is fixed by algorithm '" + spec.algorithm + "'; drop it");
    if (!in(entry->reads)) {
      std::string readers;
      for (const PolicyEntry& e : catalog.entries())
        if (std::find(e.reads.begin(), e.reads.end(), key.name) != e.reads.end()) readers += (readers.empty() ? "'" : ", '") + e.name + "'";
      throw InputError({}, key.name, "does not apply to algorithm '" + spec.algorithm + "' (it applies to " + readers + ")");
    }
  }
  return entry->build(spec, topo);
}

}  // namespace nnlb
