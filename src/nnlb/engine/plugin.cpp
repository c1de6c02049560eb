#include "nnlb/engine/plugin.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "nnlb/engine/codec.hpp"
#include "nnlb/engine/own_process.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/version.hpp"

namespace nnlb {

namespace {

// A plugin file, loaded the first time it is needed and kept until the process ends.
class LazyPlugin {
 public:
  LazyPlugin(std::string engine, std::string path) : engine_(std::move(engine)), path_(std::move(path)) {}

  const EnginePlugin& get() {
    std::call_once(loaded_, [this] { plugin_ = load(); });
    return *plugin_;
  }

 private:
  const EnginePlugin* load() const {
    void* handle = ::dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw std::runtime_error("engine " + engine_ + ": cannot load its plugin: " + ::dlerror());
    const auto entry = reinterpret_cast<const EnginePlugin* (*)()>(::dlsym(handle, engine_plugin_symbol));
    if (entry == nullptr) throw std::runtime_error("engine " + engine_ + ": " + path_ + " is not an nnlb engine plugin");
    const EnginePlugin* p = entry();
    if (std::string_view(p->code_version) != code_version || p->run_size != sizeof(EngineRun) ||
        p->result_size != sizeof(RunResult) || p->platform_size != sizeof(Platform))
      throw std::runtime_error("engine " + engine_ + ": " + path_ + " is from another build of nnlb (" + p->code_version +
                               ", this one is " + code_version + "): rebuild or reinstall both");
    return p;
  }

  std::string engine_, path_;
  std::once_flag loaded_;
  const EnginePlugin* plugin_ = nullptr;
};

// Gives `name` the runner and platform reader of the plugin `get` returns (loaded at first use).
void attach(std::string_view name, std::function<const EnginePlugin&()> get) {
  const std::string engine(name);
  attach_runner(name, [engine, get](const EngineRun& r) {
    const EnginePlugin& p = get();
    try {
      return decode_result(answered_in_own_process([&] { return p.run(r); }));
    } catch (const ProcessDied& e) {
      throw ProcessDied("engine " + engine + ": " + e.what());
    }
  });
  const auto read = [get](const PlatformFile& f, const Graph& g) {
    const EnginePlugin& p = get();
    open_answer(p.check_platform(f.path));
    try {
      return decode_platform(answered_in_own_process([&] { return p.read_platform(f, g); }, true));
    } catch (const ProcessDied& e) {
      throw InputError({}, "platform.file", f.path + ": " + p.died_reading_platform + " (" + e.what() + ")");
    }
  };
  attach_platform_reader(name, read, [get](const std::string& file) { return get().platform_hosts(file); });
}

}  // namespace

bool attach_engine_plugin(std::string_view name, const std::vector<std::string>& candidates) {
  for (const std::string& path : candidates) {
    std::error_code error;
    if (path.empty() || !std::filesystem::is_regular_file(path, error)) continue;
    const auto plugin = std::make_shared<LazyPlugin>(std::string(name), path);
    attach(name, [plugin]() -> const EnginePlugin& { return plugin->get(); });
    return true;
  }
  return false;
}

void attach_engine(std::string_view name, const EnginePlugin& plugin) {
  attach(name, [&plugin]() -> const EnginePlugin& { return plugin; });
}

}  // namespace nnlb
