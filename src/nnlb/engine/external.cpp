#include "nnlb/engine/external.hpp"

#include <map>

namespace nnlb {

namespace {
std::map<std::string, Engine>& engines() {
  static std::map<std::string, Engine> e;
  return e;
}
}  // namespace

void register_engine(const std::string& name, Engine engine) { engines()[name] = std::move(engine); }

const Engine* find_engine(const std::string& name) {
  const auto it = engines().find(name);
  return it == engines().end() ? nullptr : &it->second;
}

}  // namespace nnlb
